package gitlab_test

import (
	"context"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// TestProjectTarget_writeRulesReadTheToolsResolution: a write tool that
// declares its project (manage_pipeline) or merge request
// (accept_merge_request) as its Target is governed by the rule of the
// project the tool resolves, also when the object it names is missing
// there; with the rule lifted, the tool's own not found answers.
func TestProjectTarget_writeRulesReadTheToolsResolution(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	svc := newRulesService(t, w, publicURL)
	mcp := w.project("gitlab-org/gitlab-mcp")
	p := &models.Pipeline{ProjectID: mcp.ID, SHA: "abababababababababababababababababababab", Ref: "main",
		Status: models.StatusSuccess, Source: models.PipelineSourcePush}
	if err := w.st.CI.CreatePipeline(ctx, p); err != nil {
		t.Fatal(err)
	}
	setRule := func(t *testing.T, tool string, rule models.ToolRuleKind) {
		t.Helper()
		if err := w.st.Tools.SetToolRule(ctx, &models.ToolRule{ProjectID: &mcp.ID, Tool: tool, Rule: rule}); err != nil {
			t.Fatal(err)
		}
	}
	pipelines := func(t *testing.T) int64 {
		return storetest.Int(t, w.st, "SELECT COUNT(*) FROM ci_pipelines WHERE project_id = ?", mcp.ID)
	}
	for _, c := range []struct {
		tool    string
		args    map[string]any
		missing map[string]any
		want404 string
	}{
		{"manage_pipeline", map[string]any{"id": mcp.PathWithNamespace, "pipeline_id": p.ID},
			map[string]any{"id": mcp.PathWithNamespace, "pipeline_id": 999999}, "404 Pipeline Not Found"},
		{"accept_merge_request", map[string]any{"project_id": mcp.PathWithNamespace, "merge_request_iid": 999999, "sha": "0000000"},
			map[string]any{"project_id": mcp.PathWithNamespace, "merge_request_iid": 999999, "sha": "0000000"}, "404 Merge Request Not Found"},
	} {
		t.Run(c.tool, func(t *testing.T) {
			setRule(t, c.tool, models.RuleDeny)
			before := pipelines(t)
			wantDenied(t, callRules(t, svc, w.Alice, c.tool, c.args, nil), c.tool, mcp.PathWithNamespace)
			wantDenied(t, callRules(t, svc, w.Alice, c.tool, c.missing, nil), c.tool, mcp.PathWithNamespace)
			if n := pipelines(t); n != before {
				t.Fatalf("pipelines %d → %d, want nothing deleted", before, n)
			}
			setRule(t, c.tool, models.RuleAllow)
			res := callRules(t, svc, w.Alice, c.tool, c.missing, nil)
			if !res.IsError || res.Refused || res.ErrorClass != "not_found" || res.Text != c.want404 {
				t.Fatalf("result %+v, want the tool's %s", res, c.want404)
			}
		})
	}
}
