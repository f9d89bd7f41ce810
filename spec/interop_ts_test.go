package spec

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// interopTSDir holds the TypeScript interop spec (its own package.json and
// lock file; CI runs `npm ci` there).
const interopTSDir = "../interop/ts"

// requireNode returns the node binary, skipping the test when node or the
// installed client package is missing, unless CI=true, where both must be
// there.
func requireNode(t *testing.T) string {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("CI") == "true" {
			t.Fatalf(format+" (CI=true: the interop spec must run; `npm ci` in interop/ts)", args...)
		}
		t.Skipf(format+"; to run it: cd interop/ts && npm ci", args...)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	if _, err := os.Stat(filepath.Join(interopTSDir, "node_modules", "@modelcontextprotocol", "client", "package.json")); err != nil {
		missing("interop/ts/node_modules is missing")
	}
	return node
}

// TestInteropTS_oauthDiscovery runs the official TypeScript client against
// glmcp: given only the endpoint URL and a pre-registered client id, it must
// find the authorization server from the 401, sign in with the
// authorization code flow and PKCE, and then list and call tools in both
// eras.
func TestInteropTS_oauthDiscovery(t *testing.T) {
	node := requireNode(t)
	iss := newTestIssuer(t)
	h := startServer(t, withOAuth(iss), withEE())
	const (
		clientID    = "glmcp-interop-ts"
		redirectURI = "http://127.0.0.1:33418/callback"
	)
	iss.as.preRegister(clientID, redirectURI, h.userID(t, "alice"), h.CE, h.EE)

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", "oauth-discovery.test.mjs")
	cmd.Dir = interopTSDir
	cmd.Env = append(os.Environ(),
		"GLMCP_URL="+h.CE,
		"GLMCP_AS_URL="+iss.URL,
		"GLMCP_CLIENT_ID="+clientID,
		"GLMCP_REDIRECT_URI="+redirectURI,
		"NO_COLOR=1",
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
	t.Logf("node --test:\n%s", out)

	authz, exchanges := iss.as.record()
	if len(authz) != 1 {
		t.Fatalf("authorization requests = %+v, want exactly one", authz)
	}
	a := authz[0]
	if !a.Approved || a.ClientID != clientID || a.RedirectURI != redirectURI || a.ChallengeMethod != "S256" || a.Resource != h.CE || a.Scope != "mcp" {
		t.Fatalf("authorization request = %+v, want client %s, S256, resource %s, scope mcp", a, clientID, h.CE)
	}
	if len(exchanges) != 1 {
		t.Fatalf("token requests = %+v, want exactly one", exchanges)
	}
	x := exchanges[0]
	if !x.Issued || !x.PKCEVerified || x.GrantType != "authorization_code" || x.ClientID != clientID || x.Resource != h.CE || x.Scope != "mcp" {
		t.Fatalf("token request = %+v, want a PKCE-verified authorization_code exchange for %s", x, h.CE)
	}
}

// TestInteropTS_legacyErrors runs the official TypeScript client against
// glmcp (interop/ts/legacy-errors.test.mjs): in the Legacy era an unknown
// tool, an unknown prompt and an unknown method must reach the caller as
// JSON-RPC errors with their code and message, not as a transport error
// (issue #13 item 9); in the Modern era the 400 does too.
func TestInteropTS_legacyErrors(t *testing.T) {
	node := requireNode(t)
	h := startServer(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", "legacy-errors.test.mjs")
	cmd.Dir = interopTSDir
	cmd.Env = append(os.Environ(), "GLMCP_URL="+h.CE, "GLMCP_TOKEN="+h.Tokens["alice"], "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
	t.Logf("node --test:\n%s", out)
}

// TestInteropClients runs interop/ts/clients.test.mjs: the TypeScript SDK
// v1 and v2, the LangChain.js MCP adapters, the MCP Inspector CLI and
// Claude Code's `claude mcp list` against glmcp's two endpoints, in every
// era each speaks, and with a revoked token and a read_api token on Orbit,
// whose printed reason must say what is wrong and what to do (issue #20).
func TestInteropClients(t *testing.T) {
	node := requireNode(t)
	for _, p := range []string{
		"node_modules/@modelcontextprotocol/sdk/package.json",
		"node_modules/@langchain/mcp-adapters/package.json",
		"node_modules/@modelcontextprotocol/inspector-cli/build/index.js",
		"node_modules/.bin/claude",
	} {
		if _, err := os.Stat(filepath.Join(interopTSDir, p)); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("interop/ts/%s is missing (npm ci)", p)
			}
			t.Skipf("interop/ts/%s is missing; cd interop/ts && npm ci", p)
		}
	}
	h := startServer(t, withEE())
	revoked, rt := authMint(t, h, "alice", []string{"mcp"}, nil)
	if err := h.Env.Store.Users.RevokeToken(context.Background(), rt.ID); err != nil {
		t.Fatal(err)
	}
	readAPI, _ := authMint(t, h, "alice", []string{"read_api"}, nil)

	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", "clients.test.mjs")
	cmd.Dir = interopTSDir
	cmd.Env = append(os.Environ(),
		"GLMCP_URL="+h.CE, "GLMCP_EE_URL="+h.EE,
		"GLMCP_TOKEN="+h.Tokens["alice"],
		"GLMCP_REVOKED_TOKEN="+revoked, "GLMCP_REVOKED_REASON="+reasonRevoked,
		"GLMCP_READAPI_TOKEN="+readAPI,
		"GLMCP_READAPI_EE_REASON=Personal access token lacks a scope this endpoint accepts (mcp_orbit, mcp, api or ai_workflows). Create a token with the mcp scope. Its scopes: read_api.",
		"NO_COLOR=1",
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
	t.Logf("node --test:\n%s", out)
}
