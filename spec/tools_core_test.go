package spec

import (
	"context"
	"fmt"
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
	acme, err := h.Env.Store.FindGroupByFullPath(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Env.Store.AddGroupMember(ctx, &models.GroupMember{NamespaceID: acme.ID, UserID: gm.ID, AccessLevel: models.Reporter}); err != nil {
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
	// A Guest of the group is still a Guest: no issues in a private project.
	guest := toolsAddUser(t, h, "groupguest")
	if err := h.Env.Store.AddGroupMember(ctx, &models.GroupMember{NamespaceID: acme.ID, UserID: guest.ID, AccessLevel: models.Guest}); err != nil {
		t.Fatal(err)
	}
	text := h.toolsFail(t, h.groups()[0], "groupguest", "create_issue", map[string]any{"id": "acme/secret-plans", "title": "t"})
	if text == "" || text[:10] != "Forbidden:" {
		t.Errorf("a group Guest creating an issue: %q, want Forbidden", text)
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
	bob, err := h.Env.Store.FindUserByUsername(context.Background(), "bob")
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
