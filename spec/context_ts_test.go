package spec

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestContext_typeScriptClient runs the official TypeScript client's
// resources, prompts and completions against glmcp in both eras, and a
// resource subscription on a 2026-07-28 listen stream
// (interop/ts/context.test.mjs).
func TestContext_typeScriptClient(t *testing.T) {
	node := requireNode(t)
	h := startServer(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", "context.test.mjs")
	cmd.Dir = interopTSDir
	cmd.Env = append(os.Environ(), "GLMCP_URL="+h.CE, "GLMCP_BASE="+h.Cfg.PublicURL, "GLMCP_TOKEN="+h.Tokens["alice"], "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
}
