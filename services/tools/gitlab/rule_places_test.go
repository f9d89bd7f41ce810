package gitlab

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// The places the tool rules read for a call of a GitLab write tool
// (rulePlaces), over a fixed world; which rule then governs is the tool
// service's (services/tools, TestDecideRule_places).

// visibilityRules is every part of rulePlacesStore over a fixed world: a private
// group "secret" (id 10) holding a public project "secret/open" (id 1)
// and a private one "secret/closed" (id 2), and a public group "open"
// (id 20) holding the public projects open/tools (id 3) and open/ask
// (id 4); members maps a user id to the group paths it is a member of;
// work items (visWorkItems) live in them all.
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

// placesCase is one call of a WritePlaces table: who calls with which
// arguments, and the places found, joined as the rules name them ("a, b
// and c"; "" for none).
type placesCase struct {
	name   string
	user   *models.User
	args   string
	places string
}

// checkPlaces runs each case through rp.WritePlaces for a tool declaring
// declared (nil: GitLab's usual argument names). A case finding no place
// must not name the hidden group either.
func checkPlaces(t *testing.T, rp rulePlaces, declared []tools.TargetArg, cases []placesCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			ps, err := rp.WritePlaces(context.Background(), tt.user, &tools.Call{Arguments: json.RawMessage(tt.args)}, declared, true)
			if err != nil {
				t.Fatal(err)
			}
			paths := make([]string, len(ps))
			for i, p := range ps {
				paths[i] = p.Path
			}
			got := strings.Join(paths, ", ")
			if i := strings.LastIndex(got, ", "); i >= 0 {
				got = got[:i] + " and " + got[i+2:]
			}
			if got != tt.places {
				t.Errorf("places %q, want %q", got, tt.places)
			}
		})
	}
}

// TestRulePlaces_visibility: a project or group the call names is a place
// of the rules only when the caller can see it (else none, as for one that
// does not exist, so the instance default applies); a public project in a
// private group is one (the group's rules then govern it).
func TestRulePlaces_visibility(t *testing.T) {
	member := &models.User{ID: 1, State: "active"}
	outsider := &models.User{ID: 2, State: "active"}
	admin := &models.User{ID: 3, State: "active", Admin: true}
	rp := rulePlaces{st: visibilityPlaces(visibilityRules{members: map[int64][]string{1: {"secret"}}})}
	checkPlaces(t, rp, nil, []placesCase{
		{"a member, the private group by path", member, `{"group_id":"secret"}`, "secret"},
		{"a member, the private group by id", member, `{"group_id":10}`, "secret"},
		{"an administrator, the private group", admin, `{"group_id":"secret"}`, "secret"},
		{"an outsider, the private group by path: as if missing", outsider, `{"group_id":"secret"}`, ""},
		{"an outsider, the private group by id: as if missing", outsider, `{"group_id":10}`, ""},
		{"an outsider, the private group by URL: as if missing", outsider, `{"url":"https://gitlab.example.com/groups/secret/-/work_items/1"}`, ""},
		{"an outsider, a missing group", outsider, `{"group_id":"nope"}`, ""},
		{"an outsider, a public group", outsider, `{"group_id":"open"}`, "open"},
		{"an outsider, a private project in the private group: as if missing", outsider, `{"id":"secret/closed"}`, ""},
		// The project is public, so the outsider sees it though not its
		// group: the group's Deny still governs writes there.
		{"an outsider, a public project in the private group", outsider, `{"id":"secret/open"}`, "secret/open"},
		{"a member, a private project in the private group", member, `{"project_id":2}`, "secret/closed"},
	})
}

// TestRulePlaces_declaredTarget: a tool that declares where it writes
// (fork_repository: into namespace_path or namespace_id) is governed by
// the rules of that group, not of the project it reads from; with none of
// its target arguments present it names no target (the instance default).
func TestRulePlaces_declaredTarget(t *testing.T) {
	member := &models.User{ID: 1, State: "active"}
	outsider := &models.User{ID: 2, State: "active"}
	rp := rulePlaces{st: visibilityPlaces(visibilityRules{members: map[int64][]string{1: {"secret"}}})}
	declared := []tools.TargetArg{{Name: "namespace_path", Kind: tools.TargetGroup}, {Name: "namespace_id", Kind: tools.TargetGroup}}
	checkPlaces(t, rp, declared, []placesCase{
		{"the target group by path, not the source's group", member, `{"project_id":"secret/open","namespace_path":"open"}`, "open"},
		{"the target group by id", member, `{"project_id":"secret/open","namespace_id":20}`, "open"},
		{"into the source's own group", member, `{"project_id":1,"namespace_path":"secret"}`, "secret"},
		{"an outsider, into a hidden group: as if missing", outsider, `{"project_id":"secret/open","namespace_path":"secret"}`, ""},
		{"no target argument: none, whatever project_id names", member, `{"project_id":"secret/open"}`, ""},
	})
}

// TestRulePlaces_vulnerabilityTarget: save_vulnerability names only a
// vulnerability, so its rules are those of the vulnerability's project
// (and its groups), found through the store; a vulnerability the caller
// cannot see (not Developer in its project, even a public one) or a
// missing one names no target, so the instance default applies and the
// tool answers not found either way.
func TestRulePlaces_vulnerabilityTarget(t *testing.T) {
	member := &models.User{ID: 1, State: "active"}
	outsider := &models.User{ID: 2, State: "active"}
	rp := rulePlaces{st: visibilityPlaces(visibilityRules{members: map[int64][]string{1: {"secret"}}})}
	declared := []tools.TargetArg{{Name: "vulnerability_id", Kind: tools.TargetVulnerability}}
	checkPlaces(t, rp, declared, []placesCase{
		{"a member, by id", member, `{"vulnerability_id":"100","action":"confirm"}`, "secret/open"},
		{"a member, by number", member, `{"vulnerability_id":100}`, "secret/open"},
		{"a member, by global id", member, `{"vulnerability_id":"gid://gitlab/Vulnerability/200"}`, "secret/closed"},
		{"an outsider, a public project's vulnerability: as if missing", outsider, `{"vulnerability_id":"100"}`, ""},
		{"an outsider, a private project's vulnerability: as if missing", outsider, `{"vulnerability_id":"200"}`, ""},
		{"a missing vulnerability", member, `{"vulnerability_id":"999"}`, ""},
		{"not an id", member, `{"vulnerability_id":"abc"}`, ""},
		{"project_id is not read", member, `{"vulnerability_id":"999","project_id":1}`, ""},
	})
}

// TestRulePlaces_workItemTargets: link_work_items writes into the source
// work item's project and into each linked work item's, so the strictest
// rule of those projects governs it (Deny, then Ask, then Allow), and an
// Ask names every one. A linked work item the caller cannot read (its
// project hidden, or confidential and not the caller's) counts for
// nothing, as a missing one: the tool answers not found.
func TestRulePlaces_workItemTargets(t *testing.T) {
	member := &models.User{ID: 1, State: "active"}
	outsider := &models.User{ID: 2, State: "active"}
	rp := rulePlaces{st: visibilityPlaces(visibilityRules{members: map[int64][]string{1: {"secret"}}})}
	declared := []tools.TargetArg{{Name: "project_id", Kind: tools.TargetProject}, {Name: "group_id", Kind: tools.TargetGroup},
		{Name: "url", Kind: tools.TargetURL}, {Name: "work_items_ids", Kind: tools.TargetWorkItems}}
	link := func(source string, ids ...string) string {
		return `{"project_id":"` + source + `","work_item_iid":1,"work_items_ids":[` + strings.Join(ids, ",") + `]}`
	}
	checkPlaces(t, rp, declared, []placesCase{
		{"allow on both", outsider, link("open/tools", `"gid://gitlab/WorkItem/300"`), "open/tools"},
		{"ask on the linked item's project", outsider, link("open/tools", `"gid://gitlab/WorkItem/301"`), "open/tools and open/ask"},
		{"deny on a linked item's project beats ask on another's", member,
			link("open/tools", `"gid://gitlab/WorkItem/301"`, `"gid://gitlab/WorkItem/302"`), "open/tools, open/ask and secret/open"},
		{"deny on the source's group beats the linked items'", member, link("secret/open", `"gid://gitlab/WorkItem/301"`), "secret/open and open/ask"},
		{"an outsider, a public project's item in the private group", outsider, link("open/tools", `"gid://gitlab/WorkItem/302"`), "open/tools and secret/open"},
		{"a member, a private project's item", member, link("open/tools", `"gid://gitlab/WorkItem/303"`), "open/tools and secret/closed"},
		{"an outsider, a private project's item: as if missing", outsider, link("open/tools", `"gid://gitlab/WorkItem/303"`), "open/tools"},
		{"an outsider, only hidden and missing items", outsider, link("open/tools", `"gid://gitlab/WorkItem/303"`, `"gid://gitlab/WorkItem/999"`), "open/tools"},
		{"a confidential item by the caller", outsider, link("open/tools", `"gid://gitlab/WorkItem/304"`), "open/tools and open/ask"},
		{"a confidential item of someone else's: as if missing", outsider, link("open/tools", `"gid://gitlab/WorkItem/305"`), "open/tools"},
		{"a member reads the confidential item", member, link("open/tools", `"gid://gitlab/WorkItem/305"`), "open/tools and open/ask"},
		{"a hidden source: the linked items' rules", outsider, link("secret/closed", `"gid://gitlab/WorkItem/301"`), "open/ask"},
		{"each project once, by iid or global id", outsider, link("open/ask", `"gid://gitlab/WorkItem/301"`, `"301"`, `301`, `"gid://gitlab/WorkItem/304"`), "open/ask"},
		// A plain number is an iid in the source's project, never the work
		// item whose id it is (301 is in open/ask).
		{"plain iids are the source's project's", outsider, link("open/tools", `"301"`, `301`, `"7"`), "open/tools"},
		{"plain iids, source hidden: no target", outsider, link("secret/closed", `"301"`, `301`), ""},
		{"not work item ids", member, link("open/tools", `"gid://gitlab/Issue/302"`, `"abc"`, `"-302"`, `"302x"`, `0`), "open/tools"},
		{"the source by URL", outsider, `{"url":"https://gitlab.example.com/open/tools/-/work_items/1","work_items_ids":["gid://gitlab/WorkItem/301"]}`,
			"open/tools and open/ask"},
		{"no source, only linked items", outsider, `{"work_items_ids":["gid://gitlab/WorkItem/301"]}`, "open/ask"},
	})
}

// visibilityPlaces is the rules' store struct over v, v serving each
// family.
func visibilityPlaces(v visibilityRules) *rulePlacesStore {
	return &rulePlacesStore{v, v, v, v}
}
