package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

// visibilityRules is a RuleStore over a fixed world: a private group
// "secret" (id 10) holding a public project "secret/open" (id 1) and a
// private one "secret/closed" (id 2), and a public group "open" (id 20);
// members maps a user id to the group paths it is a member of. Each group
// has a Deny rule on every write tool.
//
// Two public projects in "open" have their own rules (projectRules): open/tools
// (id 3) Allow, open/ask (id 4) Ask; and work items (workItems) live in
// them all.
type visibilityRules struct {
	members map[int64][]string
}

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
	// visWorkItems: 300 in open/tools, 301 in open/ask, 302 in
	// secret/open, 303 in secret/closed; 304 and 305 are confidential in
	// open/ask, 304 by user 2, 305 by user 9 (assigned to nobody).
	visWorkItems = map[int64]*models.Issue{
		300: {ID: 300, IID: 1, ProjectID: 3},
		301: {ID: 301, IID: 1, ProjectID: 4},
		302: {ID: 302, IID: 1, ProjectID: 1},
		303: {ID: 303, IID: 1, ProjectID: 2},
		304: {ID: 304, IID: 2, ProjectID: 4, Confidential: true, AuthorID: 2},
		305: {ID: 305, IID: 3, ProjectID: 4, Confidential: true, AuthorID: 9},
	}
)

// FindIssueByID leaves out the people, as the store does.
func (visibilityRules) FindIssueByID(_ context.Context, id int64) (*models.Issue, error) {
	i, ok := visWorkItems[id]
	if !ok {
		return nil, models.ErrNotFound
	}
	c := *i
	c.AuthorID = 0
	return &c, nil
}

func (visibilityRules) LoadIssue(_ context.Context, projectID, iid int64) (*models.Issue, error) {
	for _, i := range visWorkItems {
		if i.ProjectID == projectID && i.IID == iid {
			c := *i
			return &c, nil
		}
	}
	return nil, models.ErrNotFound
}

func (v visibilityRules) FindProjectWithRoleByID(ctx context.Context, id, userID int64) (*models.Project, models.AccessLevel, error) {
	for _, p := range visProjects {
		if p.ID == id {
			return v.FindProjectWithRoleByPath(ctx, p.PathWithNamespace, userID)
		}
	}
	return nil, models.NoAccess, models.ErrNotFound
}

func (v visibilityRules) FindProjectWithRoleByPath(_ context.Context, path string, userID int64) (*models.Project, models.AccessLevel, error) {
	p, ok := visProjects[path]
	if !ok {
		return nil, models.NoAccess, models.ErrNotFound
	}
	for _, g := range v.members[userID] {
		if g == "secret" {
			return p, models.Developer, nil
		}
	}
	return p, models.NoAccess, nil
}

func (v visibilityRules) FindGroupByID(_ context.Context, id int64) (*models.Group, error) {
	for _, g := range []*models.Group{visSecret, visOpen} {
		if g.ID == id {
			return g, nil
		}
	}
	return nil, models.ErrNotFound
}

func (v visibilityRules) FindGroupByFullPath(_ context.Context, path string) (*models.Group, error) {
	for _, g := range []*models.Group{visSecret, visOpen} {
		if g.FullPath == path {
			return g, nil
		}
	}
	return nil, models.ErrNotFound
}

func (v visibilityRules) HasMembershipInGroup(_ context.Context, path string, userID int64) (bool, error) {
	for _, g := range v.members[userID] {
		if g == path {
			return true, nil
		}
	}
	return false, nil
}

func (v visibilityRules) ToolRulesFor(_ context.Context, projectID, groupID int64, _ string) ([]models.ToolRule, error) {
	var out []models.ToolRule
	if r, ok := visProjectRules[projectID]; ok {
		for path, p := range visProjects {
			if p.ID == projectID {
				out = append(out, models.ToolRule{ProjectID: &p.ID, Rule: r, Path: path})
			}
		}
	}
	if g, err := v.FindGroupByID(context.Background(), groupID); err == nil {
		out = append(out, models.ToolRule{NamespaceID: &g.ID, Rule: models.RuleDeny, Path: g.FullPath})
	}
	return out, nil
}

// VulnerabilityProjectID: vulnerability 100 is in secret/open, 200 in
// secret/closed.
func (visibilityRules) VulnerabilityProjectID(_ context.Context, id int64) (int64, error) {
	switch id {
	case 100:
		return 1, nil
	case 200:
		return 2, nil
	}
	return 0, models.ErrNotFound
}

func (visibilityRules) UseApproval(context.Context, *models.UsedApproval) error { return nil }

// decisionCase is one call of a decideRule table: who calls with which
// arguments, and the rule, the group or project it comes from (where) and
// the target the decision names.
type decisionCase struct {
	name   string
	user   *models.User
	args   string
	rule   models.ToolRuleKind
	where  string
	target string
}

// checkDecisions runs each case through s.decideRule for e in edition. A
// decision that names no rule source must not name the hidden group.
func checkDecisions(t *testing.T, s *Service, e *Entry, edition models.Edition, cases []decisionCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			sc := models.Scope{Edition: edition, Identity: &models.Identity{User: tt.user}}
			d, err := s.decideRule(context.Background(), sc, e, parseArgs(json.RawMessage(tt.args)), nil)
			if err != nil {
				t.Fatal(err)
			}
			if d.rule != tt.rule || d.where != tt.where || d.target != tt.target {
				t.Errorf("rule %q on %q for %q, want %q on %q for %q", d.rule, d.where, d.target, tt.rule, tt.where, tt.target)
			}
			if tt.where == "" && strings.Contains(d.describe(), "secret") {
				t.Errorf("the decision names the hidden group: %s", d.describe())
			}
		})
	}
}

// TestDecideRule_visibility: the rules of a project or group the call names
// apply only when the caller can see it (else the instance default, as for
// one that does not exist); the rules of the groups above a visible target
// apply whether or not the caller can see those groups.
func TestDecideRule_visibility(t *testing.T) {
	member := &models.User{ID: 1, State: "active"}
	outsider := &models.User{ID: 2, State: "active"}
	admin := &models.User{ID: 3, State: "active", Admin: true}
	s := &Service{opts: Options{Rules: visibilityRules{members: map[int64][]string{1: {"secret"}}}, DefaultWriteRule: models.RuleAllow}}
	e := &Entry{Tool: models.Tool{Name: "create_issue"}}
	checkDecisions(t, s, e, models.EditionCE, []decisionCase{
		{"a member, the private group by path", member, `{"group_id":"secret"}`, models.RuleDeny, "secret", "secret"},
		{"a member, the private group by id", member, `{"group_id":10}`, models.RuleDeny, "secret", "secret"},
		{"an administrator, the private group", admin, `{"group_id":"secret"}`, models.RuleDeny, "secret", "secret"},
		{"an outsider, the private group by path: as if missing", outsider, `{"group_id":"secret"}`, models.RuleAllow, "", ""},
		{"an outsider, the private group by id: as if missing", outsider, `{"group_id":10}`, models.RuleAllow, "", ""},
		{"an outsider, the private group by URL: as if missing", outsider, `{"url":"https://gitlab.example.com/groups/secret/-/work_items/1"}`, models.RuleAllow, "", ""},
		{"an outsider, a missing group", outsider, `{"group_id":"nope"}`, models.RuleAllow, "", ""},
		{"an outsider, a public group", outsider, `{"group_id":"open"}`, models.RuleDeny, "open", "open"},
		{"an outsider, a private project in the private group: as if missing", outsider, `{"id":"secret/closed"}`, models.RuleAllow, "", ""},
		// The project is public, so the outsider sees it though not its
		// group: the group's Deny still governs writes there.
		{"an outsider, a public project in the private group", outsider, `{"id":"secret/open"}`, models.RuleDeny, "secret", "secret/open"},
		{"a member, a private project in the private group", member, `{"project_id":2}`, models.RuleDeny, "secret", "secret/closed"},
	})
}

// TestDecideRule_declaredTarget: a tool that declares where it writes
// (fork_repository: into namespace_path or namespace_id) is governed by
// the rules of that group, not of the project it reads from; with none of
// its target arguments present it names no target (the instance default).
func TestDecideRule_declaredTarget(t *testing.T) {
	member := &models.User{ID: 1, State: "active"}
	outsider := &models.User{ID: 2, State: "active"}
	s := &Service{opts: Options{Rules: visibilityRules{members: map[int64][]string{1: {"secret"}}}, DefaultWriteRule: models.RuleAllow}}
	e := &Entry{Tool: models.Tool{Name: "fork_repository"}, Def: &Definition{Name: "fork_repository",
		WriteTarget: []TargetArg{{Name: "namespace_path", Kind: TargetGroup}, {Name: "namespace_id", Kind: TargetGroup}}}}
	checkDecisions(t, s, e, models.EditionCE, []decisionCase{
		{"the target group by path, not the source's group", member, `{"project_id":"secret/open","namespace_path":"open"}`, models.RuleDeny, "open", "open"},
		{"the target group by id", member, `{"project_id":"secret/open","namespace_id":20}`, models.RuleDeny, "open", "open"},
		{"into the source's own group", member, `{"project_id":1,"namespace_path":"secret"}`, models.RuleDeny, "secret", "secret"},
		{"an outsider, into a hidden group: as if missing", outsider, `{"project_id":"secret/open","namespace_path":"secret"}`, models.RuleAllow, "", ""},
		{"no target argument: none, whatever project_id names", member, `{"project_id":"secret/open"}`, models.RuleAllow, "", ""},
	})
}

// TestDecideRule_vulnerabilityTarget: save_vulnerability names only a
// vulnerability, so its rules are those of the vulnerability's project
// (and its groups), found through the store; a vulnerability the caller
// cannot see (not Developer in its project, even a public one) or a
// missing one names no target, so the instance default applies and the
// tool answers not found either way.
func TestDecideRule_vulnerabilityTarget(t *testing.T) {
	member := &models.User{ID: 1, State: "active"}
	outsider := &models.User{ID: 2, State: "active"}
	s := &Service{opts: Options{Rules: visibilityRules{members: map[int64][]string{1: {"secret"}}}, DefaultWriteRule: models.RuleAllow}}
	e := &Entry{Tool: models.Tool{Name: "save_vulnerability"}, Def: &Definition{Name: "save_vulnerability",
		WriteTarget: []TargetArg{{Name: "vulnerability_id", Kind: TargetVulnerability}}}}
	checkDecisions(t, s, e, models.EditionEE, []decisionCase{
		{"a member, by id", member, `{"vulnerability_id":"100","action":"confirm"}`, models.RuleDeny, "secret", "secret/open"},
		{"a member, by number", member, `{"vulnerability_id":100}`, models.RuleDeny, "secret", "secret/open"},
		{"a member, by global id", member, `{"vulnerability_id":"gid://gitlab/Vulnerability/200"}`, models.RuleDeny, "secret", "secret/closed"},
		{"an outsider, a public project's vulnerability: as if missing", outsider, `{"vulnerability_id":"100"}`, models.RuleAllow, "", ""},
		{"an outsider, a private project's vulnerability: as if missing", outsider, `{"vulnerability_id":"200"}`, models.RuleAllow, "", ""},
		{"a missing vulnerability", member, `{"vulnerability_id":"999"}`, models.RuleAllow, "", ""},
		{"not an id", member, `{"vulnerability_id":"abc"}`, models.RuleAllow, "", ""},
		{"project_id is not read", member, `{"vulnerability_id":"999","project_id":1}`, models.RuleAllow, "", ""},
	})
}

// TestDecideRule_workItemTargets: link_work_items writes into the source
// work item's project and into each linked work item's, so the strictest
// rule of those projects governs it (Deny, then Ask, then Allow), and an
// Ask names every one. A linked work item the caller cannot read (its
// project hidden, or confidential and not the caller's) counts for
// nothing, as a missing one: the tool answers not found.
func TestDecideRule_workItemTargets(t *testing.T) {
	member := &models.User{ID: 1, State: "active"}
	outsider := &models.User{ID: 2, State: "active"}
	s := &Service{opts: Options{Rules: visibilityRules{members: map[int64][]string{1: {"secret"}}}, DefaultWriteRule: models.RuleAllow}}
	e := &Entry{Tool: models.Tool{Name: "link_work_items"}, Def: &Definition{Name: "link_work_items",
		WriteTarget: []TargetArg{{Name: "project_id", Kind: TargetProject}, {Name: "group_id", Kind: TargetGroup},
			{Name: "url", Kind: TargetURL}, {Name: "work_items_ids", Kind: TargetWorkItems}}}}
	link := func(source string, ids ...string) string {
		return `{"project_id":"` + source + `","work_item_iid":1,"work_items_ids":[` + strings.Join(ids, ",") + `]}`
	}
	checkDecisions(t, s, e, models.EditionCE, []decisionCase{
		{"allow on both", outsider, link("open/tools", `"gid://gitlab/WorkItem/300"`), models.RuleAllow, "open/tools", "open/tools"},
		{"ask on the linked item's project", outsider, link("open/tools", `"gid://gitlab/WorkItem/301"`), models.RuleAsk, "open/ask", "open/tools and open/ask"},
		{"deny on a linked item's project beats ask on another's", member,
			link("open/tools", `"gid://gitlab/WorkItem/301"`, `"gid://gitlab/WorkItem/302"`), models.RuleDeny, "secret", "open/tools, open/ask and secret/open"},
		{"deny on the source's group beats the linked items'", member, link("secret/open", `"gid://gitlab/WorkItem/301"`), models.RuleDeny, "secret", "secret/open and open/ask"},
		{"an outsider, a public project's item in the private group", outsider, link("open/tools", `"gid://gitlab/WorkItem/302"`), models.RuleDeny, "secret", "open/tools and secret/open"},
		{"a member, a private project's item", member, link("open/tools", `"gid://gitlab/WorkItem/303"`), models.RuleDeny, "secret", "open/tools and secret/closed"},
		{"an outsider, a private project's item: as if missing", outsider, link("open/tools", `"gid://gitlab/WorkItem/303"`), models.RuleAllow, "open/tools", "open/tools"},
		{"an outsider, only hidden and missing items", outsider, link("open/tools", `"gid://gitlab/WorkItem/303"`, `"gid://gitlab/WorkItem/999"`), models.RuleAllow, "open/tools", "open/tools"},
		{"a confidential item by the caller", outsider, link("open/tools", `"gid://gitlab/WorkItem/304"`), models.RuleAsk, "open/ask", "open/tools and open/ask"},
		{"a confidential item of someone else's: as if missing", outsider, link("open/tools", `"gid://gitlab/WorkItem/305"`), models.RuleAllow, "open/tools", "open/tools"},
		{"a member reads the confidential item", member, link("open/tools", `"gid://gitlab/WorkItem/305"`), models.RuleAsk, "open/ask", "open/tools and open/ask"},
		{"a hidden source: the linked items' rules", outsider, link("secret/closed", `"gid://gitlab/WorkItem/301"`), models.RuleAsk, "open/ask", "open/ask"},
		{"each project once, by iid or global id", outsider, link("open/ask", `"gid://gitlab/WorkItem/301"`, `"301"`, `301`, `"gid://gitlab/WorkItem/304"`), models.RuleAsk, "open/ask", "open/ask"},
		// A plain number is an iid in the source's project, never the work
		// item whose id it is (301 is in open/ask).
		{"plain iids are the source's project's", outsider, link("open/tools", `"301"`, `301`, `"7"`), models.RuleAllow, "open/tools", "open/tools"},
		{"plain iids, source hidden: no target", outsider, link("secret/closed", `"301"`, `301`), models.RuleAllow, "", ""},
		{"not work item ids", member, link("open/tools", `"gid://gitlab/Issue/302"`, `"abc"`, `"-302"`, `"302x"`, `0`), models.RuleAllow, "open/tools", "open/tools"},
		{"the source by URL", outsider, `{"url":"https://gitlab.example.com/open/tools/-/work_items/1","work_items_ids":["gid://gitlab/WorkItem/301"]}`,
			models.RuleAsk, "open/ask", "open/tools and open/ask"},
		{"no source, only linked items", outsider, `{"work_items_ids":["gid://gitlab/WorkItem/301"]}`, models.RuleAsk, "open/ask", "open/ask"},
	})
}

// TestNewService_writeTarget: a declared write target must be an argument
// of the tool and a project or a group.
func TestNewService_writeTarget(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"namespace_path":{"type":"string"}}}`)
	for _, wt := range [][]TargetArg{{{Name: "namespace_id", Kind: TargetGroup}}, {{Name: "namespace_path", Kind: "user"}}} {
		defs := []Definition{{Name: "w", InputSchema: schema, WriteTarget: wt}}
		if _, err := NewService(nil, defs, Options{}); err == nil || !strings.Contains(err.Error(), "write target") {
			t.Errorf("WriteTarget %v: err = %v, want a write target error", wt, err)
		}
	}
	for _, k := range []TargetKind{TargetProject, TargetGroup, TargetVulnerability, TargetURL, TargetWorkItems} {
		if _, err := NewService(nil, []Definition{{Name: "w", InputSchema: schema,
			WriteTarget: []TargetArg{{Name: "namespace_path", Kind: k}}}}, Options{}); err != nil {
			t.Errorf("a valid WriteTarget of kind %s: %v", k, err)
		}
	}
}
