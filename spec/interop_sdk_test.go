package spec

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"gitlab.com/glmcp/glmcp/app"
)

// Interop with the official Go SDK (v1.8.0) client, in both eras, on both
// route groups: connect with a bearer token, list tools, call
// get_mcp_server_version. A recording transport checks what the SDK sent
// and validates every response body against the schema of its revision.

// sdkExchange is one HTTP exchange the SDK made.
type sdkExchange struct {
	HTTPMethod string
	RPCMethod  string // from the request body ("" for none)
	IsRequest  bool   // the body carried an id
	Header     http.Header
	Status     int
	RespHeader http.Header
	RespBody   []byte
}

// sdkRecorder adds the bearer token and records every exchange.
type sdkRecorder struct {
	token string
	next  http.RoundTripper

	mu        sync.Mutex
	exchanges []sdkExchange
}

func (r *sdkRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+r.token)
	x := sdkExchange{HTTPMethod: req.Method, Header: req.Header.Clone()}
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		_ = req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(b))
		var env struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(b, &env) == nil {
			x.RPCMethod, x.IsRequest = env.Method, len(env.ID) > 0
		}
	}
	res, err := r.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	x.Status, x.RespHeader = res.StatusCode, res.Header.Clone()
	if req.Method == http.MethodPost { // JSON answers only: never a stream here
		b, err := io.ReadAll(res.Body)
		_ = res.Body.Close()
		if err != nil {
			return nil, err
		}
		x.RespBody = b
		res.Body = io.NopCloser(bytes.NewReader(b))
	}
	r.mu.Lock()
	r.exchanges = append(r.exchanges, x)
	r.mu.Unlock()
	return res, nil
}

func (r *sdkRecorder) recorded() []sdkExchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.exchanges)
}

// responseBodies returns the response bodies of the recorded requests
// whose JSON-RPC method is method, in order.
func (r *sdkRecorder) responseBodies(method string) [][]byte {
	var out [][]byte
	for _, x := range r.recorded() {
		if x.RPCMethod == method && x.IsRequest {
			out = append(out, x.RespBody)
		}
	}
	return out
}

// sdkResultDefs maps a method to its result definition.
var sdkResultDefs = map[string]string{
	"server/discover": "DiscoverResult",
	"initialize":      "InitializeResult",
	"tools/list":      "ListToolsResult",
	"tools/call":      "CallToolResult",
	"ping":            "EmptyResult",
}

func TestInteropSDK(t *testing.T) {
	h := startServer(t, withEE())
	tests := []struct {
		version string // asked for
		rev     string // schema of the responses
		modern  bool
	}{
		{revModern, revModern, true},
		{rev20251125, rev20251125, false},
		{rev20250618, rev20250618, false},
	}
	for _, g := range h.groups() {
		for _, tt := range tests {
			t.Run(g.Name+"/"+tt.version, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				rec := &sdkRecorder{token: h.Tokens["alice"], next: http.DefaultTransport}
				client := mcp.NewClient(&mcp.Implementation{Name: "spec-go-sdk", Version: "1.8.0"}, nil)
				cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
					Endpoint: g.URL, HTTPClient: &http.Client{Transport: rec}, MaxRetries: -1,
				}, &mcp.ClientSessionOptions{ProtocolVersion: tt.version})
				if err != nil {
					t.Fatalf("connect: %v", err)
				}
				init := cs.InitializeResult()
				if init.ProtocolVersion != tt.version {
					t.Errorf("negotiated %q, want %q", init.ProtocolVersion, tt.version)
				}
				if init.ServerInfo == nil || init.ServerInfo.Name != g.ServerName || init.ServerInfo.Version != app.Version {
					t.Errorf("serverInfo = %+v, want %s %s", init.ServerInfo, g.ServerName, app.Version)
				}

				tools, err := cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatalf("list tools: %v", err)
				}
				var names []string
				for _, tool := range tools.Tools {
					names = append(names, tool.Name)
				}
				if !slices.Contains(names, "get_mcp_server_version") {
					t.Errorf("tools = %v, want get_mcp_server_version", names)
				}
				if hasEE := slices.Contains(names, "semantic_search"); hasEE != (g.Name == "EE") {
					t.Errorf("semantic_search listed = %v on %s", hasEE, g.Name)
				}

				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_mcp_server_version", Arguments: map[string]any{}})
				if err != nil {
					t.Fatalf("call tool: %v", err)
				}
				if res.IsError {
					t.Fatalf("get_mcp_server_version isError: %+v", res.Content)
				}
				sc, _ := res.StructuredContent.(map[string]any)
				if sc["version"] != app.Version {
					t.Errorf("structuredContent = %v, want version %q", res.StructuredContent, app.Version)
				}
				if err := cs.Close(); err != nil {
					t.Errorf("close: %v", err)
				}

				checkSDKExchanges(t, rec.recorded(), tt.rev, tt.modern, tt.version)
			})
		}
	}
}

// checkSDKExchanges asserts what the SDK sent and validates what it got.
func checkSDKExchanges(t *testing.T, xs []sdkExchange, rev string, modern bool, version string) {
	t.Helper()
	var rpc []string
	for _, x := range xs {
		if v := x.RespHeader.Get("Mcp-Session-Id"); v != "" {
			t.Errorf("%s %s: response carries Mcp-Session-Id %q", x.HTTPMethod, x.RPCMethod, v)
		}
		if x.Header.Get("Mcp-Session-Id") != "" {
			t.Errorf("%s %s: the SDK sent an Mcp-Session-Id nobody minted", x.HTTPMethod, x.RPCMethod)
		}
		if x.HTTPMethod != http.MethodPost {
			// The Legacy SDK probes for a standalone stream; there is none.
			if x.Status != http.StatusMethodNotAllowed {
				t.Errorf("%s: status %d, want 405", x.HTTPMethod, x.Status)
			}
			continue
		}
		rpc = append(rpc, x.RPCMethod)
		if modern {
			if got := x.Header.Get("Mcp-Method"); got != x.RPCMethod {
				t.Errorf("%s: Mcp-Method header %q", x.RPCMethod, got)
			}
			if got := x.Header.Get("MCP-Protocol-Version"); got != version {
				t.Errorf("%s: MCP-Protocol-Version header %q, want %s", x.RPCMethod, got, version)
			}
		}
		if !x.IsRequest {
			if x.Status != http.StatusAccepted || len(x.RespBody) != 0 {
				t.Errorf("notification %s: %d %q, want 202 and no body", x.RPCMethod, x.Status, x.RespBody)
			}
			continue
		}
		if x.Status != http.StatusOK {
			t.Errorf("%s: status %d: %s", x.RPCMethod, x.Status, x.RespBody)
			continue
		}
		def, ok := sdkResultDefs[x.RPCMethod]
		if !ok {
			t.Errorf("unexpected request %s", x.RPCMethod)
			continue
		}
		validateResult(t, rev, def, x.RespBody)
	}
	var want []string
	if modern {
		// The stateless path: discover, never initialize.
		want = []string{"server/discover", "tools/list", "tools/call"}
	} else {
		want = []string{"initialize", "notifications/initialized", "tools/list", "tools/call"}
	}
	if !slices.Equal(rpc, want) {
		t.Errorf("the SDK sent %v, want %v", rpc, want)
	}
}
