package middleware_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"gitlab.com/glmcp/glmcp/handlers"
	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
	"gitlab.com/glmcp/glmcp/internal/clocktest"
	"gitlab.com/glmcp/glmcp/middleware"
	"gitlab.com/glmcp/glmcp/middleware/ratelimit"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/auth"
)

const (
	testAudience = "https://gitlab.example.com/api/v4/mcp"
	testMetadata = "https://gitlab.example.com/.well-known/oauth-protected-resource/api/v4/mcp"
	higherPriv   = "Personal access token lacks a scope this endpoint accepts (mcp or api; read_api for read-only tools). Create a token with the mcp scope. Its scopes: read_user."
	seatReason   = "GitLab Orbit MCP server requires a GitLab Duo Enterprise seat; ask an administrator to assign one to your account."
	internalBody = `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"}}`
)

// fakePAT is a TokenAuthenticator that records the tokens it is given.
// Without fn it accepts every token as user 7 with scope mcp.
type fakePAT struct {
	mu    sync.Mutex
	calls []string
	fn    func(raw string) (*models.Identity, error)
}

func (f *fakePAT) Authenticate(_ context.Context, raw string) (*models.Identity, error) {
	f.mu.Lock()
	f.calls = append(f.calls, raw)
	fn := f.fn
	f.mu.Unlock()
	if fn == nil {
		return identity(7, "mcp"), nil
	}
	return fn(raw)
}

func (f *fakePAT) seen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

type jwtCall struct{ raw, audience string }

// fakeJWT is a JWTAuthenticator: tokens starting with "eyJ" look like JWTs.
type fakeJWT struct {
	mu    sync.Mutex
	calls []jwtCall
	fn    func(raw, audience string) (*models.Identity, error)
}

func (f *fakeJWT) LooksLikeJWT(raw string) bool { return strings.HasPrefix(raw, "eyJ") }

func (f *fakeJWT) Authenticate(_ context.Context, raw, audience string) (*models.Identity, error) {
	f.mu.Lock()
	f.calls = append(f.calls, jwtCall{raw, audience})
	fn := f.fn
	f.mu.Unlock()
	if fn == nil {
		id := identity(8, "mcp")
		id.Method = models.MethodOAuth
		return id, nil
	}
	return fn(raw, audience)
}

func (f *fakeJWT) seen() []jwtCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]jwtCall(nil), f.calls...)
}

func identity(userID int64, scopes ...string) *models.Identity {
	return &models.Identity{
		User:    &models.User{ID: userID, Username: "user", State: models.UserActive},
		Method:  models.MethodPAT,
		TokenID: 100 + userID,
		Scopes:  scopes,
	}
}

// probe is the handler behind RequireAuth; it records what it saw.
type probe struct {
	calls  int
	id     *models.Identity
	userID int64
}

func (p *probe) handle(c *gin.Context) {
	p.calls++
	p.id = middleware.IdentityFrom(c.Request.Context())
	p.userID = middleware.Fields(c.Request.Context()).UserID
	c.String(http.StatusOK, "ok")
}

type authEnv struct {
	r     *gin.Engine
	probe *probe
	logs  *logBuffer
}

// newAuthEnv serves POST /api/v4/mcp behind RequestLogger and RequireAuth.
// cfg.Scopes and MetadataURL default to the CE group's.
func newAuthEnv(cfg middleware.AuthConfig) *authEnv {
	if cfg.Scopes.Needed == "" {
		cfg.Scopes = auth.CEScopes
	}
	if cfg.MetadataURL == "" {
		cfg.MetadataURL = testMetadata
	}
	if cfg.Audience == "" {
		cfg.Audience = testAudience
	}
	logger, logs := newLogger()
	cfg.Logger = logger
	p := &probe{}
	r := gin.New()
	r.Use(middleware.RequestLogger(logger), handlers.RenderRefusals)
	r.POST("/api/v4/mcp", middleware.RequireAuth(cfg), p.handle)
	return &authEnv{r: r, probe: p, logs: logs}
}

// post sends POST /api/v4/mcp with headers (name, value pairs) from
// remoteAddr (default 192.0.2.1:1234).
func (e *authEnv) post(remoteAddr string, headers ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/api/v4/mcp", strings.NewReader(`{}`))
	req.RemoteAddr = "192.0.2.1:1234"
	if remoteAddr != "" {
		req.RemoteAddr = remoteAddr
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	e.r.ServeHTTP(w, req)
	return w
}

func wantStatus(t *testing.T, w *httptest.ResponseRecorder, status int) {
	t.Helper()
	if w.Code != status {
		t.Fatalf("status = %d, want %d; body %s", w.Code, status, w.Body)
	}
}

func wantHeader(t *testing.T, w *httptest.ResponseRecorder, name, want string) {
	t.Helper()
	if got := w.Header().Get(name); got != want {
		t.Fatalf("%s = %q, want %q", name, got, want)
	}
}

func TestRequireAuth_credentialSources(t *testing.T) {
	tests := []struct {
		name    string
		headers []string
		want    string // token handed to the authenticator; "" means 401 without a call
	}{
		{"Authorization Bearer", []string{"Authorization", "Bearer t"}, "t"},
		{"lower-case scheme", []string{"Authorization", "bearer t"}, "t"},
		{"upper-case scheme", []string{"Authorization", "BEARER t"}, "t"},
		{"extra spaces around the token", []string{"Authorization", "Bearer   t  "}, "t"},
		{"PRIVATE-TOKEN", []string{"PRIVATE-TOKEN", "t"}, "t"},
		{"PRIVATE-TOKEN header name is case-insensitive", []string{"private-token", "t"}, "t"},
		{"both headers: Authorization wins", []string{"Authorization", "Bearer a", "PRIVATE-TOKEN", "p"}, "a"},
		{"Basic falls back to PRIVATE-TOKEN", []string{"Authorization", "Basic dXNlcjpwYXNz", "PRIVATE-TOKEN", "p"}, "p"},
		{"Basic alone", []string{"Authorization", "Basic dXNlcjpwYXNz"}, ""},
		{"another scheme", []string{"Authorization", "Token t"}, ""},
		{"scheme without token", []string{"Authorization", "Bearer"}, ""},
		{"empty bearer", []string{"Authorization", "Bearer "}, ""},
		{"blank bearer", []string{"Authorization", "Bearer    "}, ""},
		{"blank PRIVATE-TOKEN", []string{"PRIVATE-TOKEN", "   "}, ""},
		{"no credential", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pat := &fakePAT{}
			e := newAuthEnv(middleware.AuthConfig{PAT: pat})
			w := e.post("", tt.headers...)
			if tt.want == "" {
				wantStatus(t, w, http.StatusUnauthorized)
				if got := pat.seen(); len(got) != 0 {
					t.Fatalf("authenticator called with %q", got)
				}
				if e.probe.calls != 0 {
					t.Fatalf("probe called on 401")
				}
				return
			}
			wantStatus(t, w, http.StatusOK)
			if got := pat.seen(); len(got) != 1 || got[0] != tt.want {
				t.Fatalf("authenticator got %q, want [%q]", got, tt.want)
			}
		})
	}
}

func TestRequireAuth_missingCredential(t *testing.T) {
	e := newAuthEnv(middleware.AuthConfig{PAT: &fakePAT{}})
	w := e.post("")
	wantStatus(t, w, http.StatusUnauthorized)
	wantHeader(t, w, "WWW-Authenticate", `Bearer realm="GitLab", resource_metadata="`+testMetadata+`"`)
	wantJSON(t, w.Body.Bytes(), map[string]any{"message": "401 Unauthorized"})
}

func TestRequireAuth_invalidToken(t *testing.T) {
	pat := &fakePAT{fn: func(string) (*models.Identity, error) {
		return nil, &auth.Error{Kind: auth.Unauthenticated, Presented: true, Reason: "Token is invalid"}
	}}
	e := newAuthEnv(middleware.AuthConfig{PAT: pat})
	const secret = "glpat-secret-token-value-123"
	w := e.post("", "Authorization", "Bearer "+secret)
	wantStatus(t, w, http.StatusUnauthorized)
	wantHeader(t, w, "WWW-Authenticate",
		`Bearer realm="GitLab", error="invalid_token", error_description="Token is invalid", resource_metadata="`+testMetadata+`"`)
	wantJSON(t, w.Body.Bytes(), map[string]any{"error": "invalid_token", "error_description": "Token is invalid"})
	if e.probe.calls != 0 {
		t.Fatalf("probe called on 401")
	}
	if strings.Contains(w.Body.String(), secret) || strings.Contains(e.logs.String(), secret) {
		t.Fatalf("token leaked into the response or the log")
	}
}

// Ensure that without an authorization server (no metadata URL) a 401
// names no metadata, so clients do not try to sign in, and its body says
// which token to send.
func TestRequireAuth_noAuthorizationServer(t *testing.T) {
	pat := &fakePAT{fn: func(string) (*models.Identity, error) {
		return nil, &auth.Error{Kind: auth.Unauthenticated, Presented: true, Reason: "Token is invalid"}
	}}
	r := gin.New()
	r.POST("/api/v4/mcp", middleware.RequireAuth(middleware.AuthConfig{PAT: pat, Scopes: auth.CEScopes}), func(c *gin.Context) { c.Status(200) })
	send := func(hdr ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/api/v4/mcp", strings.NewReader(`{}`))
		if len(hdr) == 2 {
			req.Header.Set(hdr[0], hdr[1])
		}
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		return w
	}
	w := send("Authorization", "Bearer glpat-wrong")
	wantStatus(t, w, http.StatusUnauthorized)
	wantHeader(t, w, "WWW-Authenticate", `Bearer realm="GitLab", error="invalid_token", error_description="Token is invalid"`)
	wantJSON(t, w.Body.Bytes(), map[string]any{"error": "invalid_token", "error_description": "Token is invalid", "hint": middleware.NoOAuthHint})
	w = send()
	wantStatus(t, w, http.StatusUnauthorized)
	wantHeader(t, w, "WWW-Authenticate", `Bearer realm="GitLab"`)
	wantJSON(t, w.Body.Bytes(), map[string]any{"message": "401 Unauthorized", "hint": middleware.NoOAuthHint})
	if strings.Contains(w.Body.String(), `\u00`) {
		t.Fatalf("hint is HTML-escaped: %s", w.Body)
	}
}

func TestRequireAuth_success(t *testing.T) {
	want := identity(7, "mcp")
	pat := &fakePAT{fn: func(string) (*models.Identity, error) { return want, nil }}
	e := newAuthEnv(middleware.AuthConfig{PAT: pat})
	w := e.post("", "Authorization", "Bearer t")
	wantStatus(t, w, http.StatusOK)
	if e.probe.calls != 1 || e.probe.id != want {
		t.Fatalf("probe saw %d calls, identity %+v; want 1 call with the authenticator's identity", e.probe.calls, e.probe.id)
	}
	if e.probe.id.ReadOnly {
		t.Fatalf("identity with scope mcp marked read-only")
	}
	if e.probe.userID != 7 {
		t.Fatalf("LogFields.UserID = %d, want 7", e.probe.userID)
	}
	recs := e.logs.recordsWithMsg(t, "request")
	if len(recs) != 1 || recs[0]["user_id"] != float64(7) {
		t.Fatalf("access log = %v, want one line with user_id 7", recs)
	}
}

func TestRequireAuth_routing(t *testing.T) {
	const jwtTok = "eyJhbGciOiJIUzI1NiJ9.e30.sig"
	t.Run("JWT-shaped token goes to the JWT authenticator with the audience", func(t *testing.T) {
		pat, jwtA := &fakePAT{}, &fakeJWT{}
		e := newAuthEnv(middleware.AuthConfig{PAT: pat, JWT: jwtA})
		wantStatus(t, e.post("", "Authorization", "Bearer "+jwtTok), http.StatusOK)
		if got := jwtA.seen(); len(got) != 1 || got[0] != (jwtCall{jwtTok, testAudience}) {
			t.Fatalf("JWT authenticator calls = %+v, want [{%s %s}]", got, jwtTok, testAudience)
		}
		if got := pat.seen(); len(got) != 0 {
			t.Fatalf("PAT authenticator called with %q", got)
		}
		if e.probe.id == nil || e.probe.id.Method != models.MethodOAuth || e.probe.id.User.ID != 8 {
			t.Fatalf("probe identity = %+v, want the OAuth user 8", e.probe.id)
		}
	})
	t.Run("a refused JWT is not retried as a PAT", func(t *testing.T) {
		pat := &fakePAT{}
		jwtA := &fakeJWT{fn: func(string, string) (*models.Identity, error) {
			return nil, &auth.Error{Kind: auth.Unauthenticated, Presented: true, Reason: "signature invalid"}
		}}
		e := newAuthEnv(middleware.AuthConfig{PAT: pat, JWT: jwtA})
		w := e.post("", "Authorization", "Bearer "+jwtTok)
		wantStatus(t, w, http.StatusUnauthorized)
		wantJSON(t, w.Body.Bytes(), map[string]any{"error": "invalid_token", "error_description": "signature invalid"})
		if len(pat.seen()) != 0 {
			t.Fatalf("PAT authenticator called after JWT refusal")
		}
	})
	t.Run("other tokens go to the PAT authenticator", func(t *testing.T) {
		pat, jwtA := &fakePAT{}, &fakeJWT{}
		e := newAuthEnv(middleware.AuthConfig{PAT: pat, JWT: jwtA})
		wantStatus(t, e.post("", "PRIVATE-TOKEN", "glpat-abc"), http.StatusOK)
		if got := pat.seen(); len(got) != 1 || got[0] != "glpat-abc" {
			t.Fatalf("PAT calls = %q, want [glpat-abc]", got)
		}
		if len(jwtA.seen()) != 0 {
			t.Fatalf("JWT authenticator called for a PAT")
		}
	})
	t.Run("without OAuth a JWT-shaped token goes to the PAT authenticator", func(t *testing.T) {
		pat := &fakePAT{}
		e := newAuthEnv(middleware.AuthConfig{PAT: pat})
		wantStatus(t, e.post("", "Authorization", "Bearer "+jwtTok), http.StatusOK)
		if got := pat.seen(); len(got) != 1 || got[0] != jwtTok {
			t.Fatalf("PAT calls = %q, want [%s]", got, jwtTok)
		}
	})
}

func TestRequireAuth_scopes(t *testing.T) {
	t.Run("insufficient scope", func(t *testing.T) {
		pat := &fakePAT{fn: func(string) (*models.Identity, error) { return identity(7, "read_user"), nil }}
		e := newAuthEnv(middleware.AuthConfig{PAT: pat})
		w := e.post("", "Authorization", "Bearer t")
		wantStatus(t, w, http.StatusForbidden)
		wantHeader(t, w, "WWW-Authenticate",
			`Bearer realm="GitLab", error="insufficient_scope", scope="mcp", error_description="`+higherPriv+`", resource_metadata="`+testMetadata+`"`)
		wantJSON(t, w.Body.Bytes(), map[string]any{"error": "insufficient_scope", "error_description": higherPriv, "scope": "mcp"})
		if e.probe.calls != 0 {
			t.Fatalf("probe called on 403")
		}
	})
	t.Run("EE group asks for mcp_orbit", func(t *testing.T) {
		pat := &fakePAT{fn: func(string) (*models.Identity, error) { return identity(7, "read_api"), nil }}
		e := newAuthEnv(middleware.AuthConfig{PAT: pat, Scopes: auth.EEScopes})
		w := e.post("", "Authorization", "Bearer t")
		wantStatus(t, w, http.StatusForbidden)
		wantJSON(t, w.Body.Bytes(), map[string]any{"error": "insufficient_scope", "error_description": "Personal access token lacks a scope this endpoint accepts (mcp_orbit, mcp, api or ai_workflows). Create a token with the mcp scope. Its scopes: read_api.", "scope": "mcp_orbit"})
	})
	t.Run("read_api is read-only on CE", func(t *testing.T) {
		pat := &fakePAT{fn: func(string) (*models.Identity, error) { return identity(7, "read_api"), nil }}
		e := newAuthEnv(middleware.AuthConfig{PAT: pat})
		wantStatus(t, e.post("", "Authorization", "Bearer t"), http.StatusOK)
		if e.probe.id == nil || !e.probe.id.ReadOnly {
			t.Fatalf("probe identity = %+v, want ReadOnly", e.probe.id)
		}
	})
}

func TestRequireAuth_userForbidden(t *testing.T) {
	blocked := identity(9)
	jwtA := &fakeJWT{fn: func(string, string) (*models.Identity, error) {
		return &models.Identity{User: blocked.User}, &auth.Error{Kind: auth.UserForbidden, Presented: true, Reason: "Your account has been blocked."}
	}}
	e := newAuthEnv(middleware.AuthConfig{PAT: &fakePAT{}, JWT: jwtA})
	w := e.post("", "Authorization", "Bearer eyJx.y.z")
	wantStatus(t, w, http.StatusForbidden)
	wantHeader(t, w, "WWW-Authenticate", "")
	wantJSON(t, w.Body.Bytes(), map[string]any{"message": "403 Forbidden - Your account has been blocked."})
	if e.probe.calls != 0 {
		t.Fatalf("probe called on 403")
	}
	recs := e.logs.recordsWithMsg(t, "request")
	if len(recs) != 1 || recs[0]["user_id"] != float64(9) {
		t.Fatalf("access log = %v, want user_id 9 of the refused user", recs)
	}
}

func TestRequireAuth_EESeat(t *testing.T) {
	tests := []struct {
		name   string
		seat   bool
		status int
	}{
		{"without a seat", false, http.StatusForbidden},
		{"with a seat", true, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pat := &fakePAT{fn: func(string) (*models.Identity, error) {
				id := identity(7, "mcp_orbit")
				id.User.EESeat = tt.seat
				return id, nil
			}}
			e := newAuthEnv(middleware.AuthConfig{PAT: pat, Scopes: auth.EEScopes, RequireEESeat: true})
			w := e.post("", "Authorization", "Bearer t")
			wantStatus(t, w, tt.status)
			if tt.status == http.StatusForbidden {
				wantJSON(t, w.Body.Bytes(), map[string]any{"message": "403 Forbidden - " + seatReason})
				wantHeader(t, w, "WWW-Authenticate", "")
				if e.probe.calls != 0 {
					t.Fatalf("probe called on 403")
				}
			}
		})
	}
	t.Run("seat not required", func(t *testing.T) {
		e := newAuthEnv(middleware.AuthConfig{PAT: &fakePAT{}})
		wantStatus(t, e.post("", "Authorization", "Bearer t"), http.StatusOK)
	})
}

func TestRequireAuth_internalError(t *testing.T) {
	boom := errors.New("database is down")
	pat := &fakePAT{fn: func(string) (*models.Identity, error) { return nil, boom }}
	e := newAuthEnv(middleware.AuthConfig{PAT: pat})
	w := e.post("", "Authorization", "Bearer t", "X-Request-Id", "req-500")
	wantStatus(t, w, http.StatusInternalServerError)
	if got := w.Body.String(); got != internalBody {
		t.Fatalf("body = %s, want %s", got, internalBody)
	}
	wantHeader(t, w, "Content-Type", "application/json")
	wantHeader(t, w, "WWW-Authenticate", "")
	if e.probe.calls != 0 {
		t.Fatalf("probe called after an authenticator failure")
	}
	recs := e.logs.recordsWithMsg(t, "authenticate")
	if len(recs) != 1 || recs[0]["error"] != boom.Error() || recs[0]["request_id"] != "req-500" {
		t.Fatalf("error log = %v, want one line with the error and request id", recs)
	}
}

func TestRequireAuth_failureBudget(t *testing.T) {
	const ipA, ipB = "192.0.2.1:1234", "198.51.100.2:5678"
	clk := clocktest.New(time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC))
	// 3 failures per minute: one more every 20 s.
	lim := ratelimit.NewLimiter(ratelimit.Limit{Requests: 3, Per: time.Minute}, clk.Now)
	pat := &fakePAT{fn: func(raw string) (*models.Identity, error) {
		if raw == "good" {
			return identity(7, "mcp"), nil
		}
		return nil, &auth.Error{Kind: auth.Unauthenticated, Presented: true, Reason: "Token is invalid"}
	}}
	e := newAuthEnv(middleware.AuthConfig{PAT: pat, Failures: lim})
	bad := func(addr string) *httptest.ResponseRecorder {
		return e.post(addr, "Authorization", "Bearer bad")
	}

	for i := range 3 {
		if w := bad(ipA); w.Code != http.StatusUnauthorized {
			t.Fatalf("failure %d: status %d, want 401", i+1, w.Code)
		}
	}
	if n := len(pat.seen()); n != 3 {
		t.Fatalf("authenticator calls = %d, want 3", n)
	}

	w := bad(ipA)
	wantStatus(t, w, http.StatusTooManyRequests)
	wantHeader(t, w, "Retry-After", "20")
	body := decodeBody(t, w.Body.Bytes())
	if e, _ := body["error"].(map[string]any); e == nil || e["code"] != float64(jsonrpc.CodeRateLimited) {
		t.Fatalf("429 body = %s, want a JSON-RPC error %d", w.Body, jsonrpc.CodeRateLimited)
	}
	if _, ok := body["id"]; ok {
		t.Fatalf("429 body has an id: %s", w.Body)
	}
	if n := len(pat.seen()); n != 3 {
		t.Fatalf("authenticator called while the address is blocked (%d calls)", n)
	}
	// A good token from the blocked address is held back too.
	wantStatus(t, e.post(ipA, "Authorization", "Bearer good"), http.StatusTooManyRequests)
	// A request without a credential is not a guess: plain 401.
	wantStatus(t, e.post(ipA), http.StatusUnauthorized)

	// Another address is unaffected.
	wantStatus(t, bad(ipB), http.StatusUnauthorized)
	if n := len(pat.seen()); n != 4 {
		t.Fatalf("authenticator calls = %d, want 4", n)
	}

	// 20 s later one more attempt is allowed, then blocked again.
	clk.Add(20 * time.Second)
	wantStatus(t, bad(ipA), http.StatusUnauthorized)
	wantStatus(t, bad(ipA), http.StatusTooManyRequests)
	if n := len(pat.seen()); n != 5 {
		t.Fatalf("authenticator calls = %d, want 5", n)
	}
}

func TestRequireAuth_failureBudgetOnlyCountsFailures(t *testing.T) {
	clk := clocktest.New(time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC))
	lim := ratelimit.NewLimiter(ratelimit.Limit{Requests: 2, Per: time.Minute}, clk.Now)
	pat := &fakePAT{fn: func(raw string) (*models.Identity, error) {
		switch raw {
		case "good":
			return identity(7, "mcp"), nil
		case "noscope":
			return identity(7, "read_user"), nil
		case "blocked":
			return nil, &auth.Error{Kind: auth.UserForbidden, Presented: true, Reason: "Your account has been blocked."}
		}
		return nil, &auth.Error{Kind: auth.Unauthenticated, Presented: true, Reason: "Token is invalid"}
	}}
	e := newAuthEnv(middleware.AuthConfig{PAT: pat, Failures: lim})
	for range 5 {
		wantStatus(t, e.post("", "Authorization", "Bearer good"), http.StatusOK)
		wantStatus(t, e.post("", "Authorization", "Bearer noscope"), http.StatusForbidden)
		wantStatus(t, e.post("", "Authorization", "Bearer blocked"), http.StatusForbidden)
	}
	wantStatus(t, e.post("", "Authorization", "Bearer bad"), http.StatusUnauthorized)
	wantStatus(t, e.post("", "Authorization", "Bearer bad"), http.StatusUnauthorized)
	wantStatus(t, e.post("", "Authorization", "Bearer bad"), http.StatusTooManyRequests)
}

// Ensure that CredentialOf is the one reading of a request's credential:
// a usable Bearer token first, then PRIVATE-TOKEN, and any other
// Authorization header a refused credential.
func TestCredentialOf(t *testing.T) {
	tests := []struct {
		name    string
		headers []string
		want    middleware.Credential
	}{
		{"none", nil, middleware.Credential{}},
		{"Bearer", []string{"Authorization", "Bearer t"}, middleware.Credential{Kind: middleware.BearerCredential, Token: "t"}},
		{"bearer, spaces", []string{"Authorization", "bearer   t  "}, middleware.Credential{Kind: middleware.BearerCredential, Token: "t"}},
		{"PRIVATE-TOKEN", []string{"Private-Token", " p "}, middleware.Credential{Kind: middleware.PrivateTokenCredential, Token: "p"}},
		{"Bearer wins", []string{"Authorization", "Bearer a", "PRIVATE-TOKEN", "p"}, middleware.Credential{Kind: middleware.BearerCredential, Token: "a"}},
		{"Basic with PRIVATE-TOKEN", []string{"Authorization", "Basic dXNlcjpwYXNz", "PRIVATE-TOKEN", "p"}, middleware.Credential{Kind: middleware.PrivateTokenCredential, Token: "p"}},
		{"Basic", []string{"Authorization", "Basic dXNlcjpwYXNz"}, middleware.Credential{Kind: middleware.RefusedCredential, Scheme: "Basic"}},
		{"empty Bearer", []string{"Authorization", "Bearer "}, middleware.Credential{Kind: middleware.RefusedCredential, Scheme: "Bearer"}},
		{"scheme only", []string{"Authorization", "Negotiate"}, middleware.Credential{Kind: middleware.RefusedCredential, Scheme: "Negotiate"}},
		{"blank Authorization", []string{"Authorization", "   "}, middleware.Credential{}},
		{"blank PRIVATE-TOKEN", []string{"PRIVATE-TOKEN", "  "}, middleware.Credential{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/", nil)
			for i := 0; i+1 < len(tt.headers); i += 2 {
				req.Header.Set(tt.headers[i], tt.headers[i+1])
			}
			got := middleware.CredentialOf(req)
			if got != tt.want {
				t.Fatalf("CredentialOf = %+v, want %+v", got, tt.want)
			}
			if got.Presented() != (tt.want.Kind != middleware.NoCredential) {
				t.Fatalf("Presented = %v", got.Presented())
			}
		})
	}
}

// Ensure that an Authorization header of a refused scheme is answered 401
// with a body saying so and the plain Bearer challenge, and spends the
// failed-auth budget like a bad token: after it, 429.
func TestRequireAuth_basicIsARefusedCredential(t *testing.T) {
	clk := clocktest.New(time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC))
	lim := ratelimit.NewLimiter(ratelimit.Limit{Requests: 2, Per: time.Minute}, clk.Now)
	pat := &fakePAT{}
	e := newAuthEnv(middleware.AuthConfig{PAT: pat, Failures: lim})
	for range 2 {
		w := e.post("", "Authorization", "Basic dXNlcjpwYXNz")
		wantStatus(t, w, http.StatusUnauthorized)
		wantHeader(t, w, "WWW-Authenticate", `Bearer realm="GitLab", resource_metadata="`+testMetadata+`"`)
		msg, _ := decodeBody(t, w.Body.Bytes())["message"].(string)
		if !strings.HasPrefix(msg, "401 Unauthorized - Basic authentication is not accepted.") || !strings.Contains(msg, "Authorization: Bearer TOKEN") {
			t.Fatalf("401 message = %q, want it to say Basic is not accepted and what to send", msg)
		}
	}
	w := e.post("", "Authorization", "Basic dXNlcjpwYXNz")
	wantStatus(t, w, http.StatusTooManyRequests)
	// The budget is the address's: a good token from it waits too.
	wantStatus(t, e.post("", "Authorization", "Bearer good"), http.StatusTooManyRequests)
	if n := len(pat.seen()); n != 0 {
		t.Fatalf("authenticator called %d times for refused or blocked credentials", n)
	}
}
