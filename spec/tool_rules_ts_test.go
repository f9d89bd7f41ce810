package spec

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
)

// TestToolRules_typeScriptAsk runs the official TypeScript client through
// an Ask flow (interop/ts/tool-rules-ask.test.mjs) and checks the store:
// the accepted call wrote one issue, the declined one none.
func TestToolRules_typeScriptAsk(t *testing.T) {
	node := requireNode(t)
	h := startServer(t)
	setRule(t, h, rulesProject, "create_issue", models.RuleAsk)
	before := authIssueCount(t, h, rulesProject)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", "tool-rules-ask.test.mjs")
	cmd.Dir = interopTSDir
	cmd.Env = append(os.Environ(), "GLMCP_URL="+h.CE, "GLMCP_TOKEN="+h.Tokens["alice"], "GLMCP_PROJECT="+rulesProject, "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
	if after := authIssueCount(t, h, rulesProject); after != before+1 {
		t.Fatalf("issues %d → %d, want exactly one (accepted) written", before, after)
	}
}
