package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

// visibilityRules is a RuleStore over a fixed world: a private group
// "secret" (id 10) holding the projects "secret/open" (id 1) and
// "secret/closed" (id 2), and a public group "open" (id 20) holding
// open/tools (id 3) and open/ask (id 4). Each group has a Deny rule on
// every write tool; open/tools has its own Allow, open/ask its own Ask.
// Which of them a call names, as the caller may see them, is the tool
// package's (Places: the GitLab tools' are tested in
// services/tools/gitlab, rule_places_test.go).
type visibilityRules struct{}

var (
	visSecret   = &models.Group{ID: 10, FullPath: "secret", Visibility: models.VisibilityPrivate}
	visOpen     = &models.Group{ID: 20, FullPath: "open", Visibility: models.VisibilityPublic}
	visProjects = map[string]*models.Project{
		"secret/open":   {ID: 1, NamespaceID: 10, PathWithNamespace: "secret/open", Visibility: models.VisibilityPublic},
		"secret/closed": {ID: 2, NamespaceID: 10, PathWithNamespace: "secret/closed", Visibility: models.VisibilityPrivate},
		"open/tools":    {ID: 3, NamespaceID: 20, PathWithNamespace: "open/tools", Visibility: models.VisibilityPublic},
		"open/ask":      {ID: 4, NamespaceID: 20, PathWithNamespace: "open/ask", Visibility: models.VisibilityPublic},
	}
	visProjectRules = map[int64]models.ToolRuleKind{3: models.RuleAllow, 4: models.RuleAsk}
)

func (visibilityRules) ToolRulesFor(_ context.Context, projectID, groupID int64, _ string) ([]models.ToolRule, error) {
	var out []models.ToolRule
	if r, ok := visProjectRules[projectID]; ok {
		for path, p := range visProjects {
			if p.ID == projectID {
				out = append(out, models.ToolRule{ProjectID: &p.ID, Rule: r, Path: path})
			}
		}
	}
	for _, g := range []*models.Group{visSecret, visOpen} {
		if g.ID == groupID {
			out = append(out, models.ToolRule{NamespaceID: &g.ID, Rule: models.RuleDeny, Path: g.FullPath})
		}
	}
	return out, nil
}

func (visibilityRules) UseApproval(context.Context, *models.UsedApproval) error { return nil }

// fixedPlaces is a Places naming the places of the world by path, as the
// call's "places" argument lists them (a list of paths; "group:" before a
// group's), with the arguments it was asked about.
type fixedPlaces struct {
	primary  *bool
	declared *[]TargetArg
}

func (f fixedPlaces) WritePlaces(_ context.Context, _ *models.User, call *Call, declared []TargetArg, primary bool) ([]Place, error) {
	*f.primary, *f.declared = primary, declared
	v, _ := call.Argument([]string{"places"})
	list, _ := v.([]any)
	var out []Place
	for _, el := range list {
		path, _ := el.(string)
		if g, ok := strings.CutPrefix(path, "group:"); ok {
			for _, grp := range []*models.Group{visSecret, visOpen} {
				if grp.FullPath == g {
					out = append(out, Place{GroupID: grp.ID, Path: grp.FullPath})
				}
			}
			continue
		}
		if p := visProjects[path]; p != nil {
			out = append(out, Place{ProjectID: p.ID, GroupID: p.NamespaceID, Path: p.PathWithNamespace})
		}
	}
	return out, nil
}

// TestDecideRule_places: the rule of a call is the strictest of its
// places' nearest rules (Deny, then Ask, then Allow; among equals the
// first place's), the instance default when it names none, and the
// decision names every place; the Places get the call, the declared
// write targets, and whether to read the primary place (not when a Target
// was resolved: that is the first place).
func TestDecideRule_places(t *testing.T) {
	var primary bool
	var declared []TargetArg
	places := fixedPlaces{&primary, &declared}
	wt := []TargetArg{{Name: "places", Kind: TargetWorkItems}}
	s := &Service{opts: Options{Rules: visibilityRules{}, DefaultWriteRule: models.RuleAllow}}
	e := &Entry{Tool: models.Tool{Name: "link_work_items"}, Def: &Definition{Name: "link_work_items", WriteTarget: wt, Places: places}}
	sc := models.Scope{Edition: models.EditionCE, Identity: &models.Identity{User: &models.User{ID: 2, State: models.UserActive}}}
	for _, tt := range []struct {
		places              string
		rule                models.ToolRuleKind
		where, target, desc string
	}{
		{`[]`, models.RuleAllow, "", "", "the instance default (GLMCP_DEFAULT_WRITE_RULE=allow)"},
		{`["open/tools"]`, models.RuleAllow, "open/tools", "open/tools", `the "allow" rule for every write tool on open/tools`},
		{`["open/tools","open/ask"]`, models.RuleAsk, "open/ask", "open/tools and open/ask", `the "ask" rule for every write tool on open/ask`},
		{`["open/tools","open/ask","secret/open"]`, models.RuleDeny, "secret", "open/tools, open/ask and secret/open", `the "deny" rule for every write tool on secret`},
		{`["group:open","open/ask"]`, models.RuleDeny, "open", "open and open/ask", `the "deny" rule for every write tool on open`},
		{`["secret/closed","group:open"]`, models.RuleDeny, "secret", "secret/closed and open", `the "deny" rule for every write tool on secret`},
	} {
		call := &Call{Arguments: json.RawMessage(`{"places":` + tt.places + `}`)}
		d, err := s.decideRule(context.Background(), sc, e, call, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d.rule != tt.rule || d.where != tt.where || d.target != tt.target || d.describe() != tt.desc {
			t.Errorf("places %s: rule %q on %q for %q (%s), want %q on %q for %q (%s)", tt.places, d.rule, d.where, d.target, d.describe(),
				tt.rule, tt.where, tt.target, tt.desc)
		}
		if !primary || len(declared) != 1 || declared[0] != wt[0] {
			t.Errorf("places %s: asked with primary %v, declared %v; want the primary and %v", tt.places, primary, declared, wt)
		}
	}

	// With a Target, its resolution is the first place and the Places
	// add only the list kinds' (each place once).
	e.Def.Target = &Target{Kind: TargetWorkItem, Ability: "read_work_item", Resolver: &fixedResolver{}}
	call := &Call{Arguments: json.RawMessage(`{"places":["open/ask","open/tools"]}`)}
	d, err := s.decideRule(context.Background(), sc, e, call, &ResolvedTarget{Project: visProjects["open/tools"]})
	if err != nil {
		t.Fatal(err)
	}
	if primary || d.rule != models.RuleAsk || d.target != "open/tools and open/ask" {
		t.Errorf("with a Target: primary %v, rule %q for %q; want no primary, ask for open/tools and open/ask", primary, d.rule, d.target)
	}

	// A tool without Places names no place: the instance default.
	e.Def.Target, e.Def.Places = nil, nil
	if d, err := s.decideRule(context.Background(), sc, e, call, nil); err != nil || d.rule != models.RuleAllow || d.target != "" {
		t.Errorf("without Places: rule %q for %q, %v; want the instance default", d.rule, d.target, err)
	}
}

// TestNewService_writeTarget: a declared write target must be an argument
// of the tool and a kind the service knows, and the tool must have Places
// to read it.
func TestNewService_writeTarget(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"namespace_path":{"type":"string"}}}`)
	places := fixedPlaces{new(bool), new([]TargetArg)}
	for _, d := range []Definition{
		{Name: "w", InputSchema: schema, WriteTarget: []TargetArg{{Name: "namespace_id", Kind: TargetGroup}}, Places: places},
		{Name: "w", InputSchema: schema, WriteTarget: []TargetArg{{Name: "namespace_path", Kind: "user"}}, Places: places},
		{Name: "w", InputSchema: schema, WriteTarget: []TargetArg{{Name: "namespace_path", Kind: TargetGroup}}},
	} {
		if _, err := NewService(nil, []Definition{d}, Options{}); err == nil || !strings.Contains(err.Error(), "write target") {
			t.Errorf("WriteTarget %v, Places %v: err = %v, want a write target error", d.WriteTarget, d.Places, err)
		}
	}
	for _, k := range []TargetKind{TargetProject, TargetGroup, TargetVulnerability, TargetURL, TargetWorkItems} {
		if _, err := NewService(nil, []Definition{{Name: "w", InputSchema: schema,
			WriteTarget: []TargetArg{{Name: "namespace_path", Kind: k}}, Places: places}}, Options{}); err != nil {
			t.Errorf("a valid WriteTarget of kind %s: %v", k, err)
		}
	}
}
