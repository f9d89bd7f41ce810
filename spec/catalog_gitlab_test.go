package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/services/tools/gitlab"
)

// GitLab 19.5's tool catalog, tool by tool, as both groups list it: which
// tools each toolsets header lists, and each listed tool's annotations,
// description and schemas, against the catalog snapshot
// (catalog_snapshot_test.go; doc/tools.md's "GitLab 19.5's catalog, tool
// by tool" is generated from the same file).

// gitlabListed returns, in byte order, the tools listed on a group of
// edition ee under the toolsets in sets ("all" for every one).
func gitlabListed(ee bool, sets ...string) []string {
	return snapshotNames(func(r snapshotTool) bool {
		if r.Status != "listed" || (r.ee() && !ee) {
			return false
		}
		return r.Toolset == "meta" || slices.Contains(sets, "all") || slices.Contains(sets, r.Toolset)
	})
}

// gitlabDefaultToolsets are GitLab 19.5's Toolsets::DEFAULT.
var gitlabDefaultToolsets = []string{"core", "merge_requests", "work_items", "repository", "ci", "duo_agent_platform"}

// schemaSignature renders an inputSchema's properties in byte order as
// "name[!]:type[|type][(enum,…)]", ! marking a required one.
func schemaSignature(schema any) string {
	m, _ := schema.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	var required []string
	if r, ok := m["required"].([]any); ok {
		for _, x := range r {
			required = append(required, fmt.Sprint(x))
		}
	}
	var out []string
	for name, p := range props {
		pm, _ := p.(map[string]any)
		var ty string
		switch v := pm["type"].(type) {
		case string:
			ty = v
		case []any:
			parts := make([]string, len(v))
			for i, x := range v {
				parts[i] = fmt.Sprint(x)
			}
			ty = strings.Join(parts, "|")
		}
		if e, ok := pm["enum"].([]any); ok {
			parts := make([]string, len(e))
			for i, x := range e {
				parts[i] = fmt.Sprint(x)
			}
			ty += "(" + strings.Join(parts, ",") + ")"
		}
		req := ""
		if slices.Contains(required, name) {
			req = "!"
		}
		out = append(out, name+req+":"+ty)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// TestCatalog_gitlabListings: on each group, in both eras, the listing
// without a toolsets header is GitLab's default toolsets plus meta; "all"
// adds the opt-in wikis and code_security; each toolset alone lists its
// tools and meta; a blank header is no header; the tools header lists
// exactly the tools it names, and with toolsets the union. Tools GitLab
// marks unlisted, and those glmcp cannot offer, are never listed.
func TestCatalog_gitlabListings(t *testing.T) {
	h := startServer(t, withEE())
	for _, g := range h.groups() {
		ee := g.Name == "EE"
		rows := []struct {
			name string
			hdr  http.Header
			want []string
		}{
			{"no header", nil, gitlabListed(ee, gitlabDefaultToolsets...)},
			{"blank toolsets header", catalogHeaders(hdrToolsets, " , "), gitlabListed(ee, gitlabDefaultToolsets...)},
			{"blank tools header", catalogHeaders(hdrTools, ","), gitlabListed(ee, gitlabDefaultToolsets...)},
			{"the default toolsets named", catalogHeaders(hdrToolsets, strings.Join(gitlabDefaultToolsets, ",")), gitlabListed(ee, gitlabDefaultToolsets...)},
			{"all", catalogHeaders(hdrToolsets, "all"), gitlabListed(ee, "all")},
			{"all beside a toolset", catalogHeaders(hdrToolsets, "wikis,All"), gitlabListed(ee, "all")},
			{"the opt-in toolsets", catalogHeaders(hdrToolsets, "wikis,code_security"), gitlabListed(ee, "wikis", "code_security")},
			{"two toolsets", catalogHeaders(hdrToolsets, "ci,merge_requests"), gitlabListed(ee, "ci", "merge_requests")},
			{"toolsets and tools: union", catalogHeaders(hdrToolsets, "ci", hdrTools, "get_work_item,list_wiki_pages"),
				catalogUnion(gitlabListed(ee, "ci"), []string{"get_work_item", "list_wiki_pages"})},
			{"tools alone: exactly those, no meta", catalogHeaders(hdrTools, "list_branches,fork_repository"), []string{"fork_repository", "list_branches"}},
			{"tools: unlisted and unavailable tools stay unlisted", catalogHeaders(hdrTools, "get_issue,start_duo_session,get_saved_view_work_items,search"), []string{"search"}},
		}
		for _, ts := range []string{"meta", "core", "merge_requests", "work_items", "repository", "ci", "duo_agent_platform", "wikis", "code_security"} {
			rows = append(rows, struct {
				name string
				hdr  http.Header
				want []string
			}{"toolset " + ts, catalogHeaders(hdrToolsets, ts), gitlabListed(ee, ts)})
		}
		for _, row := range rows {
			for _, era := range eras {
				if got := toolsNames(h.toolsList(t, g, era, "alice", row.hdr)); !slices.Equal(got, row.want) {
					t.Errorf("%s %s %s:\n got  %v\n want %v", g.Name, era, row.name, got, row.want)
				}
			}
		}
	}
}

// TestCatalog_gitlabSchemas: every tool the EE group lists with "all" is
// the snapshot's listed tool: toolset, annotations, title, description and
// input and output schemas; the CE group lists the same definitions.
func TestCatalog_gitlabSchemas(t *testing.T) {
	h := startServer(t, withEE())
	byName := map[string]snapshotTool{}
	for _, r := range catalogSnapshot() {
		byName[r.Name] = r
	}
	for _, g := range h.groups() {
		for _, era := range eras {
			for _, tool := range h.toolsList(t, g, era, "alice", catalogHeaders(hdrToolsets, "all")) {
				name := tool["name"].(string)
				r, ok := byName[name]
				if !ok || r.Status != "listed" {
					t.Errorf("%s %s: %s is listed, but the snapshot has it %q", g.Name, era, name, r.Status)
					continue
				}
				for _, f := range []struct {
					what string
					want json.RawMessage
				}{{"inputSchema", r.InputSchema}, {"outputSchema", r.OutputSchema}} {
					var got json.RawMessage
					if v, ok := tool[f.what]; ok {
						got, _ = json.Marshal(v)
					}
					if !jsonSame(got, f.want) {
						t.Errorf("%s %s %s %s:\n got  %s\n want %s", g.Name, era, name, f.what, got, f.want)
					}
				}
				if toolsDig(tool, "inputSchema", "type") != "object" || toolsDig(tool, "inputSchema", "additionalProperties") != false {
					t.Errorf("%s: inputSchema %v is not a closed object", name, tool["inputSchema"])
				}
				if tool["title"] != r.Title || tool["description"] != r.Description {
					t.Errorf("%s: title %q description %q, want the snapshot's %q %q", name, tool["title"], tool["description"], r.Title, r.Description)
				}
				if got := toolsDig(tool, "annotations", "toolset"); got != r.Toolset {
					t.Errorf("%s: toolset %v, want %s", name, got, r.Toolset)
				}
				if got := toolsDig(tool, "annotations", "readOnlyHint"); got != r.Annotations.ReadOnlyHint {
					t.Errorf("%s: readOnlyHint %v, want %v", name, got, r.Annotations.ReadOnlyHint)
				}
				if got, _ := toolsDig(tool, "annotations", "destructiveHint").(bool); got != r.destructive() {
					t.Errorf("%s: destructiveHint %v, want %v", name, got, r.destructive())
				}
			}
		}
	}
}

// TestCatalog_gitlabUnlisted: GitLab's unlisted tools answer by name on
// both groups; the tools glmcp cannot offer answer isError with GitLab's
// "not available" wording and write nothing.
func TestCatalog_gitlabUnlisted(t *testing.T) {
	h := startServer(t, withEE())
	args := map[string]map[string]any{
		"get_issue":                 {"id": "gitlab-org/gitlab-mcp", "issue_iid": 1},
		"get_workitem_notes":        {"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 1},
		"start_duo_session":         {"project_id": "gitlab-org/gitlab-mcp", "ai_catalog_item_consumer_id": 1, "goal": "Fix the flaky spec"},
		"send_duo_session_input":    {"workflow_id": 1, "human_approval": true},
		"get_duo_session":           {"workflow_id": 1},
		"list_duo_sessions":         {},
		"list_duo_agents_and_flows": {"project_id": "gitlab-org/gitlab-mcp"},
	}
	before := toolsState(t, h)
	for _, g := range h.groups() {
		for _, r := range catalogSnapshot() {
			a, ok := args[r.Name]
			if !ok {
				continue
			}
			switch r.Status {
			case "unlisted":
				toolsSucceeded(t, toolsResult(t, g, modern, h.toolsCall(t, g, modern, "alice", r.Name, a)))
			case "unavailable":
				want := "GitLab Duo Agent Platform is not available for this namespace: this instance has no GitLab Duo " +
					"Agent Platform, so " + r.Name + " cannot run."
				if text := h.toolsFail(t, g, "alice", r.Name, a); text != want {
					t.Errorf("%s %s: %q\nwant %q", g.Name, r.Name, text, want)
				}
			default:
				t.Fatalf("%s is %s", r.Name, r.Status)
			}
		}
	}
	toolsExpectState(t, h, before)
	// start_duo_session: GitLab's schema and annotations, though unlisted.
	for _, d := range gitlab.Tools(gitlab.Deps{}) {
		if d.Name != "start_duo_session" {
			continue
		}
		if a := d.Annotations; a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint {
			t.Errorf("start_duo_session annotations %+v, want GitLab's readOnlyHint false, destructiveHint true", a)
		}
		var schema any
		if err := json.Unmarshal(d.InputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		if got, want := schemaSignature(schema), "ai_catalog_item_consumer_id!:integer goal!:string project_id!:string"; got != want {
			t.Errorf("start_duo_session parameters %s, want %s", got, want)
		}
	}
}

// TestCatalog_gitlabUnknown: an unknown tool and an unknown toolset answer
// GitLab's -32602 with its text in data.params (and in the message, which
// is what clients show).
func TestCatalog_gitlabUnknown(t *testing.T) {
	h := startServer(t, withEE())
	for _, g := range h.groups() {
		for _, era := range eras {
			msg, data := h.toolsCall(t, g, era, "alice", "no_such_tool", map[string]any{}).expectError(t, rpcStatus(era, http.StatusBadRequest), -32602)
			if want := "Tool 'no_such_tool' not found."; msg != want || toolsDig(data, "params") != want {
				t.Errorf("%s %s unknown tool: %q %v", g.Name, era, msg, data)
			}
			body, hd := h.parts(t, call{Era: era, User: "alice", Method: "tools/list"})
			hd.Set(hdrToolsets, "CI,Bogus")
			msg, data = h.send(t, call{URL: g.URL, Body: body, Header: hd}).expectError(t, rpcStatus(era, http.StatusBadRequest), -32602)
			want := "Unknown toolsets: bogus. Valid toolsets: meta, core, merge_requests, work_items, repository, ci, duo_agent_platform, wikis, code_security"
			if msg != want || toolsDig(data, "params") != want {
				t.Errorf("%s %s unknown toolset: %q %v", g.Name, era, msg, data)
			}
		}
	}
}

// jsonSame reports whether a and b are the same JSON value (numbers
// compared as written; both absent is the same).
func jsonSame(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	decode := func(r json.RawMessage) (any, bool) {
		d := json.NewDecoder(bytes.NewReader(r))
		d.UseNumber()
		var v any
		return v, d.Decode(&v) == nil
	}
	va, okA := decode(a)
	vb, okB := decode(b)
	return okA && okB && reflect.DeepEqual(va, vb)
}
