package spec

import (
	"testing"
)

// Benchmarks of glmcp through its full HTTP stack (Modern era, the CE
// group, alice's personal access token): the first and a deep page of
// tools/list over a catalog of ~3,000 tools, and tools/call get_issue on
// the demo data. Results and the commands that produced them are in
// doc/performance.md ("HTTP stack").
//
//	go test ./spec/ -run '^$' -bench 'ToolsList|GetIssue' -benchtime 3s
//	GLMCP_TEST_DATABASE_URL=postgres://… go test ./spec/ -run '^$' -bench 'ToolsList|GetIssue'

// benchDeepPage is the page BenchmarkToolsListDeepPage asks for.
const benchDeepPage = 20

// benchCatalogServer starts a server (page size 100) with the catalog
// fixture registered.
func benchCatalogServer(b *testing.B, opts ...option) *harness {
	b.Helper()
	h := startServer(b, append(opts, catalogPageSize(100))...)
	catalogFixture(b, h)
	return h
}

func BenchmarkToolsListFirstPage(b *testing.B) {
	benchBackends(b, func(b *testing.B, opts ...option) {
		h := benchCatalogServer(b, opts...)
		body, hd := h.parts(b, call{Era: modern, User: "alice", Method: "tools/list"})
		benchRun(b, newBenchRequest(h.CE, body, hd, `"nextCursor"`))
	})
}

func BenchmarkToolsListDeepPage(b *testing.B) {
	benchBackends(b, func(b *testing.B, opts ...option) {
		h := benchCatalogServer(b, opts...)
		ce := h.groups()[0]
		cursor := ""
		for page := 1; page < benchDeepPage; page++ {
			cursor = h.catalogList(b, ce, "modern", "alice", nil, cursor).NextCursor
			if cursor == "" {
				b.Fatalf("the catalog ends before page %d", benchDeepPage)
			}
		}
		body, hd := h.parts(b, call{Era: modern, User: "alice", Method: "tools/list", Params: map[string]any{"cursor": cursor}})
		benchRun(b, newBenchRequest(h.CE, body, hd, `"nextCursor"`))
	})
}

func BenchmarkGetIssue(b *testing.B) {
	benchBackends(b, func(b *testing.B, opts ...option) {
		h := startServer(b, opts...)
		body, hd := h.parts(b, call{Era: modern, User: "alice", Method: "tools/call", Params: map[string]any{
			"name": "get_issue", "arguments": map[string]any{"id": "gitlab-org/gitlab-mcp", "issue_iid": 2}}})
		benchRun(b, newBenchRequest(h.CE, body, hd, `"structuredContent":{"id":2,"iid":2`))
	})
}

// BenchmarkSearchIssues is a rare-term search of the instance through the
// whole stack: on the demo data the query is a few rows, so what it
// measures is the fixed cost a search pays around its query (profiled in
// doc/performance.md, "Where a search's time goes").
func BenchmarkSearchIssues(b *testing.B) {
	benchBackends(b, func(b *testing.B, opts ...option) {
		h := startServer(b, opts...)
		body, hd := h.parts(b, call{Era: modern, User: "alice", Method: "tools/call", Params: map[string]any{
			"name": "search", "arguments": map[string]any{"scope": "issues", "search": "nebula"}}})
		benchRun(b, newBenchRequest(h.CE, body, hd, `Nebula`))
	})
}
