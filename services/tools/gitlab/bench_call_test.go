package gitlab_test

import (
	"context"
	"encoding/json"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// BenchmarkCallChain measures whole tools/call runs through the tool
// service (Service.Call: every link of the chain, the tool rules on): a
// read (get_work_item, a Target) and a write (create_issue, its project
// looked up once for the rules and the tool). Its allocs/op is the figure
// doc/performance.md compares across changes of the call path.
func BenchmarkCallChain(b *testing.B) {
	w := newWorld(b)
	svc := newRulesService(b, w, publicURL)
	id := &models.Identity{User: w.Alice, Method: models.MethodPAT, Scopes: []string{models.ScopeAPI}}
	ctx := context.Background()
	for _, bc := range []struct{ name, tool, args string }{
		{"get_work_item", "get_work_item", `{"project_id":"gitlab-org/gitlab-mcp","work_item_iid":1}`},
		{"create_issue", "create_issue", `{"id":"gitlab-org/gitlab-mcp","title":"Benchmarked"}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req := tools.CallRequest{Scope: models.Scope{Edition: models.EditionCE, Identity: id}, Name: bc.tool, Arguments: json.RawMessage(bc.args)}
			b.ReportAllocs()
			for b.Loop() {
				res, err := svc.Call(ctx, req)
				if err != nil || res.IsError {
					b.Fatalf("%s: %v %+v", bc.tool, err, res)
				}
			}
		})
	}
}
