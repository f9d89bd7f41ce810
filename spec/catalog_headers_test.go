package spec

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// GitLab's tool filter headers (doc/endpoint.md, "GitLab headers"; doc/tools.md,
// "Toolsets"), one row at a time, in both
// eras: X-Gitlab-Enabled-Mcp-Server-Tools, X-Gitlab-Enabled-Mcp-Server-
// Toolsets and X-Gitlab-Mcp-Server-Tool-Name-Prefix.

const (
	hdrTools    = "X-Gitlab-Enabled-Mcp-Server-Tools"
	hdrToolsets = "X-Gitlab-Enabled-Mcp-Server-Toolsets"
	hdrPrefix   = "X-Gitlab-Mcp-Server-Tool-Name-Prefix"
)

// GitLab's toolsets, as the catalog lists them (unlisted tools left out),
// from the catalog snapshot (catalog_snapshot_test.go); the EE-only tools
// are left out, except code_security's, which are all EE.
var (
	catalogMeta          = snapshotToolset("meta", false)
	catalogCore          = snapshotToolset("core", false) // + semantic_search on EE
	catalogWorkItems     = snapshotToolset("work_items", false)
	catalogWikis         = snapshotToolset("wikis", false)
	catalogCodeSecurity  = snapshotToolset("code_security", true) // EE
	catalogMergeRequests = snapshotToolset("merge_requests", false)
	catalogCI            = snapshotToolset("ci", false)
	catalogRepository    = snapshotToolset("repository", false)
)

// catalogUnion returns the sorted union of name lists.
func catalogUnion(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		for _, n := range l {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}

// catalogHeaders builds a header set from name/value pairs; a name may
// repeat (several header lines).
func catalogHeaders(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

// TestCatalog_filterHeaders: each row of the table lists exactly the
// expected tools on CE, in both eras.
func TestCatalog_filterHeaders(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	all, defaults := toolsAllCE, toolsCE
	tests := []struct {
		name string
		hdr  http.Header
		want []string
	}{
		{"no headers: the default toolsets", nil, defaults},
		{"tools: exactly the named tools, no meta", catalogHeaders(hdrTools, "search_labels"), []string{"search_labels"}},
		{"tools: entries trimmed", catalogHeaders(hdrTools, "  get_merge_request ,\tsearch  "), []string{"get_merge_request", "search"}},
		{"tools: the meta tool by name", catalogHeaders(hdrTools, "get_mcp_server_version"), catalogMeta},
		{"tools: an unlisted tool by name stays unlisted", catalogHeaders(hdrTools, "get_issue,search"), []string{"search"}},
		{"tools: blank is absent", catalogHeaders(hdrTools, "   "), defaults},
		{"tools: only commas and blanks is absent", catalogHeaders(hdrTools, " , ,, "), defaults},
		{"tools: an opt-in tool by name", catalogHeaders(hdrTools, "list_wiki_pages"), catalogWikis},
		{"tools: unknown names ignored, names case-sensitive", catalogHeaders(hdrTools, "search,nope,GET_MERGE_REQUEST"), []string{"search"}},
		{"tools: only unknown names list nothing", catalogHeaders(hdrTools, "nope"), []string{}},
		{"tools: an alias names its tool", catalogHeaders(hdrTools, "gitlab_search"), []string{"search"}},
		{"tools: several header lines", catalogHeaders(hdrTools, "search", hdrTools, "get_merge_request"), []string{"get_merge_request", "search"}},
		{"toolsets: one, meta always on", catalogHeaders(hdrToolsets, "ci"), catalogUnion(catalogMeta, catalogCI)},
		{"toolsets: duo_agent_platform, not available here", catalogHeaders(hdrToolsets, "duo_agent_platform"), catalogMeta},
		{"toolsets: lower-cased and trimmed", catalogHeaders(hdrToolsets, " CI , Merge_Requests "), catalogUnion(catalogMeta, catalogCI, catalogMergeRequests)},
		{"toolsets: meta alone", catalogHeaders(hdrToolsets, "meta"), catalogMeta},
		{"toolsets: core", catalogHeaders(hdrToolsets, "core"), catalogUnion(catalogMeta, catalogCore)},
		{"toolsets: work_items", catalogHeaders(hdrToolsets, "work_items"), catalogUnion(catalogMeta, catalogWorkItems)},
		{"toolsets: all", catalogHeaders(hdrToolsets, "all"), all},
		{"toolsets: ALL with others", catalogHeaders(hdrToolsets, "ci,ALL"), all},
		{"toolsets: blank is absent", catalogHeaders(hdrToolsets, " , "), defaults},
		{"toolsets: an empty header is absent", http.Header{hdrToolsets: {""}}, defaults},
		{"toolsets: the defaults by name", catalogHeaders(hdrToolsets, "core,merge_requests,work_items,repository,ci,duo_agent_platform"), defaults},
		{"toolsets and tools: union", catalogHeaders(hdrToolsets, "ci", hdrTools, "get_merge_request,search_labels"), catalogUnion(catalogMeta, catalogCI, []string{"get_merge_request", "search_labels"})},
		{"toolsets all and tools", catalogHeaders(hdrToolsets, "all", hdrTools, "get_issue"), all},
		{"header names are case-insensitive", http.Header{"x-gitlab-enabled-mcp-server-toolsets": {"ci"}}, catalogUnion(catalogMeta, catalogCI)},
		{"toolsets: repository", catalogHeaders(hdrToolsets, "repository"), catalogUnion(catalogMeta, catalogRepository)},
		{"toolsets: wikis (opt-in)", catalogHeaders(hdrToolsets, "wikis"), catalogUnion(catalogMeta, catalogWikis)},
	}
	for _, tt := range tests {
		for _, era := range eras {
			t.Run(era+"/"+tt.name, func(t *testing.T) {
				body, hd := h.parts(t, call{Era: era, User: "alice", Method: "tools/list"})
				for k, v := range tt.hdr { // raw names: case as given
					hd[k] = v
				}
				r := h.send(t, call{URL: ce.URL, Body: body, Header: hd})
				r.expectStatus(t, http.StatusOK)
				validateResult(t, eraRev(era), "ListToolsResult", r.Body)
				res := r.result(t)
				if got := toolNames(t, res); !slices.Equal(got, tt.want) {
					t.Errorf("tools = %v\nwant  %v", got, tt.want)
				}
				if era == "modern" {
					expectCache(t, res, "private")
				}
			})
		}
	}
	// The EE group's core toolset holds the EE tool.
	for _, era := range eras {
		p := h.catalogList(t, h.groups()[1], era, "alice", catalogHeaders(hdrToolsets, "core"), "")
		if want := catalogUnion(catalogMeta, catalogCore, []string{"semantic_search"}); !slices.Equal(p.Names, want) {
			t.Errorf("EE %s core: %v, want %v", era, p.Names, want)
		}
	}
}

// TestCatalog_filterHeadersCall: the tools and toolsets headers filter
// tools/list only; tools/call of a tool they leave out still works. An
// unknown toolset is refused on both methods.
func TestCatalog_filterHeadersCall(t *testing.T) {
	h := startServer(t)
	ce := h.groups()[0]
	for _, era := range eras {
		for _, hdr := range []http.Header{catalogHeaders(hdrTools, "get_issue"), catalogHeaders(hdrTools, "get_issue", hdrToolsets, "ci")} {
			r := h.send(t, call{Era: era, URL: ce.URL, User: "alice", Method: "tools/call", Header: hdr, Params: map[string]any{
				"name": "search_labels", "arguments": map[string]any{"full_path": "gitlab-org/gitlab-mcp", "is_project": true}}})
			sc := toolsSucceeded(t, toolsResult(t, ce, era, r))
			toolsExpectField(t, sc, 5, "pageInfo", "total")
		}
		for _, method := range []string{"tools/list", "tools/call"} {
			params := map[string]any{}
			if method == "tools/call" {
				params = map[string]any{"name": "get_mcp_server_version", "arguments": map[string]any{}}
			}
			// GitLab's Toolsets.parse: every unknown name, lower-cased, in
			// header order, then ALL in GitLab's order ("all" not among them).
			for bad, names := range map[string]string{"nope": "nope", "ci,nope": "nope", "CI, Wiki": "wiki", "all,nope": "nope", "Foo,core,BAR": "foo, bar"} {
				body, hd := h.parts(t, call{Era: era, User: "alice", Method: method, Params: params})
				hd.Set(hdrToolsets, bad)
				msg, data := h.send(t, call{URL: ce.URL, Body: body, Header: hd}).expectError(t, rpcStatus(era, http.StatusBadRequest), -32602)
				want := "Unknown toolsets: " + names + ". Valid toolsets: meta, core, merge_requests, work_items, repository, ci, duo_agent_platform, wikis, code_security"
				if msg != want || toolsDig(data, "params") != want {
					t.Errorf("%s %s %q: message %q data %v\nwant %q", era, method, bad, msg, data, want)
				}
			}
		}
	}
}

// TestCatalog_prefixHeader: the prefix is added in tools/list and stripped
// in tools/call; with a prefix set only prefixed names exist; at most 32
// characters of [A-Za-z0-9_-].
func TestCatalog_prefixHeader(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	callWith := func(t *testing.T, era, prefix, name string, args map[string]any) *response {
		t.Helper()
		body, hd := h.parts(t, call{Era: era, User: "alice", Method: "tools/call", Params: map[string]any{"name": name, "arguments": args}})
		hd.Set(hdrPrefix, prefix)
		return h.send(t, call{URL: ce.URL, Body: body, Header: hd})
	}
	issue := map[string]any{"id": "gitlab-org/gitlab-mcp", "issue_iid": 2}
	want := h.toolsRead(t, ce, "alice", "get_issue", issue)
	p32 := strings.Repeat("ab_-", 8)
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			for _, c := range []struct{ header, prefix string }{{"gl_", "gl_"}, {"  my-Agent_1  ", "my-Agent_1"}, {p32, p32}} {
				p := h.catalogList(t, ce, era, "alice", catalogHeaders(hdrPrefix, c.header), "")
				wantNames := make([]string, len(toolsCE))
				for i, n := range toolsCE {
					wantNames[i] = c.prefix + n
				}
				if !slices.Equal(p.Names, wantNames) {
					t.Errorf("prefix %q: tools = %v", c.header, p.Names)
				}
				sc := toolsSucceeded(t, toolsResult(t, ce, era, callWith(t, era, c.header, c.prefix+"get_issue", issue)))
				if !slices.Equal(toolsField([]any{sc}, "title"), toolsField([]any{want}, "title")) || toolsDig(sc, "iid") == nil {
					t.Errorf("prefixed call answered %v", sc)
				}
			}
			// Combined with a filter, which names tools unprefixed.
			p := h.catalogList(t, ce, era, "alice", catalogHeaders(hdrPrefix, "gl_", hdrTools, "search,get_issue"), "")
			if !slices.Equal(p.Names, []string{"gl_search"}) {
				t.Errorf("prefix and tools header: %v", p.Names)
			}
			// With a prefix, the bare name is not a tool; neither is the
			// prefix alone or another prefix.
			for _, name := range []string{"get_issue", "gl_", "xx_get_issue", "gl_gl_get_issue"} {
				msg, data := callWith(t, era, "gl_", name, issue).expectError(t, rpcStatus(era, http.StatusBadRequest), -32602)
				if want := "Tool '" + name + "' not found."; msg != want || toolsDig(data, "params") != want || toolsDig(data, "name") != name {
					t.Errorf("call %q under prefix gl_: message %q data %v", name, msg, data)
				}
			}
			// Too long or off the alphabet: refused on both methods.
			for _, bad := range []string{p32 + "x", "gl.", "gl/", "gl prefix", "préfixe"} {
				body, hd := h.parts(t, call{Era: era, User: "alice", Method: "tools/list"})
				hd.Set(hdrPrefix, bad)
				msg, _ := h.send(t, call{URL: ce.URL, Body: body, Header: hd}).expectError(t, rpcStatus(era, http.StatusBadRequest), -32602)
				if !strings.Contains(msg, hdrPrefix) {
					t.Errorf("list with prefix %q: message %q", bad, msg)
				}
				msg, _ = callWith(t, era, bad, "get_issue", issue).expectError(t, rpcStatus(era, http.StatusBadRequest), -32602)
				if !strings.Contains(msg, hdrPrefix) {
					t.Errorf("call with prefix %q: message %q", bad, msg)
				}
			}
		})
	}
}
