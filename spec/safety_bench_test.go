package spec

import (
	"os"
	"testing"

	"gitlab.com/glmcp/glmcp/app"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// BenchmarkSafetyGetIssue: get_issue through the full HTTP stack on
// PostgreSQL with the sanitize and audit links (on) and without them
// (off, GLMCP_SANITIZE=false and GLMCP_AUDIT=false), in one process, so
// its cpu-µs/op is glmcp's own CPU per call beside the client's; the
// database's share of the audit rows is outside it (scripts/bench
// measures both). With -count the two alternate. doc/performance.md
// ("Safety defences") has the figures.
//
//	GLMCP_TEST_DATABASE_URL=postgres://… go test ./spec -run '^$' -bench SafetyGetIssue -benchtime 20000x -count 3
func BenchmarkSafetyGetIssue(b *testing.B) {
	if os.Getenv(storetest.EnvDatabaseURL) == "" {
		b.Skip(storetest.EnvDatabaseURL + " is not set")
	}
	for _, c := range []struct {
		name string
		on   bool
	}{{"on", true}, {"off", false}} {
		b.Run(c.name, func(b *testing.B) {
			h := startServer(b, withSanitize(c.on), func(cfg *app.Config) { cfg.Audit = c.on })
			body, hd := h.parts(b, call{Era: modern, User: "alice", Method: "tools/call", Params: map[string]any{
				"name": "get_issue", "arguments": map[string]any{"id": "gitlab-org/gitlab-mcp", "issue_iid": 2}}})
			benchRun(b, newBenchRequest(h.CE, body, hd, `"structuredContent":{"id":2,"iid":2`))
		})
	}
}
