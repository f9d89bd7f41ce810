package conformance_test

import (
	"context"
	"encoding/json"
	"reflect"
	"sort"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
	"gitlab.com/glmcp/glmcp/services/tools/conformance"
)

// fxInput calls a fixture as a 2026-07-28 retry would.
func fxInput(tb testing.TB, svc *tools.Service, name string, caps, responses map[string]string, state string) *tools.Result {
	tb.Helper()
	snap, err := svc.Snapshot(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	e, ok := snap.Lookup(name)
	if !ok {
		tb.Fatalf("no fixture %q", name)
	}
	call := &tools.Call{Edition: models.EditionCE, Arguments: json.RawMessage(`{}`), RequestState: state}
	if caps != nil {
		call.ClientCapabilities = map[string]json.RawMessage{}
		for k, v := range caps {
			call.ClientCapabilities[k] = json.RawMessage(v)
		}
	}
	if responses != nil {
		call.InputResponses = map[string]json.RawMessage{}
		for k, v := range responses {
			call.InputResponses[k] = json.RawMessage(v)
		}
	}
	res, err := e.Run(context.Background(), call)
	if err != nil {
		tb.Fatalf("run %s: %v", name, err)
	}
	return res
}

// fxAsks returns "key=method" for each input request, sorted.
func fxAsks(res *tools.Result) []string {
	var out []string
	for k, r := range res.InputRequests {
		out = append(out, k+"="+r.Method)
	}
	sort.Strings(out)
	return out
}

const (
	fxAccept = `{"action":"accept","content":{"name":"Alice","ok":true,"color":"blue"}}`
	fxSample = `{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m","stopReason":"endTurn"}`
	fxRoots  = `{"roots":[{"uri":"file:///test/root","name":"Test Root"}]}`
)

// Ensure each input fixture asks, then completes once answered.
func TestConformanceFixtures_inputRequired(t *testing.T) {
	svc, _ := fxService(t, conformance.Deps{})
	tests := []struct {
		name      string
		asks      []string
		state     string
		responses map[string]string
		want      string
	}{
		{"test_input_required_result_elicitation", []string{"user_name=elicitation/create"}, "",
			map[string]string{"user_name": fxAccept}, "Hello, Alice!"},
		{"test_input_required_result_sampling", []string{"capital_question=sampling/createMessage"}, "",
			map[string]string{"capital_question": fxSample}, "Sampling response: Paris"},
		{"test_input_required_result_list_roots", []string{"client_roots=roots/list"}, "",
			map[string]string{"client_roots": fxRoots}, "Client exposed 1 root(s): file:///test/root"},
		{"test_input_required_result_request_state", []string{"confirm=elicitation/create"}, "confirm",
			map[string]string{"confirm": fxAccept}, "state-ok: requestState received and confirmation accepted"},
		{"test_input_required_result_tampered_state", []string{"confirm=elicitation/create"}, "protected",
			map[string]string{"confirm": fxAccept}, "state-ok: requestState verified and confirmation accepted"},
		{"test_input_required_result_multiple_inputs",
			[]string{"client_roots=roots/list", "greeting=sampling/createMessage", "user_name=elicitation/create"}, "multiple_inputs",
			map[string]string{"user_name": fxAccept, "greeting": fxSample, "client_roots": fxRoots}, "Paris Alice: 1 root(s) visible"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := fxInput(t, svc, tt.name, nil, nil, "")
			if got := fxAsks(first); !reflect.DeepEqual(got, tt.asks) || first.RequestState != tt.state {
				t.Fatalf("first round asks %v with state %q; want %v with %q", got, first.RequestState, tt.asks, tt.state)
			}
			done := fxInput(t, svc, tt.name, nil, tt.responses, first.RequestState)
			if done.InputRequests != nil || done.Text != tt.want || done.IsError {
				t.Fatalf("answered round = %+v, want text %q", done, tt.want)
			}
		})
	}
}

// Ensure missing, declined or wrongly keyed answers are asked for again
// (never a completed call on bad input).
func TestConformanceFixtures_inputReasked(t *testing.T) {
	svc, _ := fxService(t, conformance.Deps{})
	for name, responses := range map[string]map[string]string{
		"wrong key":   {"wrong_key": fxAccept},
		"declined":    {"user_name": `{"action":"decline"}`},
		"empty name":  {"user_name": `{"action":"accept","content":{"name":""}}`},
		"not elicit":  {"user_name": fxRoots},
		"no response": nil,
	} {
		t.Run(name, func(t *testing.T) {
			res := fxInput(t, svc, "test_input_required_result_elicitation", nil, responses, "")
			if got := fxAsks(res); !reflect.DeepEqual(got, []string{"user_name=elicitation/create"}) {
				t.Fatalf("asks %v, want user_name again", got)
			}
		})
	}
	// The state-checking fixtures want their state back with the answer.
	res := fxInput(t, svc, "test_input_required_result_request_state", nil, map[string]string{"confirm": fxAccept}, "")
	if res.InputRequests == nil {
		t.Errorf("request_state completed without its state: %+v", res)
	}
}

// Ensure the multi-round fixture carries its state across two rounds.
func TestConformanceFixtures_inputMultiRound(t *testing.T) {
	svc, _ := fxService(t, conformance.Deps{})
	const name = "test_input_required_result_multi_round"
	r1 := fxInput(t, svc, name, nil, nil, "")
	if got := fxAsks(r1); !reflect.DeepEqual(got, []string{"step1=elicitation/create"}) || r1.RequestState == "" {
		t.Fatalf("round 1: %+v", r1)
	}
	r2 := fxInput(t, svc, name, nil, map[string]string{"step1": fxAccept}, r1.RequestState)
	if got := fxAsks(r2); !reflect.DeepEqual(got, []string{"step2=elicitation/create"}) || r2.RequestState == r1.RequestState {
		t.Fatalf("round 2: %+v", r2)
	}
	r3 := fxInput(t, svc, name, nil, map[string]string{"step2": fxAccept}, r2.RequestState)
	if r3.InputRequests != nil || r3.Text != "Multi-round complete: Alice likes blue" {
		t.Fatalf("round 3: %+v", r3)
	}
}

// Ensure the capability fixture asks only for what the client declared.
func TestConformanceFixtures_inputCapabilities(t *testing.T) {
	svc, _ := fxService(t, conformance.Deps{})
	for name, tt := range map[string]struct {
		caps map[string]string
		asks []string
	}{
		"sampling only": {map[string]string{"sampling": `{}`}, []string{"greeting=sampling/createMessage"}},
		"all": {map[string]string{"sampling": `{}`, "elicitation": `{}`, "roots": `{"listChanged":true}`},
			[]string{"client_roots=roots/list", "greeting=sampling/createMessage", "user_name=elicitation/create"}},
		"null is not declared": {map[string]string{"elicitation": `null`, "roots": `{}`}, []string{"client_roots=roots/list"}},
		"none":                 {map[string]string{}, nil},
	} {
		t.Run(name, func(t *testing.T) {
			res := fxInput(t, svc, "test_input_required_result_capabilities", tt.caps, nil, "")
			if got := fxAsks(res); !reflect.DeepEqual(got, tt.asks) {
				t.Fatalf("asks %v, want %v", got, tt.asks)
			}
			if tt.asks == nil && (res.Text == "" || res.IsError) {
				t.Errorf("with nothing to ask: %+v", res)
			}
		})
	}
}

// Ensure the answer readers accept both sampling content shapes and
// refuse answers of another kind.
func TestCall_inputReaders(t *testing.T) {
	call := &tools.Call{InputResponses: map[string]json.RawMessage{
		"one":   json.RawMessage(fxSample),
		"many":  json.RawMessage(`{"role":"assistant","content":[{"type":"image","data":"x","mimeType":"image/png"},{"type":"text","text":"Lyon"}],"model":"m"}`),
		"roots": json.RawMessage(fxRoots),
		"elic":  json.RawMessage(fxAccept),
	}}
	if got, ok := call.Sampled("one"); !ok || got != "Paris" {
		t.Errorf("Sampled(one) = %q, %v", got, ok)
	}
	if got, ok := call.Sampled("many"); !ok || got != "Lyon" {
		t.Errorf("Sampled(many) = %q, %v", got, ok)
	}
	if _, ok := call.Sampled("roots"); ok {
		t.Error("a roots answer reads as a sampling answer")
	}
	if _, ok := call.Roots("elic"); ok {
		t.Error("an elicitation answer reads as a roots answer")
	}
	if _, ok := call.Accepted("missing"); ok {
		t.Error("a missing answer reads as accepted")
	}
	if tools.InputCapability(tools.InputListRoots) != "roots" || tools.InputCapability("ping") != "" {
		t.Error("InputCapability maps methods wrongly")
	}
}
