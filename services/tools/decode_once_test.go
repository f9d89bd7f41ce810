package tools

import (
	"context"
	"encoding/json"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
)

// countedArgs counts how often a call's arguments are decoded into it.
type countedArgs struct {
	ProjectID string `json:"project_id"`
	N         int    `json:"n"`
}

var countedDecodes int

func (a *countedArgs) UnmarshalJSON(b []byte) error {
	countedDecodes++
	type plain countedArgs
	return json.Unmarshal(b, (*plain)(a))
}

// argsResolver resolves a Target from the arguments as the tool's run
// reads them (Args), to no place (the default rule governs).
type argsResolver struct{ seen *countedArgs }

func (r argsResolver) ResolveTarget(_ context.Context, _ *models.User, _ *Target, call *Call) (*ResolvedTarget, error) {
	a, err := Args[countedArgs](call)
	if err != nil {
		return nil, err
	}
	*r.seen = a
	return &ResolvedTarget{}, nil
}

// parseWatch is a Transport that reads a mirrored argument, as the
// Mcp-Param header check does, and notes the parse it read.
type parseWatch struct {
	parsed *parsedArgs
	value  any
}

func (w *parseWatch) CheckTool(_ *Entry, req *CallRequest) error {
	w.value, _ = req.Argument([]string{"project_id"})
	w.parsed = req.parsed
	return nil
}

func (w *parseWatch) Plumb(*CallRequest) {}

// rowStore keeps what Sync writes.
type rowStore struct{ rows []models.Tool }

func (s *rowStore) UpsertTool(_ context.Context, t *models.Tool) error {
	s.rows = append(s.rows, *t)
	return nil
}
func (s *rowStore) ListTools(context.Context) ([]models.Tool, error) { return s.rows, nil }

// Ensure a tools/call decodes its arguments once: one parse serves the
// transport's header check, the text and schema checks and the rules, and
// the tool's own struct is decoded once for its Target's resolver and its
// run together.
func TestCall_decodesArgumentsOnce(t *testing.T) {
	var resolved countedArgs
	var ran countedArgs
	var runParsed *parsedArgs
	schema := json.RawMessage(`{"type":"object","properties":{"project_id":{"type":"string"},"n":{"type":"integer"}},"additionalProperties":false}`)
	run := Typed(func(_ context.Context, call *Call, a countedArgs) (*Result, error) {
		ran, runParsed = a, call.parsed
		return &Result{Text: "ok"}, nil
	})
	defs := []Definition{
		{Name: "targeted_write", InputSchema: schema, Run: run, Toolset: models.ToolsetCore, Edition: models.EditionCE,
			Target: &Target{Kind: TargetProject, Ability: access.ReadProject, Resolver: argsResolver{&resolved}}},
		{Name: "plain_read", InputSchema: schema, Run: run, Toolset: models.ToolsetCore, Edition: models.EditionCE, Annotations: models.ToolAnnotations{ReadOnlyHint: true}},
	}
	s, err := NewService(&rowStore{}, defs, Options{Rules: visibilityRules{}, DefaultWriteRule: models.RuleAllow})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"targeted_write", "plain_read"} {
		countedDecodes, ran, runParsed = 0, countedArgs{}, nil
		w := &parseWatch{}
		res, err := s.Call(ctx, CallRequest{Name: name, Arguments: json.RawMessage(`{"project_id":"open/tools","n":3}`), Transport: w,
			Scope: models.Scope{Edition: models.EditionCE, Identity: &models.Identity{User: &models.User{ID: 2, State: models.UserActive}}}})
		if err != nil || res.IsError || res.Text != "ok" {
			t.Fatalf("%s: Call = %+v, %v", name, res, err)
		}
		if countedDecodes != 1 {
			t.Errorf("%s: the arguments were decoded into the tool's struct %d times, want once", name, countedDecodes)
		}
		if ran.ProjectID != "open/tools" || ran.N != 3 {
			t.Errorf("%s: the run got %+v", name, ran)
		}
		if w.value != "open/tools" || w.parsed == nil || runParsed != w.parsed {
			t.Errorf("%s: the header check read %v from parse %p, the run's call holds parse %p; want one parse", name, w.value, w.parsed, runParsed)
		}
	}
	if resolved.ProjectID != "open/tools" {
		t.Errorf("the resolver read %+v", resolved)
	}
}
