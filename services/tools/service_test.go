package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// echoArgs is a typed argument struct.
type echoArgs struct {
	Text string `json:"text"`
}

// svcDefs is a small catalog covering every rule of the tool service: a
// meta tool, a write tool, an EE tool, an unlisted tool with an alias, a
// tool of a toolset no other tool names, and a tool needing sampling.
func svcDefs() []tools.Definition {
	ro := models.ToolAnnotations{ReadOnlyHint: true}
	echo := tools.Typed(func(_ context.Context, _ *tools.Call, a echoArgs) (*tools.Result, error) {
		return &tools.Result{Text: "echo:" + a.Text}, nil
	})
	def := func(name, toolset string, ed models.Edition, ann models.ToolAnnotations) tools.Definition {
		return tools.Definition{Name: name, Toolset: toolset, Edition: ed, Annotations: ann, Run: echo,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"additionalProperties":false}`)}
	}
	old := def("old_tool", models.ToolsetCore, models.EditionCE, ro)
	old.Unlisted, old.Aliases = true, []string{"older_tool"}
	sampler := def("sampler", models.ToolsetCore, models.EditionCE, ro)
	sampler.RequiredClientCapabilities = []string{"sampling"}
	return []tools.Definition{
		def("version", models.ToolsetMeta, models.EditionCE, ro),
		def("reader", models.ToolsetCore, models.EditionCE, ro),
		def("writer", models.ToolsetWorkItems, models.EditionCE, models.ToolAnnotations{}),
		def("ee_only", models.ToolsetCore, models.EditionEE, ro),
		def("wiki_reader", "wikis", models.EditionCE, ro),
		old,
		sampler,
	}
}

func newSvc(tb testing.TB, pageSize int) *tools.Service {
	tb.Helper()
	st := &memStore{}
	svc, err := tools.NewService(st, svcDefs(), tools.Options{PageSize: pageSize, Secret: []byte("0123456789abcdef0123456789abcdef")})
	if err != nil {
		tb.Fatal(err)
	}
	if err := svc.Sync(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return svc
}

func scope(ed models.Edition, readOnly bool, h models.Headers) models.Scope {
	return models.Scope{Edition: ed, Headers: h,
		Identity: &models.Identity{User: &models.User{ID: 7}, ReadOnly: readOnly}}
}

// listAll pages through a whole listing and returns the rendered names.
func listAll(tb testing.TB, svc *tools.Service, sc models.Scope) []string {
	tb.Helper()
	var names []string
	var cursor *string
	for range 20 {
		p, err := svc.List(context.Background(), tools.ListQuery{Scope: sc, Cursor: cursor})
		if err != nil {
			tb.Fatalf("List: %v", err)
		}
		for _, e := range p.Entries {
			names = append(names, p.Prefix+e.Tool.Name)
		}
		if p.NextCursor == "" {
			return names
		}
		cursor = &p.NextCursor
	}
	tb.Fatal("listing never ends")
	return nil
}

// Ensure List applies every visibility rule in one place: edition,
// read-only token, toolsets and tools headers, prefix, unlisted tools, and
// pages of entries that resume where they stopped.
func TestService_List(t *testing.T) {
	svc := newSvc(t, 2)
	tests := []struct {
		name string
		sc   models.Scope
		want []string
	}{
		// No header: every toolset but GitLab's opt-in ones (wikis).
		{"CE", scope(models.EditionCE, false, models.Headers{}), []string{"reader", "sampler", "version", "writer"}},
		{"EE", scope(models.EditionEE, false, models.Headers{}), []string{"ee_only", "reader", "sampler", "version", "writer"}},
		{"read-only token", scope(models.EditionCE, true, models.Headers{}), []string{"reader", "sampler", "version"}},
		{"all", scope(models.EditionCE, false, models.Headers{Toolsets: "all"}), []string{"reader", "sampler", "version", "wiki_reader", "writer"}},
		{"blank headers are absent", scope(models.EditionCE, false, models.Headers{Toolsets: " , ", Tools: ","}), []string{"reader", "sampler", "version", "writer"}},
		{"toolset from a definition", scope(models.EditionCE, false, models.Headers{Toolsets: "wikis"}), []string{"version", "wiki_reader"}},
		{"tools header names an alias of an unlisted tool", scope(models.EditionCE, false, models.Headers{Tools: "older_tool,writer"}), []string{"writer"}},
		{"prefix", scope(models.EditionCE, false, models.Headers{Toolsets: "work_items", Prefix: "gl_"}), []string{"gl_version", "gl_writer"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := listAll(t, svc, tt.sc); !slices.Equal(got, tt.want) {
				t.Errorf("listed %q, want %q", got, tt.want)
			}
		})
	}
}

// Ensure List refuses a toolset GitLab does not have, an empty cursor and a
// cursor minted for another scope, as invalid input.
func TestService_List_invalid(t *testing.T) {
	svc := newSvc(t, 2)
	ctx := context.Background()
	_, err := svc.List(ctx, tools.ListQuery{Scope: scope(models.EditionCE, false, models.Headers{Toolsets: "security"})})
	if !errors.Is(err, models.ErrInvalidInput) || err.Error() != "Unknown toolsets: security. Valid toolsets: meta, core, merge_requests, work_items, repository, ci, duo_agent_platform, wikis, code_security" {
		t.Errorf("unknown toolset: %v, want invalid input listing the valid toolsets", err)
	}
	empty := ""
	if _, err := svc.List(ctx, tools.ListQuery{Scope: scope(models.EditionCE, false, models.Headers{}), Cursor: &empty}); !errors.Is(err, models.ErrInvalidInput) {
		t.Errorf("empty cursor: %v, want invalid input", err)
	}
	first, err := svc.List(ctx, tools.ListQuery{Scope: scope(models.EditionCE, false, models.Headers{})})
	if err != nil || first.NextCursor == "" {
		t.Fatalf("first page: %v, %+v", err, first)
	}
	_, err = svc.List(ctx, tools.ListQuery{Scope: scope(models.EditionCE, true, models.Headers{}), Cursor: &first.NextCursor})
	if !errors.Is(err, models.ErrInvalidInput) || !strings.HasPrefix(err.Error(), "invalid cursor") {
		t.Errorf("cursor of another scope: %v, want invalid cursor", err)
	}
}

// Ensure Call resolves names (prefix, alias, unlisted) and applies the
// edition, read-only and capability rules before the tool runs, and
// decodes the arguments into the tool's typed struct.
func TestService_Call(t *testing.T) {
	svc := newSvc(t, 100)
	ctx := context.Background()
	modern := map[string]json.RawMessage{}
	tests := []struct {
		name    string
		req     tools.CallRequest
		want    string // result text, or
		wantErr any    // an error type to match with errors.As, or
		invalid bool   // an error wrapping models.ErrInvalidInput
	}{
		{name: "by name", req: tools.CallRequest{Scope: scope(models.EditionCE, false, models.Headers{}), Name: "reader", Arguments: json.RawMessage(`{"text":"hi"}`)}, want: "echo:hi"},
		{name: "absent arguments", req: tools.CallRequest{Scope: scope(models.EditionCE, false, models.Headers{}), Name: "reader"}, want: "echo:"},
		{name: "unlisted, by alias", req: tools.CallRequest{Scope: scope(models.EditionCE, false, models.Headers{}), Name: "older_tool"}, want: "echo:"},
		{name: "with prefix", req: tools.CallRequest{Scope: scope(models.EditionCE, false, models.Headers{Prefix: "gl_"}), Name: "gl_reader"}, want: "echo:"},
		{name: "prefix missing", req: tools.CallRequest{Scope: scope(models.EditionCE, false, models.Headers{Prefix: "gl_"}), Name: "reader"}, wantErr: new(*tools.UnknownToolError)},
		{name: "EE tool on CE", req: tools.CallRequest{Scope: scope(models.EditionCE, false, models.Headers{}), Name: "ee_only"}, wantErr: new(*tools.UnknownToolError)},
		{name: "EE tool on EE", req: tools.CallRequest{Scope: scope(models.EditionEE, false, models.Headers{}), Name: "ee_only"}, want: "echo:"},
		{name: "write tool, read-only token", req: tools.CallRequest{Scope: scope(models.EditionCE, true, models.Headers{}), Name: "writer"}, wantErr: new(*tools.ReadOnlyError)},
		{name: "capability not declared", req: tools.CallRequest{Scope: scope(models.EditionCE, false, models.Headers{}), Name: "sampler", Capabilities: modern}, wantErr: new(*tools.MissingCapabilityError)},
		{name: "capabilities not per request", req: tools.CallRequest{Scope: scope(models.EditionCE, false, models.Headers{}), Name: "sampler"}, want: "echo:"},
		{name: "arguments not an object", req: tools.CallRequest{Scope: scope(models.EditionCE, false, models.Headers{}), Name: "reader", Arguments: json.RawMessage(`[1]`)}, invalid: true},
		{name: "bad toolsets header", req: tools.CallRequest{Scope: scope(models.EditionCE, false, models.Headers{Toolsets: "nope"}), Name: "reader"}, invalid: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := svc.Call(ctx, tt.req)
			switch {
			case tt.wantErr != nil:
				if !errors.As(err, tt.wantErr) {
					t.Fatalf("err = %v, want %T", err, tt.wantErr)
				}
			case tt.invalid:
				if !errors.Is(err, models.ErrInvalidInput) {
					t.Fatalf("err = %v, want invalid input", err)
				}
			default:
				if err != nil || res.IsError || res.Text != tt.want {
					t.Fatalf("Call = %+v, %v; want %q", res, err, tt.want)
				}
			}
		})
	}
}

// Ensure a schema violation and a value the typed struct cannot hold are
// validation error results, and what the transport sets on a resolved
// call between Resolve and Run is checked by Run.
func TestService_Call_validation(t *testing.T) {
	svc := newSvc(t, 100)
	ctx := context.Background()
	res, err := svc.Call(ctx, tools.CallRequest{Scope: scope(models.EditionCE, false, models.Headers{}), Name: "reader",
		Arguments: json.RawMessage(`{"text":1}`)})
	if err != nil || !res.IsError || !strings.HasPrefix(res.Text, "Validation error: ") {
		t.Errorf("schema violation: %+v, %v", res, err)
	}
	// The transport's rules see the tool found (alias resolved, arguments
	// {}) before the service's checks; what they fill in is what the
	// state link checks.
	var seen string
	_, err = svc.Call(ctx, tools.CallRequest{Scope: scope(models.EditionCE, false, models.Headers{}), Name: "older_tool",
		Transport: transportFunc(func(e *tools.Entry, req *tools.CallRequest) error {
			seen = e.Tool.Name + " " + string(req.Arguments)
			bad := "not a sealed state"
			req.RequestState = &bad
			return nil
		})})
	if seen != "old_tool {}" {
		t.Errorf("the transport saw %q, want old_tool with arguments {}", seen)
	}
	if !errors.Is(err, models.ErrInvalidInput) || !strings.HasPrefix(err.Error(), "requestState failed verification: ") {
		t.Errorf("a requestState the transport set: %v, want it to fail verification", err)
	}
}

// transportFunc is a tools.Transport of its CheckTool alone.
type transportFunc func(e *tools.Entry, req *tools.CallRequest) error

func (f transportFunc) CheckTool(e *tools.Entry, req *tools.CallRequest) error { return f(e, req) }
func (transportFunc) Plumb(*tools.CallRequest)                                 {}

// Ensure CallJSON gives a tool's text as a JSON string, and no content,
// without an error, for a tool the scope lacks, invalid arguments or a
// tool failure.
func TestService_CallJSON(t *testing.T) {
	svc := newSvc(t, 100)
	ctx := context.Background()
	sc := scope(models.EditionCE, false, models.Headers{})
	out, ok, err := svc.CallJSON(ctx, sc, "reader", json.RawMessage(`{"text":"hi"}`))
	if err != nil || !ok || string(out) != `"echo:hi"` {
		t.Errorf("reader: %s, %v, %v; want \"echo:hi\"", out, ok, err)
	}
	for _, c := range [][2]string{{"ee_only", `{}`}, {"reader", `[1]`}, {"reader", `{"text":1}`}} {
		if out, ok, err := svc.CallJSON(ctx, sc, c[0], json.RawMessage(c[1])); err != nil || ok || out != nil {
			t.Errorf("%s(%s): %s, %v, %v; want no content and no error", c[0], c[1], out, ok, err)
		}
	}
}

// Ensure Watch tells a listener about changes to tools it could list, and
// never about unlisted tools or tools of another edition.
func TestService_Watch(t *testing.T) {
	svc := newSvc(t, 100)
	sees, err := svc.Watch(scope(models.EditionCE, true, models.Headers{}))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"reader": true, "writer": false, "ee_only": false, "old_tool": false, "version": true} {
		if got := sees(name, models.EditionCE); got != want {
			t.Errorf("sees(%s) = %v, want %v", name, got, want)
		}
	}
	if _, err := svc.Watch(scope(models.EditionCE, false, models.Headers{Toolsets: "nope"})); !errors.Is(err, models.ErrInvalidInput) {
		t.Errorf("Watch with a bad header: %v, want invalid input", err)
	}
}
