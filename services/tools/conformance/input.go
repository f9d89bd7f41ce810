package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"gitlab.com/glmcp/glmcp/services/tools"
)

// The multi round-trip (input_required) fixtures. Each asks for input with
// Result.InputRequests until the retry carries the answers; the server
// seals RequestState, so they read it back as they wrote it.

var (
	nameSchema    = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)
	confirmSchema = json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)
	colorSchema   = json.RawMessage(`{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}`)
)

func inputFixtures() []tools.Definition {
	return []tools.Definition{
		confFixture("test_input_required_result_elicitation", "Conformance fixture: asks the user's name by elicitation, then greets.", inputElicitation),
		confFixture("test_input_required_result_sampling", "Conformance fixture: asks the client's model a question by sampling.", inputSampling),
		confFixture("test_input_required_result_list_roots", "Conformance fixture: asks the client for its roots.", inputListRoots),
		confFixture("test_input_required_result_request_state", "Conformance fixture: asks for a confirmation along with a request state.", inputRequestState),
		confFixture("test_input_required_result_multiple_inputs", "Conformance fixture: asks for elicitation, sampling and roots in one round.", inputMultiple),
		confFixture("test_input_required_result_multi_round", "Conformance fixture: asks for input in two rounds, carrying state between them.", inputMultiRound),
		confFixture("test_input_required_result_tampered_state", "Conformance fixture: asks for a confirmation with a request state the server protects.", inputTamperedState),
		confFixture("test_input_required_result_capabilities", "Conformance fixture: asks only for input kinds the client declared.", inputCapabilities),
	}
}

func askOne(key string, req tools.InputRequest, state string) *tools.Result {
	return &tools.Result{InputRequests: map[string]tools.InputRequest{key: req}, RequestState: state}
}

func inputElicitation(_ context.Context, call *tools.Call) (*tools.Result, error) {
	if c, ok := call.Accepted("user_name"); ok {
		if name, _ := c["name"].(string); name != "" {
			return &tools.Result{Text: fmt.Sprintf("Hello, %s!", name)}, nil
		}
	}
	return askOne("user_name", tools.ElicitInput("What is your name?", nameSchema), ""), nil
}

func inputSampling(_ context.Context, call *tools.Call) (*tools.Result, error) {
	if text, ok := call.Sampled("capital_question"); ok {
		return &tools.Result{Text: "Sampling response: " + text}, nil
	}
	return askOne("capital_question", tools.SampleInput("What is the capital of France?", 100), ""), nil
}

func inputListRoots(_ context.Context, call *tools.Call) (*tools.Result, error) {
	if uris, ok := call.Roots("client_roots"); ok {
		return &tools.Result{Text: fmt.Sprintf("Client exposed %d root(s): %s", len(uris), strings.Join(uris, ", "))}, nil
	}
	return askOne("client_roots", tools.ListRootsInput(), ""), nil
}

func inputRequestState(_ context.Context, call *tools.Call) (*tools.Result, error) {
	if _, ok := call.Accepted("confirm"); ok && call.RequestState == "confirm" {
		return &tools.Result{Text: "state-ok: requestState received and confirmation accepted"}, nil
	}
	return askOne("confirm", tools.ElicitInput("Please confirm", confirmSchema), "confirm"), nil
}

func inputMultiple(_ context.Context, call *tools.Call) (*tools.Result, error) {
	c, okName := call.Accepted("user_name")
	greeting, okGreeting := call.Sampled("greeting")
	roots, okRoots := call.Roots("client_roots")
	if name, _ := c["name"].(string); okName && name != "" && okGreeting && okRoots {
		return &tools.Result{Text: fmt.Sprintf("%s %s: %d root(s) visible", greeting, name, len(roots))}, nil
	}
	return &tools.Result{InputRequests: map[string]tools.InputRequest{
		"user_name":    tools.ElicitInput("What is your name?", nameSchema),
		"greeting":     tools.SampleInput("Generate a greeting", 50),
		"client_roots": tools.ListRootsInput(),
	}, RequestState: "multiple_inputs"}, nil
}

// multiRoundState is the state between the rounds of inputMultiRound.
type multiRoundState struct {
	Round int    `json:"round"`
	Name  string `json:"name,omitempty"`
}

func inputMultiRound(_ context.Context, call *tools.Call) (*tools.Result, error) {
	var st multiRoundState
	if call.RequestState != "" {
		if err := json.Unmarshal([]byte(call.RequestState), &st); err != nil {
			return nil, fmt.Errorf("decode multi-round state: %w", err)
		}
	}
	answer := func(key, field string) string {
		c, _ := call.Accepted(key)
		if v, _ := c[field].(string); v != "" {
			return v
		}
		return "unknown"
	}
	switch st.Round {
	case 0:
		return askOne("step1", tools.ElicitInput("Step 1: What is your name?", nameSchema), `{"round":1}`), nil
	case 1:
		next, err := json.Marshal(multiRoundState{Round: 2, Name: answer("step1", "name")})
		if err != nil {
			return nil, fmt.Errorf("encode multi-round state: %w", err)
		}
		return askOne("step2", tools.ElicitInput("Step 2: What is your favorite color?", colorSchema), string(next)), nil
	default:
		return &tools.Result{Text: fmt.Sprintf("Multi-round complete: %s likes %s", st.Name, answer("step2", "color"))}, nil
	}
}

func inputTamperedState(_ context.Context, call *tools.Call) (*tools.Result, error) {
	if _, ok := call.Accepted("confirm"); ok && call.RequestState == "protected" {
		return &tools.Result{Text: "state-ok: requestState verified and confirmation accepted"}, nil
	}
	return askOne("confirm", tools.ElicitInput("Please confirm", confirmSchema), "protected"), nil
}

func inputCapabilities(_ context.Context, call *tools.Call) (*tools.Result, error) {
	if len(call.InputResponses) > 0 {
		return &tools.Result{Text: "Capability-aware input requests fulfilled"}, nil
	}
	reqs := map[string]tools.InputRequest{}
	if call.Declares("elicitation") {
		reqs["user_name"] = tools.ElicitInput("What is your name?", nameSchema)
	}
	if call.Declares("sampling") {
		reqs["greeting"] = tools.SampleInput("Generate a short greeting", 50)
	}
	if call.Declares("roots") {
		reqs["client_roots"] = tools.ListRootsInput()
	}
	if len(reqs) == 0 {
		return &tools.Result{Text: "The client declared no input capability; nothing to ask."}, nil
	}
	return &tools.Result{InputRequests: reqs}, nil
}
