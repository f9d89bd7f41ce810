package conformance_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
	"gitlab.com/glmcp/glmcp/services/tools/conformance"
)

// fxStore is an in-memory tools.Store recording what Sync writes.
type fxStore struct {
	rows     map[string]models.Tool
	upserted []string
}

func (s *fxStore) UpsertTool(_ context.Context, t *models.Tool) error {
	if s.rows == nil {
		s.rows = map[string]models.Tool{}
	}
	s.rows[t.Name] = *t
	s.upserted = append(s.upserted, t.Name)
	return nil
}

func (s *fxStore) ListTools(context.Context) ([]models.Tool, error) {
	out := make([]models.Tool, 0, len(s.rows))
	for _, t := range s.rows {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// fxRecorder records what a fixture reports.
type fxRecorder struct {
	progress [][2]float64
	logs     []string
	sleeps   int
	notified int
}

func (r *fxRecorder) deps() conformance.Deps {
	return conformance.Deps{
		NotifyToolsChanged: func(context.Context) error { r.notified++; return nil },
		Sleep:              func(context.Context, time.Duration) error { r.sleeps++; return nil },
	}
}

// fxService is a tool service whose only tools are the fixtures.
func fxService(tb testing.TB, deps conformance.Deps) (*tools.Service, *fxStore) {
	tb.Helper()
	st := &fxStore{}
	svc, err := tools.NewService(st, nil, tools.Options{Transient: conformance.Tools(deps)})
	if err != nil {
		tb.Fatalf("new service: %v", err)
	}
	return svc, st
}

// fxRun calls the named fixture through the snapshot, as the dispatcher does.
func fxRun(tb testing.TB, svc *tools.Service, rec *fxRecorder, name, args string) (*tools.Result, error) {
	tb.Helper()
	snap, err := svc.Snapshot(context.Background())
	if err != nil {
		tb.Fatalf("snapshot: %v", err)
	}
	e, ok := snap.Lookup(name)
	if !ok {
		tb.Fatalf("fixture %q not in the snapshot", name)
	}
	call := &tools.Call{Edition: models.EditionCE, Arguments: json.RawMessage(args)}
	if rec != nil {
		call.Progress = func(p, total float64, _ string) { rec.progress = append(rec.progress, [2]float64{p, total}) }
		call.Log = func(level, logger string, data any) {
			rec.logs = append(rec.logs, level+"|"+logger+"|"+data.(string))
		}
	}
	return e.Run(context.Background(), call)
}

var fxNames = []string{
	"json_schema_2020_12_tool", "test_audio_content", "test_embedded_resource",
	"test_error_handling", "test_image_content", "test_input_required_result_capabilities",
	"test_input_required_result_elicitation", "test_input_required_result_list_roots", "test_input_required_result_multi_round",
	"test_input_required_result_multiple_inputs", "test_input_required_result_request_state", "test_input_required_result_sampling",
	"test_input_required_result_tampered_state", "test_logging_tool", "test_missing_capability",
	"test_multiple_content_types", "test_simple_text", "test_streaming_elicitation",
	"test_tool_with_logging", "test_tool_with_progress", "test_trigger_tool_change",
	"test_x_mcp_header",
}

// Ensure the fixture set is exactly the suite's tool names, in the
// conformance toolset, listable (name format, description, object schema).
func TestConformanceFixtures_catalog(t *testing.T) {
	defs := conformance.Tools(conformance.Deps{})
	var names []string
	nameRE := regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)
	for _, d := range defs {
		names = append(names, d.Name)
		if !nameRE.MatchString(d.Name) {
			t.Errorf("%s: name does not match %s", d.Name, nameRE)
		}
		if d.Toolset != conformance.Toolset || d.Edition != models.EditionCE {
			t.Errorf("%s: toolset %q edition %q, want conformance ce", d.Name, d.Toolset, d.Edition)
		}
		if d.Description == "" || d.Run == nil {
			t.Errorf("%s: description or executor missing", d.Name)
		}
		var schema map[string]any
		if err := json.Unmarshal(d.InputSchema, &schema); err != nil || schema["type"] != "object" {
			t.Errorf("%s: input schema %s is not an object schema", d.Name, d.InputSchema)
		}
	}
	sort.Strings(names)
	if !reflect.DeepEqual(names, fxNames) {
		t.Errorf("fixture names = %v\nwant %v", names, fxNames)
	}
	for _, d := range defs {
		want := []string(nil)
		if d.Name == "test_missing_capability" {
			want = []string{"sampling"}
		}
		if !reflect.DeepEqual(d.RequiredClientCapabilities, want) {
			t.Errorf("%s: RequiredClientCapabilities = %v, want %v", d.Name, d.RequiredClientCapabilities, want)
		}
	}
}

// Ensure fixtures are transient: listed in every snapshot, never written
// to the store, and shadowing a stale store row of the same name.
func TestConformanceFixtures_transient(t *testing.T) {
	st := &fxStore{rows: map[string]models.Tool{
		"test_simple_text": {Name: "test_simple_text", Description: "stale row", Enabled: false, InputSchema: models.JSON(`{"type":"object"}`)},
	}}
	version := versionTool()
	svc, err := tools.NewService(st, []tools.Definition{version},
		tools.Options{Transient: conformance.Tools(conformance.Deps{})})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st.upserted, []string{"get_mcp_server_version"}) {
		t.Errorf("Sync wrote %v, want only get_mcp_server_version", st.upserted)
	}
	snap, err := svc.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for i := range snap.Entries {
		listed = append(listed, snap.Entries[i].Tool.Name)
	}
	want := append([]string{"get_mcp_server_version"}, fxNames...)
	sort.Strings(want)
	if !reflect.DeepEqual(listed, want) {
		t.Errorf("snapshot lists %v\nwant %v", listed, want)
	}
	e, _ := snap.Lookup("test_simple_text")
	if e.Def == nil || e.Tool.Description == "stale row" {
		t.Errorf("the stale store row shadows the fixture: %+v", e.Tool)
	}
	if d, ok := svc.Describe("test_trigger_tool_change"); !ok || d.Toolset != conformance.Toolset {
		t.Errorf("Describe(test_trigger_tool_change) = %+v, %v", d, ok)
	}
	for _, d := range svc.Definitions() {
		if d.Toolset == conformance.Toolset {
			t.Errorf("Definitions() includes fixture %s", d.Name)
		}
	}
}

// Ensure a transient name may not repeat a stored definition's.
func TestConformanceFixtures_duplicateName(t *testing.T) {
	dup := versionTool()
	dup.Name = "test_simple_text"
	_, err := tools.NewService(&fxStore{}, []tools.Definition{dup},
		tools.Options{Transient: conformance.Tools(conformance.Deps{})})
	if err == nil || !strings.Contains(err.Error(), `duplicate tool "test_simple_text"`) {
		t.Fatalf("err = %v, want duplicate tool", err)
	}
}

// Ensure the content fixtures return the blocks the suite checks.
func TestConformanceFixtures_content(t *testing.T) {
	svc, _ := fxService(t, conformance.Deps{})
	png := func(tb testing.TB, c tools.Content) {
		b, err := base64.StdEncoding.DecodeString(c.Data)
		if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) || c.MIMEType != "image/png" {
			tb.Errorf("image block %+v is not a base64 PNG (%v)", c, err)
		}
	}
	tests := []struct {
		name  string
		check func(tb testing.TB, r *tools.Result)
	}{
		{"test_simple_text", func(tb testing.TB, r *tools.Result) {
			if r.Text != "This is a simple text response for testing." || r.Content != nil || r.IsError {
				tb.Errorf("result %+v", r)
			}
		}},
		{"test_image_content", func(tb testing.TB, r *tools.Result) {
			if len(r.Content) != 1 || r.Content[0].Type != tools.ContentImage {
				tb.Fatalf("content %+v", r.Content)
			}
			png(tb, r.Content[0])
		}},
		{"test_audio_content", func(tb testing.TB, r *tools.Result) {
			if len(r.Content) != 1 || r.Content[0].Type != tools.ContentAudio || r.Content[0].MIMEType != "audio/wav" {
				tb.Fatalf("content %+v", r.Content)
			}
			b, err := base64.StdEncoding.DecodeString(r.Content[0].Data)
			if err != nil || len(b) < 44 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
				tb.Errorf("audio is not a base64 WAV (%v)", err)
			}
		}},
		{"test_embedded_resource", func(tb testing.TB, r *tools.Result) {
			want := []tools.Content{tools.EmbeddedText("test://embedded-resource", "text/plain", "This is an embedded resource content.")}
			if !reflect.DeepEqual(r.Content, want) {
				tb.Errorf("content %+v, want %+v", r.Content, want)
			}
		}},
		{"test_multiple_content_types", func(tb testing.TB, r *tools.Result) {
			if len(r.Content) != 3 {
				tb.Fatalf("content %+v", r.Content)
			}
			if r.Content[0] != tools.TextContent("Multiple content types test:") {
				tb.Errorf("first block %+v", r.Content[0])
			}
			png(tb, r.Content[1])
			res := r.Content[2].Resource
			if r.Content[2].Type != tools.ContentResource || res == nil || res.URI != "test://mixed-content-resource" ||
				res.MIMEType != "application/json" || res.Text != `{"test":"data","value":123}` {
				tb.Errorf("third block %+v", r.Content[2])
			}
		}},
		{"test_error_handling", func(tb testing.TB, r *tools.Result) {
			if !r.IsError || r.Text != "This tool intentionally returns an error for testing" {
				tb.Errorf("result %+v, want an error result", r)
			}
		}},
		{"test_missing_capability", func(tb testing.TB, r *tools.Result) {
			if r.IsError || r.Text == "" {
				tb.Errorf("result %+v", r)
			}
		}},
		{"test_streaming_elicitation", func(tb testing.TB, r *tools.Result) {
			if r.IsError || r.Text == "" {
				tb.Errorf("result %+v", r)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := fxRun(t, svc, nil, tt.name, `{}`)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, res)
		})
	}
}

// Ensure a fixture without arguments refuses unknown ones (schema
// validation applies to fixtures as to every tool).
func TestConformanceFixtures_rejectsArguments(t *testing.T) {
	svc, _ := fxService(t, conformance.Deps{})
	res, err := fxRun(t, svc, nil, "test_simple_text", `{"extra":1}`)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.HasPrefix(res.Text, "Validation error:") {
		t.Errorf("result %+v, want a validation error", res)
	}
}

// Ensure the streaming fixtures report in order, pausing between steps.
func TestConformanceFixtures_progressAndLogging(t *testing.T) {
	rec := &fxRecorder{}
	svc, _ := fxService(t, rec.deps())
	if _, err := fxRun(t, svc, rec, "test_tool_with_progress", `{}`); err != nil {
		t.Fatal(err)
	}
	if want := [][2]float64{{0, 100}, {50, 100}, {100, 100}}; !reflect.DeepEqual(rec.progress, want) {
		t.Errorf("progress = %v, want %v", rec.progress, want)
	}
	if rec.sleeps != 2 {
		t.Errorf("sleeps = %d, want 2", rec.sleeps)
	}
	if _, err := fxRun(t, svc, rec, "test_tool_with_logging", `{}`); err != nil {
		t.Fatal(err)
	}
	if _, err := fxRun(t, svc, rec, "test_logging_tool", `{}`); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"info|conformance|Tool execution started", "info|conformance|Tool processing data",
		"info|conformance|Tool execution completed", "info|conformance|test_logging_tool executed",
	}
	if !reflect.DeepEqual(rec.logs, want) {
		t.Errorf("logs = %q\nwant %q", rec.logs, want)
	}
}

// Ensure a cancelled pause stops the fixture with the context's error.
func TestConformanceFixtures_cancelled(t *testing.T) {
	svc, _ := fxService(t, conformance.Deps{
		Sleep: func(context.Context, time.Duration) error { return context.Canceled },
	})
	res, err := fxRun(t, svc, nil, "test_tool_with_progress", `{}`)
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Fatalf("res, err = %+v, %v; want context.Canceled", res, err)
	}
}

// Ensure the trigger announces through the deps, and says so when it cannot.
func TestConformanceFixtures_trigger(t *testing.T) {
	rec := &fxRecorder{}
	svc, _ := fxService(t, rec.deps())
	res, err := fxRun(t, svc, nil, "test_trigger_tool_change", `{}`)
	if err != nil || res.IsError || rec.notified != 1 {
		t.Fatalf("res %+v err %v notified %d; want one announcement", res, err, rec.notified)
	}

	svc, _ = fxService(t, conformance.Deps{})
	res, err = fxRun(t, svc, nil, "test_trigger_tool_change", `{}`)
	if err != nil || !res.IsError {
		t.Fatalf("without a notifier: res %+v err %v, want an error result", res, err)
	}

	boom := errors.New("boom")
	svc, _ = fxService(t, conformance.Deps{NotifyToolsChanged: func(context.Context) error { return boom }})
	if _, err := fxRun(t, svc, nil, "test_trigger_tool_change", `{}`); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the notifier's error (a server failure)", err)
	}
}

// Ensure the 2020-12 schema survives listing verbatim and is enforced.
func TestConformanceFixtures_jsonSchema202012(t *testing.T) {
	svc, _ := fxService(t, conformance.Deps{})
	snap, err := svc.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	e, _ := snap.Lookup("json_schema_2020_12_tool")
	var listed struct {
		InputSchema map[string]json.RawMessage `json:"inputSchema"`
	}
	if err := json.Unmarshal(e.AppendJSON(nil, ""), &listed); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"$schema", "$defs", "allOf", "if", "then", "else", "additionalProperties"} {
		if _, ok := listed.InputSchema[k]; !ok {
			t.Errorf("listed inputSchema lost %q", k)
		}
	}
	if !bytes.Contains(listed.InputSchema["$defs"], []byte(`"$anchor":"addressDef"`)) {
		t.Errorf("$defs lost $anchor: %s", listed.InputSchema["$defs"])
	}
	for args, wantErr := range map[string]bool{
		`{}`:                true, // neither phone nor email
		`{"email":"a@b.c"}`: false,
		`{"contactMethod":"phone","email":"a@b.c"}`: true, // then: phone required
		`{"email":"a@b.c","extra":1}`:               true,
	} {
		res, err := fxRun(t, svc, nil, "json_schema_2020_12_tool", args)
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError != wantErr {
			t.Errorf("args %s: IsError = %v (%s), want %v", args, res.IsError, res.Text, wantErr)
		}
	}
}

// Ensure test_x_mcp_header declares region as the mirrored header Region.
func TestConformanceFixtures_xMCPHeader(t *testing.T) {
	svc, _ := fxService(t, conformance.Deps{})
	snap, err := svc.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	e, _ := snap.Lookup("test_x_mcp_header")
	want := []tools.MirroredParam{{Path: []string{"region"}, Header: "Region"}}
	if got := e.MirroredParams(); !reflect.DeepEqual(got, want) {
		t.Errorf("mirrored = %+v, want %+v", got, want)
	}
	res, err := fxRun(t, svc, nil, "test_x_mcp_header", `{"region":"us-west1","level":3}`)
	if err != nil || res.Text != "region=us-west1" {
		t.Fatalf("res %+v err %v", res, err)
	}
}

// versionTool is a stored (not transient) definition beside the fixtures.
func versionTool() tools.Definition {
	return tools.Definition{
		Name: "get_mcp_server_version", InputSchema: json.RawMessage(`{"type":"object"}`),
		Toolset: models.ToolsetMeta, Edition: models.EditionCE,
		Run: func(context.Context, *tools.Call) (*tools.Result, error) { return &tools.Result{Text: "1"}, nil },
	}
}
