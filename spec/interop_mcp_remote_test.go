package spec

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/handlers/wellknown"
)

// TestInteropMCPRemote_noOAuthTrap runs mcp-remote (the stdio bridge many
// clients use) against glmcp without an authorization server, with a
// wrong token: the user must read what to fix, not "Dynamic Client
// Registration rejected (404)" followed by "SSE error 405"; and with a good
// token it connects and lists tools.
func TestInteropMCPRemote_noOAuthTrap(t *testing.T) {
	node := requireNode(t)
	client := filepath.Join(interopTSDir, "node_modules", "mcp-remote", "dist", "client.js")
	if _, err := os.Stat(client); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("mcp-remote is not installed in interop/ts (npm ci)")
		}
		t.Skip("mcp-remote is not installed; cd interop/ts && npm ci")
	}
	h := startServer(t)
	run := func(token string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, node, client, h.CE, "--header", "Authorization: Bearer "+token)
		// Its own HOME: no token cache shared with the user or other runs.
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "NO_COLOR=1")
		out, _ := cmd.CombinedOutput()
		if ctx.Err() != nil {
			t.Fatalf("mcp-remote did not finish within 90s:\n%s", out)
		}
		return string(out)
	}

	out := run("glpat-" + strings.Repeat("w", 20))
	// The description's first sentence (the output escapes its quotes).
	if first, _, _ := strings.Cut(wellknown.NoRegistrationDescription, ". "); !strings.Contains(out, first) || !strings.Contains(out, "personal access token") {
		t.Fatalf("mcp-remote output does not tell the user which token to send:\n%s", out)
	}
	for _, trap := range []string{"SSE error", "HTTP 404", "(405)", "Waiting for authorization"} {
		if strings.Contains(out, trap) {
			t.Errorf("mcp-remote output contains %q:\n%s", trap, out)
		}
	}

	out = run(h.Tokens["alice"])
	if !strings.Contains(out, "Connected successfully") || strings.Contains(out, "Authentication required") {
		t.Fatalf("mcp-remote with a valid token did not connect:\n%s", out)
	}
}
