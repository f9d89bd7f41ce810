package spec

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/app"
)

// The tool catalog as a client sees it: the names and annotations listed
// on each group, aliases that call but are not listed, the meta tool, and
// a read_api token's read-only view.

// toolsCE and toolsEE are the tools each group lists without a toolsets
// header, in byte order: GitLab 19.5's default toolsets (core,
// merge_requests, work_items, repository, ci, duo_agent_platform) and meta,
// as far as glmcp has them (doc/tools.md). toolsAllCE and toolsAllEE are
// the listings with "all", which adds the opt-in wikis and code_security.
// toolsUnlisted are GitLab's unlisted tools (and those glmcp cannot offer),
// callable by name but never listed.
var (
	toolsCE    = catalogUnion(catalogMeta, catalogCore, catalogWorkItems, catalogMergeRequests, catalogCI, catalogRepository)
	toolsEE    = catalogUnion(toolsCE, snapshotNames(func(s snapshotTool) bool { return s.Status == "listed" && s.ee() && s.Toolset == "core" }))
	toolsAllCE = catalogUnion(toolsCE, catalogWikis)
	toolsAllEE = catalogUnion(toolsEE, catalogWikis, catalogCodeSecurity)
	// toolsWrite are the listed tools that write (readOnlyHint false).
	toolsWrite = snapshotNames(func(s snapshotTool) bool { return s.Status == "listed" && !s.Annotations.ReadOnlyHint })
	// toolsUnlisted are GitLab 19.5's unlisted tools (unlisted: true,
	// pending removal), and those glmcp cannot offer but serves on both
	// groups (get_saved_view_work_items: saved views do not exist on
	// glmcp); toolsUnlistedWrite those of them that write.
	toolsUnlisted = snapshotNames(func(s snapshotTool) bool {
		return s.Status == "unlisted" || (s.Status == "unavailable" && s.Toolset != "duo_agent_platform")
	})
	toolsUnlistedWrite = snapshotNames(func(s snapshotTool) bool { return s.Status == "unlisted" && !s.Annotations.ReadOnlyHint })
)

// toolsetOf returns the toolset a listed tool carries in its annotations,
// from the catalog snapshot.
func toolsetOf(name string) string {
	for _, s := range catalogSnapshot() {
		if s.Name == name && s.Status == "listed" {
			return s.Toolset
		}
	}
	return ""
}

// toolsList lists every tool on g as user in era (following cursors) and
// returns the tool objects.
func (h *harness) toolsList(t testing.TB, g group, era, user string, hdr http.Header) []map[string]any {
	t.Helper()
	var out []map[string]any
	params := map[string]any{}
	for page := 0; ; page++ {
		if page > 100 {
			t.Fatal("tools/list never ends")
		}
		r := h.send(t, call{Era: era, URL: g.URL, User: user, ID: page + 1, Method: "tools/list", Params: params, Header: hdr})
		r.expectStatus(t, http.StatusOK)
		validateResult(t, eraRev(era), "ListToolsResult", r.Body)
		res := r.result(t)
		for _, x := range res["tools"].([]any) {
			out = append(out, x.(map[string]any))
		}
		next, ok := res["nextCursor"].(string)
		if !ok {
			return out
		}
		params = map[string]any{"cursor": next}
	}
}

func toolsNames(tools []map[string]any) []string {
	out := make([]string, 0, len(tools))
	for _, x := range tools {
		out = append(out, x["name"].(string))
	}
	return out
}

func TestTools_listed(t *testing.T) {
	h := startServer(t, withEE())
	want := map[string][]string{"CE": toolsCE, "EE": toolsEE}
	wantAll := map[string][]string{"CE": toolsAllCE, "EE": toolsAllEE}
	for _, g := range h.groups() {
		for _, era := range eras {
			if got := toolsNames(h.toolsList(t, g, era, "alice", nil)); !slices.Equal(got, want[g.Name]) {
				t.Errorf("%s %s: tools = %v\nwant %v", g.Name, era, got, want[g.Name])
			}
			tools := h.toolsList(t, g, era, "alice", http.Header{hdrToolsets: {"all"}})
			if got := toolsNames(tools); !slices.Equal(got, wantAll[g.Name]) {
				t.Errorf("%s %s all: tools = %v\nwant %v", g.Name, era, got, wantAll[g.Name])
			}
			for _, tool := range tools {
				name := tool["name"].(string)
				write := slices.Contains(toolsWrite, name)
				if toolsDig(tool, "annotations", "readOnlyHint") != !write {
					t.Errorf("%s: readOnlyHint = %v, want %v", name, toolsDig(tool, "annotations", "readOnlyHint"), !write)
				}
				destructive := slices.ContainsFunc(catalogSnapshot(), func(s snapshotTool) bool { return s.Name == name && s.destructive() })
				if toolsDig(tool, "annotations", "destructiveHint") != destructive {
					t.Errorf("%s: destructiveHint = %v, want %v", name, toolsDig(tool, "annotations", "destructiveHint"), destructive)
				}
				if got := toolsDig(tool, "annotations", "toolset"); got != toolsetOf(name) || got == "" {
					t.Errorf("%s: annotations.toolset = %v, want %q", name, got, toolsetOf(name))
				}
				if toolsDig(tool, "inputSchema", "type") != "object" || tool["description"] == "" {
					t.Errorf("%s: inputSchema %v, description %q", name, tool["inputSchema"], tool["description"])
				}
			}
		}
	}
}

func TestTools_getMCPServerVersion(t *testing.T) {
	h := startServer(t, withEE())
	for _, g := range h.groups() {
		for _, user := range []string{"alice", "root"} {
			sc := h.toolsRead(t, g, user, "get_mcp_server_version", map[string]any{})
			toolsExpectField(t, sc, app.Version, "version")
			toolsExpectField(t, sc, strings.ToLower(g.Name), "edition")
		}
		h.toolsInvalid(t, g, "alice", "get_mcp_server_version", map[string]any{"verbose": true}, "verbose")
		h.toolsBlocked(t, g, "get_mcp_server_version", map[string]any{})
	}
	// No arguments at all, and any signed-in user on CE.
	ce := h.groups()[0]
	for _, user := range []string{"bob", "carol"} {
		toolsExpectField(t, h.toolsRead(t, ce, user, "get_mcp_server_version", nil), app.Version, "version")
	}
}

// TestTools_aliases: gitlab_search and get_work_item_notes call their tools
// but are never listed, with or without a name prefix.
func TestTools_aliases(t *testing.T) {
	h := startServer(t, withEE())
	for _, g := range h.groups() {
		for _, era := range eras {
			names := toolsNames(h.toolsList(t, g, era, "alice", nil))
			for _, alias := range []string{"gitlab_search", "get_work_item_notes", "create_merge_request", "create_workitem_note"} {
				if slices.Contains(names, alias) {
					t.Errorf("%s %s: alias %s is listed", g.Name, era, alias)
				}
			}
			body, hd := h.parts(t, call{Era: era, User: "alice", Method: "tools/call", Params: map[string]any{
				"name": "gl_gitlab_search", "arguments": map[string]any{"scope": "issues", "search": "nebula"}}})
			hd.Set(hdrPrefix, "gl_")
			sc := toolsSucceeded(t, toolsResult(t, g, era, h.send(t, call{URL: g.URL, Body: body, Header: hd})))
			toolsExpectField(t, sc, 2, "pageInfo", "total")
		}
		sc := h.toolsRead(t, g, "alice", "gitlab_search", map[string]any{"scope": "projects", "search": "plans"})
		toolsExpectField(t, sc, "acme/secret-plans", "items", 0, "path_with_namespace")
	}
}

// TestTools_readAPI: a read_api token lists only the read-only tools; a
// write tool is refused with a 403 step-up challenge before it runs, and
// nothing is written.
func TestTools_readAPI(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	ro, _ := authMint(t, h, "alice", []string{"read_api"}, authDay(7))
	h.Tokens["alice-ro"] = ro
	var readOnly []string
	for _, n := range toolsCE {
		if !slices.Contains(toolsWrite, n) {
			readOnly = append(readOnly, n)
		}
	}
	for _, era := range eras {
		if got := toolsNames(h.toolsList(t, ce, era, "alice-ro", nil)); !slices.Equal(got, readOnly) {
			t.Errorf("%s: read_api lists %v\nwant %v", era, got, readOnly)
		}
	}
	writes := map[string]map[string]any{
		"create_issue":              {"id": "gitlab-org/gitlab-mcp", "title": "from read_api"},
		"accept_merge_request":      {"project_id": "gitlab-org/gitlab-mcp", "merge_request_iid": 1, "sha": "0000000"},
		"save_merge_request":        {"project_id": "gitlab-org/gitlab-mcp", "merge_request_iid": 1, "title": "from read_api"},
		"save_merge_request_review": {"project_id": "gitlab-org/gitlab-mcp", "merge_request_iid": 1, "method": "approve"},
		"save_pipeline":             {"project_id": "gitlab-org/gitlab-mcp", "ref": "main"},
		"save_note":                 {"project_id": "gitlab-org/gitlab-mcp", "merge_request_iid": 1, "body": "from read_api"},
		"manage_pipeline":           {"id": "gitlab-org/gitlab-mcp", "pipeline_id": 1},
		"save_work_item":            {"project_id": "gitlab-org/gitlab-mcp", "title": "from read_api", "type_name": "Task"},
		"link_work_items":           {"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 4, "work_items_ids": []any{"gid://gitlab/WorkItem/5"}},
	}
	before := toolsState(t, h)
	for _, tool := range append(slices.Clone(toolsUnlistedWrite), toolsWrite...) {
		if tool == "save_vulnerability" || tool == "attach_scan_profile" {
			continue // EE only: not a tool of the CE group
		}
		for _, era := range eras {
			desc := expect403Scope(t, h, ce, h.toolsCall(t, ce, era, "alice-ro", tool, writes[tool]), "mcp")
			if !strings.Contains(desc, tool) || !strings.Contains(desc, "read_api") {
				t.Errorf("%s %s: error_description %q should name the tool and read_api", era, tool, desc)
			}
		}
	}
	toolsExpectState(t, h, before)
	// A read tool works under the same token.
	sc := h.toolsRead(t, ce, "alice-ro", "get_issue", map[string]any{"id": "acme/secret-plans", "issue_iid": 1})
	toolsExpectField(t, sc, "Q3 acquisition shortlist", "title")
}
