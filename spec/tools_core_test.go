package spec

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

// The core toolset over HTTP, in both eras on both route groups:
// get_project, get_user, and the effective (inherited) role every tool
// reads.

// TestTools_effectiveRole: a member of a group acts on a project of that
// group with the group's role, through the one place every tool reads
// roles from. Here: a Reporter of the private group acme, member of no
// project, opens an issue in acme/secret-plans assigned to itself (the
// assignee check reads the project's members) and reads it back.
func TestTools_effectiveRole(t *testing.T) {
	h := startServer(t, withEE())
	ctx := context.Background()
	gm := toolsAddUser(t, h, "groupie")
	acme, err := h.Env.Store.Groups.FindGroupByFullPath(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Env.Store.Groups.AddGroupMember(ctx, &models.GroupMember{NamespaceID: acme.ID, UserID: gm.ID, AccessLevel: models.Reporter}); err != nil {
		t.Fatal(err)
	}
	for _, g := range h.groups() {
		sc := h.toolsRead(t, g, "groupie", "get_project", map[string]any{"project_id": "acme/secret-plans"})
		toolsExpectField(t, sc, "acme/secret-plans", "path_with_namespace")
		for _, era := range eras {
			sc := h.toolsWrite(t, g, era, "groupie", "create_issue", map[string]any{
				"id": "acme/secret-plans", "title": "From a group member (" + g.Name + " " + era + ")", "assignee_ids": []any{gm.ID}})
			toolsExpectField(t, sc, "groupie", "assignees", 0, "username")
			toolsExpectField(t, sc, "groupie", "author", "username")
		}
	}
	// A Guest of the group is a Guest of its projects: GitLab lets a Guest
	// open an issue (ProjectPolicy's guest_access, even in a private
	// project) but drops what needs the Reporter role (filter_params): the
	// issue is created, without its assignee.
	guest := toolsAddUser(t, h, "groupguest")
	if err := h.Env.Store.Groups.AddGroupMember(ctx, &models.GroupMember{NamespaceID: acme.ID, UserID: guest.ID, AccessLevel: models.Guest}); err != nil {
		t.Fatal(err)
	}
	sc := h.toolsWrite(t, h.groups()[0], legacy, "groupguest", "create_issue",
		map[string]any{"id": "acme/secret-plans", "title": "From a group Guest", "assignee_ids": []any{guest.ID}})
	toolsExpectField(t, sc, "groupguest", "author", "username")
	if a, ok := sc["assignees"].([]any); !ok || len(a) != 0 {
		t.Errorf("a group Guest's issue: assignees %v, want none (dropped below Reporter)", sc["assignees"])
	}
	// Not a member at all: a private project is not there.
	toolsAddUser(t, h, "stranger")
	text := h.toolsFail(t, h.groups()[0], "stranger", "create_issue", map[string]any{"id": "acme/secret-plans", "title": "t"})
	if !strings.Contains(text, "Not Found") {
		t.Errorf("a stranger creating an issue in a private project: %q, want not found", text)
	}
}

func TestTools_getProject(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	secret := toolsProject(t, h, "acme/secret-plans")
	mcp := toolsProject(t, h, "gitlab-org/gitlab-mcp")

	t.Run("happy path: GitLab's project metadata", func(t *testing.T) {
		for _, g := range h.groups() {
			sc := h.toolsRead(t, g, "alice", "get_project", map[string]any{"project_id": "acme/secret-plans"})
			toolsExpectField(t, sc, secret.ID, "id")
			toolsExpectField(t, sc, "acme/secret-plans", "path_with_namespace")
			toolsExpectField(t, sc, "main", "default_branch")
			toolsExpectField(t, sc, "private", "visibility")
			toolsExpectField(t, sc, h.Cfg.PublicURL+"/acme/secret-plans", "web_url")
			if len(sc) != 5 {
				t.Errorf("get_project answers %v, want exactly GitLab's five fields", sc)
			}
		}
		// Every way of naming the project answers the same.
		want := h.toolsRead(t, ce, "carol", "get_project", map[string]any{"project_id": "gitlab-org/gitlab-mcp"})
		for _, args := range []map[string]any{
			{"project_id": mcp.ID}, {"project_id": fmt.Sprint(mcp.ID)}, {"project_id": "gitlab-org%2Fgitlab-mcp"},
			{"project_id": "GitLab-Org/GitLab-MCP"}, {"url": h.Cfg.PublicURL + "/gitlab-org/gitlab-mcp"},
			{"url": h.Cfg.PublicURL + "/gitlab-org/gitlab-mcp/-/issues/1"},
		} {
			if got := h.toolsRead(t, ce, "carol", "get_project", args); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%v: %v\nwant %v", args, got, want)
			}
		}
		// An internal project is visible to every signed-in user.
		toolsExpectField(t, h.toolsRead(t, ce, "carol", "get_project", map[string]any{"project_id": "gitlab-org/orbit"}), "internal", "visibility")
	})

	toolsAddUser(t, h, "outsider") // a member of nothing, with the EE seat
	outsiders := map[string][]string{"CE": {"bob", "carol", "outsider"}, "EE": {"outsider"}}

	t.Run("an outsider reads a private project exactly like a missing one", func(t *testing.T) {
		for _, g := range h.groups() {
			for _, user := range outsiders[g.Name] {
				text := h.toolsSameAsMissing(t, g, user, "get_project", map[string]any{"project_id": "acme/secret-plans"}, map[string]any{"project_id": "acme/nope"})
				if text != "Project not found: it does not exist or you do not have access to it." {
					t.Errorf("not found text = %q", text)
				}
				h.toolsSameAsMissing(t, g, user, "get_project", map[string]any{"project_id": secret.ID}, map[string]any{"project_id": 999999})
				h.toolsSameAsMissing(t, g, user, "get_project", map[string]any{"url": h.Cfg.PublicURL + "/acme/secret-plans"},
					map[string]any{"url": h.Cfg.PublicURL + "/acme/nope"})
			}
			h.toolsBlocked(t, g, "get_project", map[string]any{"project_id": "gitlab-org/gitlab-mcp"})
		}
	})

	t.Run("schema-violating and contradictory arguments", func(t *testing.T) {
		for _, c := range []struct {
			args map[string]any
			frag string
		}{
			{map[string]any{}, "Provide exactly one of: url or project_id"},
			{map[string]any{"project_id": "gitlab-org/gitlab-mcp", "url": h.Cfg.PublicURL + "/gitlab-org/gitlab-mcp"}, "Provide exactly one of: url or project_id"},
			{map[string]any{"project_id": ""}, "/project_id"},
			{map[string]any{"project_id": true}, "/project_id"},
			{map[string]any{"project_id": "gitlab-org/gitlab-mcp", "verbose": true}, "verbose"},
			{map[string]any{"url": "https://elsewhere.example.org/gitlab-org/gitlab-mcp"}, "not on this GitLab instance"},
			{map[string]any{"url": h.Cfg.PublicURL + "/just-a-group"}, "does not name a project"},
		} {
			h.toolsInvalid(t, ce, "alice", "get_project", c.args, c.frag)
		}
	})
}

func TestTools_getUser(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	bob, err := h.Env.Store.Users.FindUserByUsername(context.Background(), "bob")
	if err != nil {
		t.Fatal(err)
	}

	t.Run("by username, id or me", func(t *testing.T) {
		for _, g := range h.groups() {
			sc := h.toolsRead(t, g, "alice", "get_user", map[string]any{"username": "bob"})
			toolsExpectField(t, sc, bob.ID, "id")
			toolsExpectField(t, sc, "bob", "username")
			toolsExpectField(t, sc, bob.Name, "name")
			toolsExpectField(t, sc, "active", "state")
			toolsExpectField(t, sc, h.Cfg.PublicURL+"/bob", "web_url")
			if len(sc) != 5 {
				t.Errorf("get_user answers %v, want exactly GitLab's five fields", sc)
			}
			for _, args := range []map[string]any{{"id": bob.ID}, {"username": "BOB"}, {"username": "bob", "me": false}} {
				if got := h.toolsRead(t, g, "alice", "get_user", args); fmt.Sprint(got) != fmt.Sprint(sc) {
					t.Errorf("%v: %v\nwant %v", args, got, sc)
				}
			}
		}
		if got := h.toolsRead(t, ce, "bob", "get_user", map[string]any{"me": true}); fmt.Sprint(toolsDig(got, "username")) != "bob" {
			t.Errorf("me as bob: %v", got)
		}
		// A blocked user is looked up with its state (GitLab shows it).
		toolsExpectField(t, h.toolsRead(t, ce, "alice", "get_user", map[string]any{"username": "dave"}), "blocked", "state")
	})

	t.Run("missing users, contradictory and schema-violating arguments", func(t *testing.T) {
		h.toolsFailWith(t, ce, "alice", "get_user", map[string]any{"username": "nobody-here"}, "User not found or inaccessible")
		h.toolsFailWith(t, ce, "alice", "get_user", map[string]any{"id": 999999}, "User not found or inaccessible")
		for _, c := range []struct {
			args map[string]any
			frag string
		}{
			{map[string]any{}, "Provide exactly one of username, id, or me"},
			{map[string]any{"me": false}, "Provide exactly one of username, id, or me"},
			{map[string]any{"username": "bob", "id": bob.ID}, "Provide exactly one of username, id, or me"},
			{map[string]any{"username": "bob", "me": true}, "Provide exactly one of username, id, or me"},
			{map[string]any{"id": 0}, "/id"},
			{map[string]any{"id": "7"}, "/id"},
			{map[string]any{"username": ""}, "/username"},
			{map[string]any{"me": "yes"}, "/me"},
			{map[string]any{"me": true, "email": "x"}, "email"},
		} {
			h.toolsInvalid(t, ce, "alice", "get_user", c.args, c.frag)
		}
		for _, g := range h.groups() {
			h.toolsBlocked(t, g, "get_user", map[string]any{"me": true})
		}
	})
}

// toolsWalk calls a first/after listing tool page by page (first = 1) and
// returns the values at path of every node, with the pages it took. end
// digs the end cursor and the has-next flag out of a page.
func (h *harness) toolsWalk(t testing.TB, g group, user, tool string, args map[string]any, nodes string, end func(map[string]any) (any, bool), path ...any) []string {
	t.Helper()
	args = overrideArgs(args, "first", 1)
	var out []string
	for pages := 0; ; pages++ {
		if pages > 20 {
			t.Fatalf("%s: more pages than rows", tool)
		}
		sc := h.toolsRead(t, g, user, tool, args)
		out = append(out, toolsField(toolsArray(t, sc[nodes]), path...)...)
		cursor, more := end(sc)
		if !more {
			if cursor != nil {
				t.Errorf("%s: last page carries end cursor %v", tool, cursor)
			}
			return out
		}
		args["after"] = cursor
	}
}

func gqlEnd(sc map[string]any) (any, bool) {
	return toolsDig(sc, "pageInfo", "endCursor"), toolsDig(sc, "pageInfo", "hasNextPage") == true
}

func toolsPaths(t testing.TB, sc map[string]any, nodes string, path ...any) string {
	t.Helper()
	return fmt.Sprint(toolsField(toolsArray(t, sc[nodes]), path...))
}

func TestTools_listProjects(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	toolsAddUser(t, h, "outsider")
	list := func(g group, user string, args map[string]any) map[string]any {
		return h.toolsRead(t, g, user, "list_projects", args)
	}

	t.Run("your projects, by role, archived state, search and visibility", func(t *testing.T) {
		for _, g := range h.groups() {
			sc := list(g, "alice", map[string]any{})
			if got := toolsPaths(t, sc, "nodes", "fullPath"); got != "[gitlab-org/gitlab-mcp gitlab-org/orbit acme/secret-plans]" {
				t.Errorf("%s: alice's projects = %s", g.Name, got)
			}
			if _, ok := sc["subgroupsIncluded"]; ok {
				t.Errorf("subgroupsIncluded without group_id: %v", sc)
			}
			secret := toolsProject(t, h, "acme/secret-plans")
			node := toolsDig(sc, "nodes", 2).(map[string]any)
			toolsExpectField(t, node, secret.ID, "id")
			toolsExpectField(t, node, "Secret Plans", "name")
			toolsExpectField(t, node, "Acme Corp / Secret Plans", "nameWithNamespace")
			toolsExpectField(t, node, "private", "visibility")
			toolsExpectField(t, node, false, "archived")
			toolsExpectField(t, node, h.Cfg.PublicURL+"/acme/secret-plans", "webUrl")
			toolsExpectField(t, sc, false, "pageInfo", "hasNextPage")
			toolsExpectField(t, sc, nil, "pageInfo", "endCursor")
		}
		for _, c := range []struct {
			user string
			args map[string]any
			want string
		}{
			{"alice", map[string]any{"min_access_level": "maintainer"}, "[acme/secret-plans]"},
			{"alice", map[string]any{"min_access_level": "planner"}, "[gitlab-org/gitlab-mcp gitlab-org/orbit acme/secret-plans]"},
			{"bob", map[string]any{"min_access_level": "developer"}, "[]"},
			{"bob", map[string]any{}, "[gitlab-org/gitlab-mcp gitlab-org/orbit]"},
			{"bob", map[string]any{"archived": "only"}, "[gitlab-org/labs/mcp-inspector]"},
			{"bob", map[string]any{"archived": "include"}, "[gitlab-org/gitlab-mcp gitlab-org/orbit gitlab-org/labs/mcp-inspector]"},
			{"bob", map[string]any{"archived": "exclude", "search": "ORBIT"}, "[gitlab-org/orbit]"},
			{"alice", map[string]any{"visibility": "internal"}, "[gitlab-org/orbit]"},
			{"carol", map[string]any{}, "[gitlab-org/gitlab-mcp]"},
			{"outsider", map[string]any{}, "[]"},
		} {
			if got := toolsPaths(t, list(ce, c.user, c.args), "nodes", "fullPath"); got != c.want {
				t.Errorf("%s %v: %s, want %s", c.user, c.args, got, c.want)
			}
		}
	})

	t.Run("a group: its subgroups too, unless min_access_level or visibility narrow it", func(t *testing.T) {
		for _, c := range []struct {
			user string
			args map[string]any
			want string
			sub  bool
		}{
			{"carol", map[string]any{"group_id": "gitlab-org"}, "[gitlab-org/gitlab-mcp gitlab-org/orbit]", true},
			{"carol", map[string]any{"group_id": "gitlab-org", "archived": "include"}, "[gitlab-org/gitlab-mcp gitlab-org/orbit gitlab-org/labs/mcp-inspector]", true},
			{"carol", map[string]any{"group_id": "gitlab-org", "archived": "include", "visibility": "public"}, "[gitlab-org/gitlab-mcp]", false},
			{"carol", map[string]any{"group_id": "gitlab-org/labs", "archived": "only"}, "[gitlab-org/labs/mcp-inspector]", true},
			{"bob", map[string]any{"group_id": "gitlab-org", "min_access_level": "reporter", "archived": "include"}, "[gitlab-org/gitlab-mcp gitlab-org/orbit]", false},
			{"alice", map[string]any{"group_id": "acme"}, "[acme/secret-plans]", true},
		} {
			sc := list(ce, c.user, c.args)
			if got := toolsPaths(t, sc, "nodes", "fullPath"); got != c.want {
				t.Errorf("%s %v: %s, want %s", c.user, c.args, got, c.want)
			}
			toolsExpectField(t, sc, c.sub, "subgroupsIncluded")
		}
		// A private group's projects stay hidden from a non-member.
		for _, g := range h.groups() {
			for _, user := range map[string][]string{"CE": {"bob", "carol", "outsider"}, "EE": {"outsider"}}[g.Name] {
				text := h.toolsSameAsMissing(t, g, user, "list_projects", map[string]any{"group_id": "acme"}, map[string]any{"group_id": "nope"})
				if text != "Group not found or inaccessible" {
					t.Errorf("text = %q", text)
				}
			}
		}
	})

	t.Run("pages with signed cursors", func(t *testing.T) {
		got := h.toolsWalk(t, ce, "alice", "list_projects", map[string]any{}, "nodes", gqlEnd, "fullPath")
		if fmt.Sprint(got) != "[gitlab-org/gitlab-mcp gitlab-org/orbit acme/secret-plans]" {
			t.Errorf("walk = %v", got)
		}
		first := list(ce, "alice", map[string]any{"first": 1})
		cursor, _ := toolsDig(first, "pageInfo", "endCursor").(string)
		h.toolsInvalid(t, ce, "alice", "list_projects", map[string]any{"after": cursor + "x"}, "after")
		other := h.toolsRead(t, ce, "alice", "list_groups", map[string]any{"first": 1})
		if c, ok := toolsDig(other, "pageInfo", "endCursor").(string); ok {
			h.toolsInvalid(t, ce, "alice", "list_projects", map[string]any{"after": c}, "after")
		}
	})

	t.Run("schema-violating arguments", func(t *testing.T) {
		for _, c := range []struct {
			args map[string]any
			frag string
		}{
			{map[string]any{"min_access_level": "admin"}, "/min_access_level"},
			{map[string]any{"min_access_level": "DEVELOPER"}, "/min_access_level"},
			{map[string]any{"archived": "yes"}, "/archived"},
			{map[string]any{"visibility": "secret"}, "/visibility"},
			{map[string]any{"first": 0}, "/first"},
			{map[string]any{"first": 101}, "/first"},
			{map[string]any{"group_id": ""}, "/group_id"},
			{map[string]any{"owned": true}, "owned"},
		} {
			h.toolsInvalid(t, ce, "alice", "list_projects", c.args, c.frag)
		}
		for _, g := range h.groups() {
			h.toolsBlocked(t, g, "list_projects", map[string]any{})
		}
	})
}

func TestTools_listGroups(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	toolsAddUser(t, h, "outsider")
	gitlabOrg, err := h.Env.Store.Groups.FindGroupByFullPath(context.Background(), "gitlab-org")
	if err != nil {
		t.Fatal(err)
	}

	t.Run("your top-level groups, subgroups of a group, at any depth", func(t *testing.T) {
		for _, g := range h.groups() {
			sc := h.toolsRead(t, g, "alice", "list_groups", map[string]any{})
			if got := toolsPaths(t, sc, "nodes", "fullPath"); got != "[gitlab-org acme]" {
				t.Errorf("%s: alice's groups = %s", g.Name, got)
			}
			toolsExpectField(t, sc, gitlabOrg.ID, "nodes", 0, "id")
			toolsExpectField(t, sc, "GitLab.org", "nodes", 0, "name")
			toolsExpectField(t, sc, "public", "nodes", 0, "visibility")
			toolsExpectField(t, sc, h.Cfg.PublicURL+"/groups/gitlab-org", "nodes", 0, "webUrl")
			toolsExpectField(t, sc, nil, "nodes", 0, "parent")
			sub := h.toolsRead(t, g, "alice", "list_groups", map[string]any{"group_id": "gitlab-org"})
			if got := toolsPaths(t, sub, "nodes", "fullPath"); got != "[gitlab-org/labs]" {
				t.Errorf("subgroups of gitlab-org = %s", got)
			}
			toolsExpectField(t, sub, gitlabOrg.ID, "nodes", 0, "parent", "id")
			toolsExpectField(t, sub, "gitlab-org", "nodes", 0, "parent", "fullPath")
			toolsExpectField(t, sub, "GitLab.org / Labs", "nodes", 0, "fullName")
		}
		for _, c := range []struct {
			user string
			args map[string]any
			want string
		}{
			{"carol", map[string]any{}, "[gitlab-org]"},
			{"bob", map[string]any{"include_subgroups": true}, "[gitlab-org gitlab-org/labs]"},
			{"bob", map[string]any{}, "[gitlab-org]"},
			{"outsider", map[string]any{}, "[]"},
			{"outsider", map[string]any{"group_id": gitlabOrg.ID}, "[gitlab-org/labs]"},
			{"carol", map[string]any{"group_id": "gitlab-org", "search": "LAB"}, "[gitlab-org/labs]"},
			{"carol", map[string]any{"group_id": "gitlab-org", "visibility": "private"}, "[]"},
			{"alice", map[string]any{"visibility": "private"}, "[acme]"},
			{"alice", map[string]any{"search": "acme"}, "[acme]"},
		} {
			if got := toolsPaths(t, h.toolsRead(t, ce, c.user, "list_groups", c.args), "nodes", "fullPath"); got != c.want {
				t.Errorf("%s %v: %s, want %s", c.user, c.args, got, c.want)
			}
		}
		if got := h.toolsWalk(t, ce, "alice", "list_groups", map[string]any{}, "nodes", gqlEnd, "fullPath"); fmt.Sprint(got) != "[gitlab-org acme]" {
			t.Errorf("walk = %v", got)
		}
	})

	t.Run("a private group reads like a missing one; bad arguments", func(t *testing.T) {
		for _, g := range h.groups() {
			for _, user := range map[string][]string{"CE": {"bob", "carol", "outsider"}, "EE": {"outsider"}}[g.Name] {
				h.toolsSameAsMissing(t, g, user, "list_groups", map[string]any{"group_id": "acme"}, map[string]any{"group_id": "nope"})
			}
			h.toolsBlocked(t, g, "list_groups", map[string]any{})
		}
		for _, c := range []struct {
			args map[string]any
			frag string
		}{
			{map[string]any{"include_subgroups": "yes"}, "/include_subgroups"},
			{map[string]any{"visibility": "everyone"}, "/visibility"},
			{map[string]any{"first": 101}, "/first"},
			{map[string]any{"after": "not-a-cursor"}, "after"},
			{map[string]any{"parent_id": 1}, "parent_id"},
		} {
			h.toolsInvalid(t, ce, "alice", "list_groups", c.args, c.frag)
		}
	})
}

func TestTools_listProjectMembers(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	toolsAddUser(t, h, "outsider")
	members := func(user string, args map[string]any) map[string]any {
		return h.toolsRead(t, ce, user, "list_project_members", args)
	}

	t.Run("direct members, and inherited ones", func(t *testing.T) {
		for _, g := range h.groups() {
			sc := h.toolsRead(t, g, "alice", "list_project_members", map[string]any{"project_id": "gitlab-org/gitlab-mcp"})
			if got := toolsPaths(t, sc, "items", "username"); got != "[root alice bob carol dave]" {
				t.Errorf("%s: members = %s", g.Name, got)
			}
			if got := toolsPaths(t, sc, "items", "access_level"); got != "[50 30 20 10 30]" {
				t.Errorf("access levels = %s", got)
			}
			if got := toolsPaths(t, sc, "items", "access_level_name"); got != "[Owner Developer Reporter Guest Developer]" {
				t.Errorf("access level names = %s", got)
			}
			toolsExpectField(t, sc, "Alice Martin", "items", 1, "name")
			toolsExpectField(t, sc, nil, "items", 1, "expires_at")
			toolsExpectField(t, sc, false, "metadata", "has_next_page")
			toolsExpectField(t, sc, nil, "metadata", "end_cursor")
		}
		inspector := map[string]any{"project_id": "gitlab-org/labs/mcp-inspector"}
		if got := toolsPaths(t, members("carol", inspector), "items", "username"); got != "[root]" {
			t.Errorf("direct members of the inspector = %s", got)
		}
		all := members("carol", overrideArgs(inspector, "include_inherited", true))
		if got := toolsPaths(t, all, "items", "username"); got != "[root bob]" {
			t.Errorf("with inherited members = %s", got)
		}
		toolsExpectField(t, all, "Reporter", "items", 1, "access_level_name")
		if got := toolsPaths(t, members("carol", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "query": "ALI"}), "items", "username"); got != "[alice]" {
			t.Errorf("query ALI = %s", got)
		}
		end := func(sc map[string]any) (any, bool) {
			return toolsDig(sc, "metadata", "end_cursor"), toolsDig(sc, "metadata", "has_next_page") == true
		}
		if got := h.toolsWalk(t, ce, "carol", "list_project_members", map[string]any{"project_id": "gitlab-org/gitlab-mcp"}, "items", end, "username"); fmt.Sprint(got) != "[root alice bob carol dave]" {
			t.Errorf("walk = %v", got)
		}
	})

	t.Run("an outsider reads a private project like a missing one; bad arguments", func(t *testing.T) {
		for _, g := range h.groups() {
			for _, user := range map[string][]string{"CE": {"bob", "carol", "outsider"}, "EE": {"outsider"}}[g.Name] {
				text := h.toolsSameAsMissing(t, g, user, "list_project_members", map[string]any{"project_id": "acme/secret-plans"},
					map[string]any{"project_id": "acme/nope"})
				if text != "Project not found or inaccessible" {
					t.Errorf("text = %q", text)
				}
			}
			h.toolsBlocked(t, g, "list_project_members", map[string]any{"project_id": "gitlab-org/gitlab-mcp"})
		}
		for _, c := range []struct {
			args map[string]any
			frag string
		}{
			{map[string]any{}, "project_id"},
			{map[string]any{"project_id": "gitlab-org/gitlab-mcp", "first": 0}, "/first"},
			{map[string]any{"project_id": "gitlab-org/gitlab-mcp", "include_inherited": 1}, "/include_inherited"},
			{map[string]any{"project_id": "gitlab-org/gitlab-mcp", "after": "x.y"}, "after"},
			{map[string]any{"project_id": "gitlab-org/gitlab-mcp", "last": 1}, "last"},
		} {
			h.toolsInvalid(t, ce, "alice", "list_project_members", c.args, c.frag)
		}
	})
}

func TestTools_saveNote(t *testing.T) {
	h := startServer(t, withEE())
	ce, ee := h.groups()[0], h.groups()[1]
	mr1 := map[string]any{"project_id": "gitlab-org/gitlab-mcp", "merge_request_iid": 1}
	wi1 := map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 1}
	disc := h.toolsRead(t, ce, "alice", "get_merge_request", overrideArgs(mr1, "include", []any{"discussions"}))
	mrThread := fmt.Sprint(toolsDig(disc, "discussions", "nodes", 0, "id"))
	notes := h.toolsRead(t, ce, "alice", "get_workitem_notes", wi1)
	wiThread := fmt.Sprint(toolsDig(notes, "items", 1, "discussion_id")) // a public thread on #1
	internal := h.toolsRead(t, ce, "alice", "get_workitem_notes", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 3})
	internalThread := fmt.Sprint(toolsDig(internal, "items", 1, "discussion_id")) // the internal note on the confidential #3

	t.Run("comments and replies on merge requests and work items", func(t *testing.T) {
		for _, era := range eras {
			before := toolsState(t, h)
			sc := h.toolsWrite(t, ce, era, "bob", "save_note", overrideArgs(mr1, "body", "Looks right to me ("+era+")."))
			if len(sc) != 2 || fmt.Sprint(sc["errors"]) != "[]" {
				t.Errorf("payload = %v, want note and errors", sc)
			}
			note := sc["note"].(map[string]any)
			if len(note) != 8 {
				t.Errorf("note = %v, want GitLab's eight fields", note)
			}
			id := before["notes max id"] + 1
			toolsExpectField(t, note, fmt.Sprintf("gid://gitlab/Note/%d", id), "id")
			toolsExpectField(t, note, "Looks right to me ("+era+").", "body")
			toolsExpectField(t, note, false, "internal")
			toolsExpectField(t, note, "bob", "author", "username")
			toolsExpectField(t, note, h.Cfg.PublicURL+fmt.Sprintf("/gitlab-org/gitlab-mcp/-/merge_requests/1#note_%d", id), "url")
			if d := fmt.Sprint(toolsDig(note, "discussion", "id")); d == mrThread || len(d) < len("gid://gitlab/Discussion/")+8 {
				t.Errorf("a new note's discussion = %s", d)
			}
			reply := h.toolsWrite(t, ce, era, "bob", "save_note", overrideArgs(mr1, "body", "Agreed.", "discussion_id", mrThread))
			toolsExpectField(t, reply, mrThread, "note", "discussion", "id")

			// Work items by project and iid, and by URL; an internal note; a reply.
			w := h.toolsWrite(t, ce, era, "bob", "save_note", overrideArgs(wi1, "body", "Seen on 18.7 too.", "internal", true))
			toolsExpectField(t, w, true, "note", "internal")
			if u := fmt.Sprint(toolsDig(w, "note", "url")); !strings.HasPrefix(u, h.Cfg.PublicURL+"/gitlab-org/gitlab-mcp/-/work_items/1#note_") {
				t.Errorf("work item note url = %s", u)
			}
			byURL := h.toolsWrite(t, ce, era, "alice", "save_note", map[string]any{"url": h.Cfg.PublicURL + "/gitlab-org/gitlab-mcp/-/work_items/2", "body": "By URL."})
			toolsExpectField(t, byURL, "alice", "note", "author", "username")
			mrURL := h.toolsWrite(t, ce, era, "alice", "save_note", map[string]any{"url": h.Cfg.PublicURL + "/gitlab-org/gitlab-mcp/-/merge_requests/2/diffs", "body": "By MR URL."})
			if u := fmt.Sprint(toolsDig(mrURL, "note", "url")); !strings.Contains(u, "/-/merge_requests/2#note_") {
				t.Errorf("merge request note by URL: url %s", u)
			}
			r := h.toolsWrite(t, ce, era, "bob", "save_note", overrideArgs(wi1, "body", "Reply.", "discussion_id", strings.TrimPrefix(wiThread, "gid://gitlab/Discussion/")))
			toolsExpectField(t, r, "gid://gitlab/Discussion/"+strings.TrimPrefix(wiThread, "gid://gitlab/Discussion/"), "note", "discussion", "id")
			// A reply in an internal thread is internal.
			ir := h.toolsWrite(t, ce, era, "alice", "save_note", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 3,
				"body": "Patched.", "discussion_id": internalThread})
			toolsExpectField(t, ir, true, "note", "internal")
			if got := toolsState(t, h)["notes rows"]; got != before["notes rows"]+7 {
				t.Errorf("notes %d → %d, want 7 more", before["notes rows"], got)
			}
		}
		sc := h.toolsWrite(t, ee, "modern", "alice", "save_note", overrideArgs(mr1, "body", "From the Orbit endpoint."))
		toolsExpectField(t, sc, "alice", "note", "author", "username")
	})

	t.Run("the aliases: create_merge_request_note, create_work_item_note and create_workitem_note call save_note", func(t *testing.T) {
		sc := h.toolsWrite(t, ce, "legacy", "bob", "create_merge_request_note", overrideArgs(mr1, "body", "Via the old name."))
		toolsExpectField(t, sc, "Via the old name.", "note", "body")
		for _, name := range []string{"create_work_item_note", "create_workitem_note"} {
			before := toolsState(t, h)
			sc = h.toolsWrite(t, ce, "legacy", "bob", name, overrideArgs(wi1, "body", "Via "+name+"."))
			toolsExpectField(t, sc, "Via "+name+".", "note", "body") // GitLab's call-tool spec reads note.body
			toolsExpectField(t, sc, "[]", "errors")
			if got := toolsState(t, h)["notes rows"]; got != before["notes rows"]+1 {
				t.Errorf("%s: notes %d → %d, want 1 more", name, before["notes rows"], got)
			}
		}
	})

	t.Run("roles: a Guest comments, as GitLab lets her; read_api refused; nothing written", func(t *testing.T) {
		for _, target := range []map[string]any{mr1, wi1} {
			sc := h.toolsWrite(t, ce, "legacy", "carol", "save_note", overrideArgs(target, "body", "hi from a guest"))
			toolsExpectField(t, sc, "carol", "note", "author", "username")
		}
		ro, _ := authMint(t, h, "bob", []string{"read_api"}, authDay(7))
		h.Tokens["bob-ro"] = ro
		before := toolsState(t, h)
		for _, g := range []group{ce} {
			for _, era := range eras {
				for _, name := range []string{"save_note", "create_merge_request_note"} {
					desc := expect403Scope(t, h, g, h.toolsCall(t, g, era, "bob-ro", name, overrideArgs(mr1, "body", "x")), "mcp")
					if !strings.Contains(desc, "read_api") {
						t.Errorf("%s: %q", name, desc)
					}
				}
			}
		}
		toolsExpectState(t, h, before)
		for _, g := range h.groups() {
			h.toolsBlocked(t, g, "save_note", overrideArgs(mr1, "body", "x"))
		}
	})

	t.Run("what the caller may not see reads as missing", func(t *testing.T) {
		toolsAddUser(t, h, "outsider")
		for _, g := range h.groups() {
			for _, user := range map[string][]string{"CE": {"bob", "carol", "outsider"}, "EE": {"outsider"}}[g.Name] {
				text := h.toolsSameAsMissing(t, g, user, "save_note", map[string]any{"project_id": "acme/secret-plans", "work_item_iid": 1, "body": "x"},
					map[string]any{"project_id": "acme/nope", "work_item_iid": 1, "body": "x"})
				if text != "Project not found or inaccessible" {
					t.Errorf("text = %q", text)
				}
				h.toolsSameAsMissing(t, g, user, "save_note", map[string]any{"url": h.Cfg.PublicURL + "/acme/secret-plans/-/merge_requests/1", "body": "x"},
					map[string]any{"url": h.Cfg.PublicURL + "/acme/nope/-/merge_requests/1", "body": "x"})
				h.toolsSameAsMissing(t, g, user, "save_note", map[string]any{"group_id": "acme", "work_item_iid": 1, "body": "x"},
					map[string]any{"group_id": "nope", "work_item_iid": 1, "body": "x"})
			}
		}
		// The confidential #3 of a public project, for a Guest, is #3 of a project without it.
		h.toolsSameAsMissing(t, ce, "carol", "save_note", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 3, "body": "x"},
			map[string]any{"project_id": "gitlab-org/labs/mcp-inspector", "work_item_iid": 3, "body": "x"})
		h.toolsFailWith(t, ce, "bob", "save_note", overrideArgs(mr1, "merge_request_iid", 99, "body", "x"), "Merge request not found or inaccessible")
		h.toolsFailWith(t, ce, "bob", "save_note", overrideArgs(wi1, "work_item_iid", 99, "body", "x"), "Work item #99 not found or inaccessible")
		h.toolsFailWith(t, ce, "bob", "save_note", map[string]any{"group_id": "gitlab-org", "work_item_iid": 1, "body": "x"}, "Work item #1 not found or inaccessible")
		h.toolsFailWith(t, ce, "bob", "save_note", overrideArgs(mr1, "body", "x", "discussion_id", "gid://gitlab/Discussion/nope"), "404 Discussion Not Found")
		h.toolsFailWith(t, ce, "bob", "save_note", overrideArgs(mr1, "body", "x", "discussion_id", wiThread), "404 Discussion Not Found")
		// A Guest cannot reply in the internal thread it cannot read: the confidential work item itself is hidden first.
		h.toolsFail(t, ce, "carol", "save_note", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 3, "body": "x", "discussion_id": internalThread})
	})

	t.Run("schema-violating and contradictory arguments", func(t *testing.T) {
		for _, c := range []struct {
			args map[string]any
			frag string
		}{
			{mr1, "body"},
			{overrideArgs(mr1, "body", ""), "/body"},
			{overrideArgs(mr1, "body", "   "), "body: must not be blank"},
			{overrideArgs(mr1, "body", "LGTM\n  /merge"), "Quick actions (commands starting with /) are not allowed in note body"},
			{overrideArgs(mr1, "body", "x", "merge_request_iid", 0), "/merge_request_iid"},
			{overrideArgs(mr1, "body", "x", "internal", "yes"), "/internal"},
			{overrideArgs(mr1, "body", "x", "confidential", true), "confidential"},
			{map[string]any{"body": "x"}, "Provide url, or merge_request_iid with project_id, or work_item_iid with project_id or group_id"},
			{overrideArgs(mr1, "body", "x", "work_item_iid", 1), "Provide only one of merge_request_iid or work_item_iid"},
			{map[string]any{"merge_request_iid": 1, "body": "x"}, "Provide either url, or project_id and merge_request_iid"},
			{map[string]any{"work_item_iid": 1, "body": "x"}, "Provide project_id or group_id with work_item_iid"},
			{map[string]any{"url": h.Cfg.PublicURL + "/gitlab-org/gitlab-mcp/-/issues/1", "body": "x"}, "For issues, pass project_id and work_item_iid instead"},
			{map[string]any{"url": h.Cfg.PublicURL + "/gitlab-org/gitlab-mcp/-/wikis/home", "body": "x"}, "URL must be a merge request URL"},
			{overrideArgs(wi1, "body", "x", "internal", true, "discussion_id", wiThread), "internal: a reply to a public thread cannot be internal"},
		} {
			h.toolsInvalid(t, ce, "bob", "save_note", c.args, c.frag)
		}
	})
}
