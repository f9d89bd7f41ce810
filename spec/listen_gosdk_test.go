package spec

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearerTransport adds a bearer token to every request.
type bearerTransport struct {
	token string
	base  http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// Ensure the go-sdk v1.8.0 client, in Modern (2026-07-28) mode, opens
// subscriptions/listen by itself on Connect (glmcp advertises
// tools.listChanged), and its ToolListChangedHandler fires when the CLI
// disables a tool; its next tools/list no longer has the tool.
func TestListen_goSDKToolListChangedHandler(t *testing.T) {
	h := startServer(t)
	fired := make(chan struct{}, 8)
	client := mcp.NewClient(&mcp.Implementation{Name: "spec-go-sdk", Version: "1.0.0"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case fired <- struct{}{}:
			default:
			}
		},
	})
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	transport := &mcp.StreamableClientTransport{
		Endpoint:   h.CE,
		HTTPClient: &http.Client{Transport: bearerTransport{token: h.Tokens["alice"], base: tr}},
		MaxRetries: -1,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*liveBound)
	defer cancel()
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: revModern})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v != "" && v != revModern {
		t.Fatalf("negotiated %q, want %s", v, revModern)
	}
	eventually(t, "the client's listen stream is open", func() bool { return h.Server.Hub().Len() == 1 })

	before, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	if !hasTool(before, "get_mcp_server_version") {
		t.Fatal("get_mcp_server_version not listed before the change")
	}

	h.runGlmcp(t, "tools", "disable", "get_mcp_server_version")
	select {
	case <-fired:
	case <-time.After(liveBound):
		t.Fatalf("ToolListChangedHandler did not fire within %v", liveBound)
	}
	after, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list after the change: %v", err)
	}
	if hasTool(after, "get_mcp_server_version") {
		t.Error("the client still lists get_mcp_server_version after the change")
	}

	// Closing the session ends its stream and frees the slot.
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	eventually(t, "the client's listen stream is gone", func() bool { return h.Server.Hub().Len() == 0 })
}

func hasTool(res *mcp.ListToolsResult, name string) bool {
	return slices.ContainsFunc(res.Tools, func(t *mcp.Tool) bool { return t.Name == name })
}
