package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
)

// fixedResolver resolves every Target to r (or fails with err), counting
// its calls.
type fixedResolver struct {
	r     *ResolvedTarget
	err   error
	calls int
}

func (f *fixedResolver) ResolveTarget(context.Context, *models.User, *Target, *Call) (*ResolvedTarget, error) {
	f.calls++
	return f.r, f.err
}

// TestDecideRule_target: a tool with a Target is governed where the target
// resolved, whatever its arguments say; a target that resolved to no place
// the caller can see reads as none (the instance default).
func TestDecideRule_target(t *testing.T) {
	s := &Service{opts: Options{Rules: visibilityRules{}, DefaultWriteRule: models.RuleAllow}}
	e := &Entry{Tool: models.Tool{Name: "link_work_items"}, Def: &Definition{Name: "link_work_items",
		Target: &Target{Kind: TargetWorkItem, Ability: access.LinkWorkItem, Resolver: &fixedResolver{}}}}
	sc := models.Scope{Edition: models.EditionCE, Identity: &models.Identity{User: &models.User{ID: 2, State: models.UserActive}}}
	// The arguments name open/tools (Allow); the resolution says
	// secret/open, whose group denies every write tool.
	args := json.RawMessage(`{"project_id":"open/tools"}`)
	d, err := s.decideRule(context.Background(), sc, e, &Call{Arguments: args}, &ResolvedTarget{Project: visProjects["secret/open"]})
	if err != nil {
		t.Fatal(err)
	}
	if d.rule != models.RuleDeny || d.where != "secret" || d.target != "secret/open" {
		t.Errorf("rule %q on %q for %q, want deny on secret for secret/open", d.rule, d.where, d.target)
	}
	for _, r := range []*ResolvedTarget{nil, {Err: errors.New("404 Work Item Not Found")}} {
		d, err := s.decideRule(context.Background(), sc, e, &Call{Arguments: args}, r)
		if err != nil {
			t.Fatal(err)
		}
		if d.rule != models.RuleAllow || d.where != "" || d.target != "" {
			t.Errorf("resolved %+v: rule %q on %q for %q, want the instance default", r, d.rule, d.where, d.target)
		}
	}
}

// TestEntry_resolveTarget: the target is resolved once per call (the
// service's resolution is what the tool gets), a resolver's server failure
// is the call's, and a call without a user is not resolved.
func TestEntry_resolveTarget(t *testing.T) {
	want := &ResolvedTarget{Project: visProjects["secret/open"], Object: "the object"}
	res := &fixedResolver{r: want}
	var got *ResolvedTarget
	e := &Entry{Tool: models.Tool{Name: "x"}, Def: &Definition{Name: "x",
		Target: &Target{Kind: TargetWorkItem, Ability: access.ReadWorkItem, Resolver: res},
		Run:    func(_ context.Context, c *Call) (*Result, error) { got = c.Target; return &Result{Text: "ok"}, nil }}}
	call := &Call{Identity: &models.Identity{User: &models.User{ID: 1}}, Arguments: json.RawMessage(`{}`)}
	if err := e.resolveTarget(context.Background(), call); err != nil {
		t.Fatal(err)
	}
	if _, err := e.execute(context.Background(), call); err != nil {
		t.Fatal(err)
	}
	if got != want || res.calls != 1 {
		t.Errorf("tool got %+v after %d resolutions, want %+v after 1", got, res.calls, want)
	}

	res.err = errors.New("database down")
	if _, err := e.execute(context.Background(), &Call{Identity: call.Identity}); err == nil || !strings.Contains(err.Error(), "database down") {
		t.Errorf("execute with a failing resolver: err = %v, want the server failure", err)
	}
	got = nil
	if _, err := e.execute(context.Background(), &Call{}); err != nil || got != nil {
		t.Errorf("without a user: err = %v, target %+v, want no resolution", err, got)
	}
}

// TestNewService_target: a Target the service cannot resolve, or one beside
// a single-target WriteTarget, is refused at start.
func TestNewService_target(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"project_id":{"type":"string"},"ids":{"type":"array"}}}`)
	ok := &Target{Kind: TargetWorkItem, Ability: access.ReadWorkItem, Resolver: &fixedResolver{}}
	places := fixedPlaces{new(bool), new([]TargetArg)}
	for _, d := range []Definition{
		{Name: "w", InputSchema: schema, Target: &Target{Kind: TargetWorkItem, Ability: access.ReadWorkItem}},
		{Name: "w", InputSchema: schema, Target: &Target{Kind: TargetWorkItem, Resolver: &fixedResolver{}}},
		{Name: "w", InputSchema: schema, Target: &Target{Ability: access.ReadWorkItem, Resolver: &fixedResolver{}}},
		{Name: "w", InputSchema: schema, Target: ok, WriteTarget: []TargetArg{{Name: "project_id", Kind: TargetProject}}, Places: places},
	} {
		if _, err := NewService(nil, []Definition{d}, Options{}); err == nil || !strings.Contains(err.Error(), `tool "w"`) {
			t.Errorf("target %+v, write target %v: err = %v, want a refusal", d.Target, d.WriteTarget, err)
		}
	}
	if _, err := NewService(nil, []Definition{{Name: "w", InputSchema: schema, Target: ok,
		WriteTarget: []TargetArg{{Name: "ids", Kind: TargetWorkItems}}, Places: places}}, Options{}); err != nil {
		t.Errorf("a Target with a list WriteTarget: %v", err)
	}
}
