package spec

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestInteropMCPRemote_noOAuthTrap runs mcp-remote (the stdio bridge many
// clients use) against glmcp without an authorization server. With a
// token the endpoint refuses, mcp-remote follows the 401 (or the 403 of a
// missing scope) into OAuth discovery and dynamic client registration and
// prints only the registration error: that error must say what is wrong
// with the token and what to do (issue #20 item 8), and none of the
// misleading traps may appear. With a good token it connects.
func TestInteropMCPRemote_noOAuthTrap(t *testing.T) {
	node, client := requireMCPRemote(t, "client.js")
	h := startServer(t, withEE())
	run := func(url, token string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, node, client, url, "--header", "Authorization: Bearer "+token)
		// Its own HOME: no token cache shared with the user or other runs.
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "NO_COLOR=1")
		out, _ := cmd.CombinedOutput()
		if ctx.Err() != nil {
			t.Fatalf("mcp-remote did not finish within 90s:\n%s", out)
		}
		return string(out)
	}
	revoked, rt := authMint(t, h, "alice", []string{"mcp"}, nil)
	if err := h.Env.Store.Users.RevokeToken(context.Background(), rt.ID); err != nil {
		t.Fatal(err)
	}
	readAPI, _ := authMint(t, h, "alice", []string{"read_api"}, nil)
	for _, tt := range []struct {
		name, url, token, want string
	}{
		{"unknown token", h.CE, "glpat-" + strings.Repeat("w", 20), reasonInvalid},
		{"revoked token", h.CE, revoked, reasonRevoked},
		{"revoked token on Orbit", h.EE, revoked, reasonRevoked},
		{"read_api token on Orbit", h.EE, readAPI,
			"/api/v4/orbit/mcp: Personal access token lacks a scope this endpoint accepts (mcp_orbit, mcp, api or ai_workflows). Create a token with the mcp scope. Its scopes: read_api."},
		{"no EE seat on Orbit", h.EE, h.Tokens["bob"], "GitLab Orbit MCP server requires a GitLab Duo Enterprise seat"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := run(tt.url, tt.token)
			if !strings.Contains(out, tt.want) {
				t.Fatalf("mcp-remote output does not say what is wrong (%q):\n%s", tt.want, out)
			}
			for _, trap := range []string{"SSE error", "HTTP 404", "(405)", "Waiting for authorization", "mcp_orbit scope"} {
				if strings.Contains(out, trap) {
					t.Errorf("mcp-remote output contains %q:\n%s", trap, out)
				}
			}
		})
	}
	for _, url := range []string{h.CE, h.EE} {
		if out := run(url, h.Tokens["alice"]); !strings.Contains(out, "Connected successfully") || strings.Contains(out, "Authentication required") {
			t.Fatalf("mcp-remote with a valid token did not connect to %s:\n%s", url, out)
		}
	}
}

// requireMCPRemote returns node and the path of mcp-remote's script name
// (client.js, proxy.js), skipping like requireNode when it is not
// installed.
func requireMCPRemote(t *testing.T, name string) (node, script string) {
	t.Helper()
	node = requireNode(t)
	script = filepath.Join(interopTSDir, "node_modules", "mcp-remote", "dist", name)
	if _, err := os.Stat(script); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("mcp-remote is not installed in interop/ts (npm ci)")
		}
		t.Skip("mcp-remote is not installed; cd interop/ts && npm ci")
	}
	return node, script
}

// mcpAnswer is one JSON-RPC answer read from mcp-remote's stdout.
type mcpAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// mcpRemoteProxy starts mcp-remote's stdio proxy in front of url with
// token, and returns a function that writes one message to its stdin and
// one that reads the next answer (failing unless its id is id). The proxy
// stops with the test.
func mcpRemoteProxy(t *testing.T, url, token string) (send func(msg string), next func(id string) mcpAnswer) {
	t.Helper()
	node, proxy := requireMCPRemote(t, "proxy.js")
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	cmd := exec.CommandContext(ctx, node, proxy, url, "--header", "Authorization: Bearer "+token)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "NO_COLOR=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Wait()
		cancel()
	})
	answers := make(chan mcpAnswer)
	go func() {
		defer close(answers)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var a mcpAnswer
			if json.Unmarshal(sc.Bytes(), &a) == nil && len(a.ID) > 0 {
				select {
				case answers <- a:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	send = func(msg string) {
		t.Helper()
		if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
			t.Fatalf("write to mcp-remote: %v\n%s", err, stderr.String())
		}
	}
	next = func(id string) mcpAnswer {
		t.Helper()
		select {
		case a, ok := <-answers:
			if !ok {
				t.Fatalf("mcp-remote closed its output before answering %s:\n%s", id, stderr.String())
			}
			if string(a.ID) != id {
				t.Fatalf("answer to %s, want %s", a.ID, id)
			}
			return a
		case <-ctx.Done():
			t.Fatalf("no answer to %s within 90s:\n%s", id, stderr.String())
		}
		return mcpAnswer{}
	}
	return send, next
}

// TestInteropMCPRemote_olderVersionNegotiated: a stdio client that asks
// for 2024-11-05 (older clients still do) through mcp-remote's proxy is
// answered 2025-11-25, the newest version glmcp speaks, instead of an
// error, and its session works (issue #20 item 7).
func TestInteropMCPRemote_olderVersionNegotiated(t *testing.T) {
	h := startServer(t)
	send, next := mcpRemoteProxy(t, h.CE, h.Tokens["alice"])
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"old","version":"1.0.0"}}}`)
	a := next("1")
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if a.Error != nil || json.Unmarshal(a.Result, &res) != nil || res.ProtocolVersion != rev20251125 {
		t.Fatalf("initialize 2024-11-05 through mcp-remote = %+v %s, want protocolVersion %s", a.Error, a.Result, rev20251125)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_mcp_server_version","arguments":{}}}`)
	if a := next("2"); a.Error != nil || len(a.Result) == 0 {
		t.Fatalf("tools/call after negotiating: %+v", a)
	}
}

// TestInteropMCPRemote_legacyErrorsReachTheClient speaks JSON-RPC over
// stdio to mcp-remote's proxy (what Claude Desktop runs) in front of
// glmcp, in the Legacy era: an unknown tool and an unknown method must come
// back with glmcp's own code and message, not as mcp-remote's -32001
// transport error (issue #13 item 9), and the session must stay usable.
func TestInteropMCPRemote_legacyErrorsReachTheClient(t *testing.T) {
	h := startServer(t)
	send, next := mcpRemoteProxy(t, h.CE, h.Tokens["alice"])
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"spec","version":"1.0.0"}}}`)
	if a := next("1"); a.Error != nil {
		t.Fatalf("initialize: %+v", *a.Error)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, tc := range []struct {
		id, request string
		code        int
		message     string
	}{
		{"2", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`,
			-32602, `Tool 'no_such_tool' not found.`},
		{"3", `{"jsonrpc":"2.0","id":3,"method":"glmcp/no_such_method","params":{}}`,
			-32601, "Method not found: glmcp/no_such_method"},
	} {
		send(tc.request)
		a := next(tc.id)
		if a.Error == nil || a.Error.Code != tc.code || a.Error.Message != tc.message {
			t.Errorf("answer %s = %+v, want error %d %q", tc.id, a.Error, tc.code, tc.message)
		}
	}
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_mcp_server_version","arguments":{}}}`)
	if a := next("4"); a.Error != nil || len(a.Result) == 0 {
		t.Fatalf("tools/call after the errors: %+v", a)
	}
}
