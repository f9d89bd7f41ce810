package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"gitlab.com/glmcp/glmcp/internal/clocktest"
	"gitlab.com/glmcp/glmcp/middleware"
	"gitlab.com/glmcp/glmcp/middleware/ratelimit"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/auth"
)

// explainEngine serves POST /register answering what ExplainCredential
// says, for the CE and EE groups sharing pat and one failure budget.
func explainEngine(pat *fakePAT, failures *ratelimit.Limiter) *gin.Engine {
	r := gin.New()
	explain := middleware.ExplainCredential([]middleware.GroupAuth{
		{Path: "/api/v4/mcp", Auth: middleware.AuthConfig{PAT: pat, Scopes: auth.CEScopes, Failures: failures}},
		{Path: "/api/v4/orbit/mcp", Auth: middleware.AuthConfig{PAT: pat, Scopes: auth.EEScopes, RequireEESeat: true, Failures: failures}},
	})
	r.POST("/register", func(c *gin.Context) { c.String(http.StatusBadRequest, "%s", explain(c)) })
	return r
}

func explainPost(r http.Handler, header ...string) string {
	req := httptest.NewRequest(http.MethodPost, "/register", nil)
	req.RemoteAddr = "192.0.2.9:4000"
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	return w.Body.String()
}

// Ensure a registration attempt is told what the endpoints would answer
// the credential it carries: nothing without one, the token's own failure
// once (it is the same at every endpoint), the groups that refuse a valid
// token and why, and that every group accepts it.
func TestExplainCredential(t *testing.T) {
	const revoked = "Personal access token was revoked. Create a new one."
	seat := func(id *models.Identity) *models.Identity { id.User.EESeat = true; return id }
	pat := &fakePAT{fn: func(raw string) (*models.Identity, error) {
		switch raw {
		case "revoked":
			return nil, &auth.Error{Kind: auth.Unauthenticated, Presented: true, Reason: revoked}
		case "blocked":
			return nil, &auth.Error{Kind: auth.UserForbidden, Presented: true, Reason: "Your account has been blocked. Ask an administrator to unblock it."}
		case "read_api":
			return seat(identity(7, "read_api")), nil
		case "noseat":
			return identity(7, "mcp"), nil
		case "read_user":
			return seat(identity(7, "read_user")), nil
		}
		return seat(identity(7, "mcp")), nil
	}}
	r := explainEngine(pat, nil)
	tests := []struct {
		name   string
		header []string
		want   string
	}{
		{"no credential", nil, ""},
		{"Basic", []string{"Authorization", "Basic dTpw"}, "Basic authentication is not accepted. Send a GitLab personal access token as \"Authorization: Bearer TOKEN\" or \"PRIVATE-TOKEN: TOKEN\"."},
		{"revoked", []string{"Authorization", "Bearer revoked"}, revoked},
		{"revoked in PRIVATE-TOKEN", []string{"PRIVATE-TOKEN", "revoked"}, revoked},
		{"blocked user", []string{"Authorization", "Bearer blocked"}, "Your account has been blocked. Ask an administrator to unblock it."},
		{"read_api: Orbit refuses", []string{"Authorization", "Bearer read_api"},
			"/api/v4/orbit/mcp: Personal access token lacks a scope this endpoint accepts (mcp_orbit, mcp, api or ai_workflows). Create a token with the mcp scope. Its scopes: read_api."},
		{"read_user: both refuse", []string{"Authorization", "Bearer read_user"},
			"/api/v4/mcp: Personal access token lacks a scope this endpoint accepts (mcp or api; read_api for read-only tools). Create a token with the mcp scope. Its scopes: read_user. " +
				"/api/v4/orbit/mcp: Personal access token lacks a scope this endpoint accepts (mcp_orbit, mcp, api or ai_workflows). Create a token with the mcp scope. Its scopes: read_user."},
		{"no EE seat", []string{"Authorization", "Bearer noseat"}, "/api/v4/orbit/mcp: " + seatReason},
		{"valid everywhere", []string{"Authorization", "Bearer good"}, "The token is valid: /api/v4/mcp and /api/v4/orbit/mcp accept it; no sign-in or registration is needed."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := explainPost(r, tt.header...); got != tt.want {
				t.Fatalf("explanation =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// Ensure explaining spends the address's failed authentications like the
// endpoint (one per refused token, not one per group) and, once they are
// spent, says so without looking the token up.
func TestExplainCredential_failureBudget(t *testing.T) {
	clk := clocktest.New(time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC))
	lim := ratelimit.NewLimiter(ratelimit.Limit{Requests: 2, Per: time.Minute}, clk.Now)
	pat := &fakePAT{fn: func(string) (*models.Identity, error) {
		return nil, &auth.Error{Kind: auth.Unauthenticated, Presented: true, Reason: "Token is invalid"}
	}}
	r := explainEngine(pat, lim)
	for i := range 2 {
		if got := explainPost(r, "Authorization", "Bearer bad"); got != "Token is invalid" {
			t.Fatalf("attempt %d: %q", i+1, got)
		}
	}
	if n := len(pat.seen()); n != 2 {
		t.Fatalf("authenticator calls = %d, want 2 (one per attempt)", n)
	}
	const want = "Too many failed authentications from this address; retry in 30 seconds with a valid token."
	if got := explainPost(r, "Authorization", "Bearer bad"); got != want {
		t.Fatalf("over budget: %q, want %q", got, want)
	}
	if n := len(pat.seen()); n != 2 {
		t.Fatalf("authenticator called over budget (%d calls)", n)
	}
}
