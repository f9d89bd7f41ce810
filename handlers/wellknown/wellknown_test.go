package wellknown_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"gitlab.com/glmcp/glmcp/handlers/wellknown"
)

func TestMain(m *testing.M) {
	gin.SetMode(gin.TestMode)
	os.Exit(m.Run())
}

const publicURL = "https://gitlab.example.com"

const (
	cePath = "/api/v4/mcp"
	eePath = "/api/v4/orbit/mcp"
)

// resources are the router's groups: CE, and EE when ee.
func resources(ee bool) []wellknown.Resource {
	rs := []wellknown.Resource{{Path: cePath, Name: "GitLab MCP Server", Scopes: []string{"mcp"}}}
	if ee {
		rs = append(rs, wellknown.Resource{Path: eePath, Name: "GitLab Orbit MCP Server", Scopes: []string{"mcp_orbit", "mcp"}})
	}
	return rs
}

func newEngine(ee bool) *gin.Engine {
	r := gin.New()
	wellknown.Register(r, wellknown.Config{
		PublicURL:            publicURL + "/",
		AuthorizationServers: []string{"https://kc.example.com/realms/gitlab?x=1&y=2"},
		Resources:            resources(ee),
	})
	return r
}

func do(r http.Handler, method, path string, header map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	return w
}

const (
	ceDoc = `{"resource":"https://gitlab.example.com/api/v4/mcp",` +
		`"authorization_servers":["https://kc.example.com/realms/gitlab?x=1&y=2"],` +
		`"scopes_supported":["mcp"],"bearer_methods_supported":["header"],` +
		`"resource_name":"GitLab MCP Server"}`
	eeDoc = `{"resource":"https://gitlab.example.com/api/v4/orbit/mcp",` +
		`"authorization_servers":["https://kc.example.com/realms/gitlab?x=1&y=2"],` +
		`"scopes_supported":["mcp_orbit","mcp"],"bearer_methods_supported":["header"],` +
		`"resource_name":"GitLab Orbit MCP Server"}`
)

func TestRegister_documents(t *testing.T) {
	tests := []struct {
		name     string
		ee       bool
		path     string
		wantCode int
		wantBody string
	}{
		{name: "root describes CE", path: "/.well-known/oauth-protected-resource", wantCode: 200, wantBody: ceDoc},
		{name: "CE path-inserted", path: "/.well-known/oauth-protected-resource/api/v4/mcp", wantCode: 200, wantBody: ceDoc},
		{name: "EE path-inserted", ee: true, path: "/.well-known/oauth-protected-resource/api/v4/orbit/mcp", wantCode: 200, wantBody: eeDoc},
		{name: "root on EE still describes CE", ee: true, path: "/.well-known/oauth-protected-resource", wantCode: 200, wantBody: ceDoc},
		{name: "EE disabled", path: "/.well-known/oauth-protected-resource/api/v4/orbit/mcp", wantCode: 404},
		{name: "unknown resource", ee: true, path: "/.well-known/oauth-protected-resource/api/v4/other", wantCode: 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := do(newEngine(tt.ee), http.MethodGet, tt.path, map[string]string{"Origin": "https://app.example"})
			if w.Code != tt.wantCode {
				t.Fatalf("status = %d, want %d; body %s", w.Code, tt.wantCode, w.Body)
			}
			if tt.wantCode != 200 {
				return
			}
			if got := w.Body.String(); got != tt.wantBody {
				t.Fatalf("body =\n%s\nwant\n%s", got, tt.wantBody)
			}
			for name, want := range map[string]string{
				"Content-Type":                "application/json",
				"Cache-Control":               "public, max-age=3600",
				"Access-Control-Allow-Origin": "*",
			} {
				if got := w.Header().Get(name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
		})
	}
}

// Ensure that without an authorization server no document is served (a
// document naming none sends clients to register with glmcp) and that a
// registration attempt is refused with an RFC 7591 error saying which
// token to send.
func TestRegister_withoutAuthorizationServers(t *testing.T) {
	r := gin.New()
	wellknown.Register(r, wellknown.Config{PublicURL: publicURL, Resources: resources(true)})
	for _, p := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/api/v4/mcp", "/.well-known/oauth-protected-resource/api/v4/orbit/mcp"} {
		for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodOptions} {
			if w := do(r, m, p, nil); w.Code != http.StatusNotFound {
				t.Errorf("%s %s = %d, want 404", m, p, w.Code)
			}
		}
	}
	w := do(r, http.MethodPost, "/register", map[string]string{"Content-Type": "application/json"})
	if w.Code != http.StatusBadRequest || w.Header().Get("Cache-Control") != "no-store" {
		t.Fatalf("POST /register = %d %v, want 400 no-store", w.Code, w.Header())
	}
	var body struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || body.Error != "invalid_client_metadata" ||
		body.Description != wellknown.NoRegistrationDescription || strings.Contains(w.Body.String(), `\u00`) {
		t.Fatalf("POST /register body = %s", w.Body)
	}
	// With an authorization server, registration is its business: 404 here.
	if w := do(newEngine(true), http.MethodPost, "/register", nil); w.Code != http.StatusNotFound {
		t.Fatalf("POST /register with an authorization server = %d, want 404", w.Code)
	}
}

// Ensure a registration attempt carrying a credential is told what is
// wrong with it first, and one without is told which token to send.
func TestRegister_explainsTheCredential(t *testing.T) {
	r := gin.New()
	wellknown.Register(r, wellknown.Config{PublicURL: publicURL, Resources: resources(false),
		ExplainCredential: func(c *gin.Context) string {
			if c.GetHeader("Authorization") == "" {
				return ""
			}
			return "Personal access token was revoked."
		}})
	for _, tt := range []struct {
		header map[string]string
		want   string
	}{
		{nil, wellknown.NoRegistrationDescription},
		{map[string]string{"Authorization": "Bearer x"}, "Personal access token was revoked. " + wellknown.NoRegistrationNote},
	} {
		w := do(r, http.MethodPost, "/register", tt.header)
		var body struct {
			Error       string `json:"error"`
			Description string `json:"error_description"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || w.Code != http.StatusBadRequest ||
			body.Error != "invalid_client_metadata" || body.Description != tt.want {
			t.Fatalf("POST /register %v = %d %s, want 400 with %q", tt.header, w.Code, w.Body, tt.want)
		}
	}
}

func TestRegister_head(t *testing.T) {
	w := do(newEngine(true), http.MethodHead, "/.well-known/oauth-protected-resource/api/v4/orbit/mcp", nil)
	if w.Code != http.StatusOK {
		t.Fatalf("HEAD status = %d", w.Code)
	}
	if w.Body.Len() != 0 {
		t.Fatalf("HEAD body = %q, want empty", w.Body)
	}
	if got, want := w.Header().Get("Content-Length"), strconv.Itoa(len(eeDoc)); got != want {
		t.Errorf("Content-Length = %q, want %q (the GET body's length)", got, want)
	}
	if w.Header().Get("Access-Control-Allow-Origin") != "*" || w.Header().Get("Cache-Control") != "public, max-age=3600" {
		t.Errorf("HEAD headers = %v", w.Header())
	}
}

func TestRegister_preflight(t *testing.T) {
	r := newEngine(true)
	for _, path := range []string{
		"/.well-known/oauth-protected-resource",
		"/.well-known/oauth-protected-resource/api/v4/mcp",
		"/.well-known/oauth-protected-resource/api/v4/orbit/mcp",
	} {
		w := do(r, http.MethodOptions, path, map[string]string{
			"Origin":                         "https://inspector.example",
			"Access-Control-Request-Method":  "GET",
			"Access-Control-Request-Headers": "mcp-protocol-version",
		})
		if w.Code != http.StatusNoContent {
			t.Fatalf("OPTIONS %s = %d, want 204", path, w.Code)
		}
		for name, want := range map[string]string{
			"Access-Control-Allow-Origin":  "*",
			"Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
			"Access-Control-Allow-Headers": "mcp-protocol-version",
			"Access-Control-Max-Age":       "86400",
			"Vary":                         "Access-Control-Request-Headers",
		} {
			if got := w.Header().Get(name); got != want {
				t.Errorf("OPTIONS %s: %s = %q, want %q", path, name, got, want)
			}
		}
		if w.Body.Len() != 0 {
			t.Errorf("OPTIONS body = %q", w.Body)
		}
	}
	w := do(r, http.MethodOptions, "/.well-known/oauth-protected-resource", nil)
	if got := w.Header().Get("Access-Control-Allow-Headers"); got != "*" {
		t.Errorf("Allow-Headers without a request list = %q, want *", got)
	}
	if w := do(newEngine(false), http.MethodOptions, "/.well-known/oauth-protected-resource/api/v4/orbit/mcp", nil); w.Code != http.StatusNotFound {
		t.Errorf("OPTIONS on disabled EE = %d, want 404", w.Code)
	}
}

func TestURLs(t *testing.T) {
	tests := []struct {
		fn   func(string, string) string
		base string
		path string
		want string
	}{
		{wellknown.MetadataURL, "https://gitlab.example.com", "", "https://gitlab.example.com/.well-known/oauth-protected-resource"},
		{wellknown.MetadataURL, "https://gitlab.example.com/", cePath, "https://gitlab.example.com/.well-known/oauth-protected-resource/api/v4/mcp"},
		{wellknown.MetadataURL, "https://gitlab.example.com", eePath, "https://gitlab.example.com/.well-known/oauth-protected-resource/api/v4/orbit/mcp"},
		{wellknown.ResourceURL, "https://gitlab.example.com//", cePath, "https://gitlab.example.com/api/v4/mcp"},
		{wellknown.ResourceURL, "http://127.0.0.1:8080", eePath, "http://127.0.0.1:8080/api/v4/orbit/mcp"},
	}
	for _, tt := range tests {
		if got := tt.fn(tt.base, tt.path); got != tt.want {
			t.Errorf("(%q, %q) = %q, want %q", tt.base, tt.path, got, tt.want)
		}
	}
}
