package spec

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/app"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// Endpoint paths.
const (
	cePath = "/api/v4/mcp"
	eePath = "/api/v4/orbit/mcp"
)

// harness is one running glmcp on its own database.
type harness struct {
	URL    string // base URL, e.g. http://127.0.0.1:PORT
	CE, EE string // endpoint URLs
	Cfg    *app.Config
	Env    *app.Env
	Server *app.Server
	HTTP   *httptest.Server
	// Tokens are fresh demo tokens by username (root, alice, bob, carol,
	// dave), scopes api, mcp, mcp_orbit.
	Tokens map[string]string
}

// option adjusts the configuration before the server starts.
type option func(*app.Config)

// withEE serves the EE (orbit) group too.
func withEE() option { return func(c *app.Config) { c.Edition = models.EditionEE } }

// withDSN uses the given database (to share one between instances).
func withDSN(dsn string) option { return func(c *app.Config) { c.DatabaseURL = dsn } }

// testDSN returns a fresh PostgreSQL database URL when
// GLMCP_TEST_DATABASE_URL is set, and "" (embedded SQLite) otherwise;
// under CI=true PostgreSQL is required.
func testDSN(t testing.TB) string {
	t.Helper()
	if os.Getenv(storetest.EnvDatabaseURL) != "" || os.Getenv("CI") == "true" {
		return storetest.PostgresDSN(t)
	}
	return ""
}

// startServer starts glmcp with the demo world seeded, on a fresh
// database, served by httptest on 127.0.0.1. Everything is torn down when
// the test ends. Its log is discarded (SPEC_LOG=1 with -v shows it).
func startServer(t testing.TB, opts ...option) *harness {
	t.Helper()
	return startServerLogged(t, nil, opts...)
}

// startServerLogged is startServer with the server's info-level JSON log
// written to w (nil: discarded).
func startServerLogged(t testing.TB, w io.Writer, opts ...option) *harness {
	t.Helper()
	cfg := app.Defaults()
	cfg.DatabaseURL = testDSN(t)
	cfg.DataDir = t.TempDir()
	cfg.Secret = "spec-secret-0123456789abcdefghijklmnopqrstuvwxyz"
	cfg.RateLimit = "0"
	cfg.AuthFailureLimit = "0"
	cfg.LogLevel = "error"
	for _, o := range opts {
		o(&cfg)
	}
	ts := httptest.NewUnstartedServer(nil)
	cfg.Listen = ts.Listener.Addr().String()
	if cfg.PublicURL == "" {
		cfg.PublicURL = "http://" + cfg.Listen
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("config: %v", err)
	}
	ctx := context.Background()
	switch {
	case w != nil:
		cfg.LogLevel, cfg.LogFormat = "info", "json"
	case testing.Verbose() && os.Getenv("SPEC_LOG") != "":
		w = os.Stderr
	default:
		w = io.Discard
	}
	logger := app.NewLogger(&cfg, w)
	env, err := app.OpenEnv(ctx, &cfg, logger)
	if err != nil {
		t.Fatalf("open env: %v", err)
	}
	t.Cleanup(func() { _ = env.Close() })
	demo, err := app.SeedDemo(ctx, env)
	if err != nil {
		t.Fatalf("seed demo: %v", err)
	}
	srv, err := app.New(ctx, &cfg, env, logger)
	if err != nil {
		t.Fatalf("new server: %v", err)
	}
	srv.Start(ctx)
	ts.Config.Handler = srv.Handler()
	ts.Start()
	t.Cleanup(func() {
		srv.BeginShutdown()
		ts.CloseClientConnections()
		ts.Close()
		srv.Stop()
	})
	select {
	case <-srv.Listening():
	case <-time.After(10 * time.Second):
		t.Fatal("change listener did not start within 10s")
	}
	h := &harness{URL: ts.URL, CE: ts.URL + cePath, EE: ts.URL + eePath, Cfg: &cfg, Env: env, Server: srv, HTTP: ts,
		Tokens: map[string]string{}}
	for _, d := range demo {
		h.Tokens[d.Username] = d.Token
	}
	return h
}

// response is one HTTP exchange's outcome.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a generic map (failing the test if it is not
// a JSON object).
func (r *response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(r.Body))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatalf("response body is not a JSON object: %v\n%s", err, r.Body)
	}
	return m
}

// do sends one request and reads the whole response.
func do(t testing.TB, method, url, body string, header http.Header) *response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if header != nil {
		req.Header = header.Clone()
	}
	if body != "" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	return send(t, req)
}

// send performs req and reads the whole response.
func send(t testing.TB, req *http.Request) *response {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return &response{Status: res.StatusCode, Header: res.Header, Body: b}
}

// auth returns headers carrying token as a bearer credential.
func auth(token string) http.Header {
	h := http.Header{}
	h.Set("Authorization", "Bearer "+token)
	return h
}

// legacy sends a Legacy-era request (no _meta) as user.
func (h *harness) legacy(t testing.TB, endpoint, user string, id any, method string, params any) *response {
	t.Helper()
	return do(t, http.MethodPost, endpoint, envelope(t, id, method, params), auth(h.Tokens[user]))
}

// modernMeta is a valid 2026-07-28 _meta.
func modernMeta() map[string]any {
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "spec", "version": "1.0.0"},
	}
}

// modern sends a well-formed Modern request as user: _meta and the
// mirrored headers are filled in (Mcp-Name from params.name / params.uri).
func (h *harness) modern(t testing.TB, endpoint, user string, id any, method string, params map[string]any) *response {
	t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	if _, ok := params["_meta"]; !ok {
		params["_meta"] = modernMeta()
	}
	hd := auth(h.Tokens[user])
	for k, v := range modernHeaders(method, params) {
		hd.Set(k, v)
	}
	return do(t, http.MethodPost, endpoint, envelope(t, id, method, params), hd)
}

// modernHeaders returns the headers a conforming client mirrors.
func modernHeaders(method string, params map[string]any) map[string]string {
	h := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
	if n, ok := params["name"].(string); ok && (method == "tools/call" || method == "prompts/get") {
		h["Mcp-Name"] = n
	}
	if u, ok := params["uri"].(string); ok && method == "resources/read" {
		h["Mcp-Name"] = u
	}
	return h
}

// envelope encodes a JSON-RPC request (id nil: a notification). params
// nil — an untyped nil or a nil map — leaves params out (a typed nil map
// would otherwise encode as "params": null, which the server refuses).
func envelope(t testing.TB, id any, method string, params any) string {
	t.Helper()
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if id != nil {
		m["id"] = id
	}
	if pm, ok := params.(map[string]any); params != nil && (!ok || pm != nil) {
		m["params"] = params
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// rpcError returns the error object of a JSON-RPC error response (failing
// if there is none).
func rpcError(t testing.TB, r *response) (code int, message string, data any) {
	t.Helper()
	m := r.JSON(t)
	e, ok := m["error"].(map[string]any)
	if !ok {
		t.Fatalf("no error in response (status %d): %s", r.Status, r.Body)
	}
	n, _ := e["code"].(json.Number).Int64()
	msg, _ := e["message"].(string)
	return int(n), msg, e["data"]
}

// result returns the result object of a JSON-RPC response (failing if
// there is none).
func result(t testing.TB, r *response) map[string]any {
	t.Helper()
	m := r.JSON(t)
	res, ok := m["result"].(map[string]any)
	if !ok {
		t.Fatalf("no result in response (status %d): %s", r.Status, r.Body)
	}
	return res
}

// expectError asserts status, content type and JSON-RPC code of an error
// response, validates it against the revision's schema and returns it.
func expectError(t testing.TB, r *response, rev string, status, code int) (message string, data any) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d; body %s", r.Status, status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	got, msg, data := rpcError(t, r)
	if got != code {
		t.Fatalf("code = %d, want %d; body %s", got, code, r.Body)
	}
	validateMessage(t, rev, "JSONRPCErrorResponse", r.Body)
	return msg, data
}
