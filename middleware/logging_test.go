package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"gitlab.com/glmcp/glmcp/middleware"
)

var generatedID = regexp.MustCompile(`^[0-9a-f]{26}$`)

func TestRequestLogger_requestID(t *testing.T) {
	long64 := strings.Repeat("a", 64)
	tests := []struct {
		name   string
		in     string
		echoed bool
	}{
		{"sane id", "abc-123_X.y", true},
		{"64 characters", long64, true},
		{"uuid", "6f1c1a52-6a0e-4a43-9a57-3c1bde0f3a0b", true},
		{"65 characters", long64 + "a", false},
		{"space", "abc 123", false},
		{"angle brackets", "<script>", false},
		{"slash", "a/b", false},
		{"quote", `a"b`, false},
		{"non-ASCII", "idé", false},
		{"absent", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logger, logs := newLogger()
			var seen string
			r := gin.New()
			r.Use(middleware.RequestLogger(logger))
			r.GET("/x", func(c *gin.Context) {
				seen = middleware.Fields(c.Request.Context()).RequestID
				c.Status(http.StatusNoContent)
			})
			req := httptest.NewRequest(http.MethodGet, "/x", nil)
			if tt.in != "" {
				req.Header.Set(middleware.RequestIDHeader, tt.in)
			}
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)

			got := w.Header().Get(middleware.RequestIDHeader)
			if tt.echoed && got != tt.in {
				t.Fatalf("X-Request-Id = %q, want %q echoed", got, tt.in)
			}
			if !tt.echoed && (got == tt.in || !generatedID.MatchString(got)) {
				t.Fatalf("X-Request-Id = %q, want a fresh generated id", got)
			}
			if seen != got {
				t.Fatalf("LogFields.RequestID = %q, response header %q", seen, got)
			}
			recs := logs.records(t)
			if len(recs) != 1 || recs[0]["request_id"] != got {
				t.Fatalf("log = %v, want one line with request_id %q", recs, got)
			}
		})
	}
}

func TestRequestLogger_generatedIDsDiffer(t *testing.T) {
	logger, _ := newLogger()
	r := gin.New()
	r.Use(middleware.RequestLogger(logger))
	r.GET("/x", func(c *gin.Context) { c.Status(http.StatusNoContent) })
	ids := map[string]bool{}
	for range 3 {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/x", nil))
		ids[w.Header().Get(middleware.RequestIDHeader)] = true
	}
	if len(ids) != 3 {
		t.Fatalf("generated ids %v, want 3 distinct", ids)
	}
}

func TestRequestLogger_accessLine(t *testing.T) {
	const (
		bearer  = "glpat-very-secret-token-value"
		private = "glpat-another-secret-value"
	)
	logger, logs := newLogger()
	r := gin.New()
	r.Use(middleware.RequestLogger(logger))
	r.POST("/api/v4/mcp", func(c *gin.Context) {
		f := middleware.Fields(c.Request.Context())
		f.Era = "2026-07-28"
		f.RPCMethod = "tools/call"
		f.Tool = "get_issue"
		f.ClientName = "claude-code"
		f.ClientVersion = "1.2.3"
		f.UserID = 42
		f.RPCCode = -32602
		c.String(http.StatusAccepted, "done")
	})
	r.GET("/plain", func(c *gin.Context) { c.String(http.StatusOK, "ok") })

	req := httptest.NewRequest(http.MethodPost, "/api/v4/mcp", strings.NewReader(`{"secret":"body"}`))
	req.RemoteAddr = "192.0.2.7:4444"
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("PRIVATE-TOKEN", private)
	req.Header.Set(middleware.RequestIDHeader, "req-1")
	r.ServeHTTP(httptest.NewRecorder(), req)
	r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/plain", nil))

	out := logs.String()
	for _, secret := range []string{bearer, private, `"secret"`} {
		if strings.Contains(out, secret) {
			t.Fatalf("log output contains %q:\n%s", secret, out)
		}
	}
	recs := logs.records(t)
	if len(recs) != 2 {
		t.Fatalf("log has %d lines, want one per request:\n%s", len(recs), out)
	}

	first := recs[0]
	want := map[string]any{
		"level":          "INFO",
		"msg":            "request",
		"request_id":     "req-1",
		"http_method":    "POST",
		"path":           "/api/v4/mcp",
		"status":         float64(http.StatusAccepted),
		"remote_ip":      "192.0.2.7",
		"user_id":        float64(42),
		"era":            "2026-07-28",
		"rpc_method":     "tools/call",
		"tool":           "get_issue",
		"client_name":    "claude-code",
		"client_version": "1.2.3",
		"rpc_code":       float64(-32602),
	}
	for k, v := range want {
		if first[k] != v {
			t.Fatalf("log field %s = %v (%T), want %v; line %v", k, first[k], first[k], v, first)
		}
	}
	if d, ok := first["duration_ms"].(float64); !ok || d < 0 {
		t.Fatalf("duration_ms = %v, want a non-negative number", first["duration_ms"])
	}

	// Zero fields are left out.
	second := recs[1]
	if second["status"] != float64(http.StatusOK) || second["path"] != "/plain" {
		t.Fatalf("second line = %v", second)
	}
	for _, k := range []string{"user_id", "era", "rpc_method", "tool", "client_name", "client_version", "rpc_code"} {
		if _, ok := second[k]; ok {
			t.Fatalf("second line has %s though it was never set: %v", k, second)
		}
	}
}

func TestFields_withoutLogger(t *testing.T) {
	// Without RequestLogger, Fields still returns something writable.
	r := gin.New()
	r.GET("/x", func(c *gin.Context) {
		middleware.Fields(c.Request.Context()).UserID = 1
		c.Status(http.StatusNoContent)
	})
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/x", nil))
	if w.Code != http.StatusNoContent {
		t.Fatalf("status = %d, want 204", w.Code)
	}
}

// The access log says how a tools/call ended (outcome, error_class) and why
// a request was refused (auth_error, reason), and never writes the
// credential even when a reason would carry it.
func TestRequestLogger_outcomeAndReason(t *testing.T) {
	const token = "glpat-secret-credential-0123"
	tests := []struct {
		name   string
		status int
		set    func(f *middleware.LogFields)
		header string // Authorization
		want   map[string]any
		absent []string
	}{
		{name: "tool error", status: 200, set: func(f *middleware.LogFields) {
			f.RPCMethod, f.Tool, f.Outcome, f.ErrorClass = "tools/call", "get_issue", middleware.OutcomeToolError, "not_found"
		}, want: map[string]any{"outcome": "tool_error", "error_class": "not_found", "tool": "get_issue"}},
		{name: "success", status: 200, set: func(f *middleware.LogFields) {
			f.RPCMethod, f.Tool = "tools/call", "get_issue"
		}, want: map[string]any{"outcome": "ok"}, absent: []string{"error_class"}},
		{name: "unknown tool in the Legacy era (200)", status: 200, set: func(f *middleware.LogFields) {
			f.RPCMethod, f.RPCCode, f.RPCClass = "tools/call", -32602, "invalid_params"
		}, want: map[string]any{"outcome": "protocol_error", "error_class": "invalid_params"}},
		{name: "store unavailable", status: 503, set: func(f *middleware.LogFields) {
			f.RPCMethod, f.RPCCode, f.RPCClass = "tools/call", -32603, "store_unavailable"
		}, want: map[string]any{"outcome": "protocol_error", "error_class": "store_unavailable"}},
		{name: "read-only step-up", status: 403, set: func(f *middleware.LogFields) {
			f.RPCMethod, f.AuthError, f.Reason = "tools/call", "insufficient_scope", "The tool writes data."
		}, want: map[string]any{"outcome": "refused", "error_class": "insufficient_scope", "auth_error": "insufficient_scope", "reason": "The tool writes data."}},
		{name: "not a tool call", status: 200, set: func(f *middleware.LogFields) { f.RPCMethod = "tools/list" },
			absent: []string{"outcome", "error_class", "reason"}},
		{name: "401 with a reason", status: 401, header: "Bearer " + token, set: func(f *middleware.LogFields) {
			f.AuthError, f.Reason = "unauthenticated", "Token is expired."
		}, want: map[string]any{"auth_error": "unauthenticated", "reason": "Token is expired."}, absent: []string{"outcome"}},
		{name: "a reason that would carry the credential", status: 401, header: "Bearer " + token, set: func(f *middleware.LogFields) {
			f.AuthError, f.Reason = "unauthenticated", "Token "+token+" is unknown."
		}, want: map[string]any{"reason": "Token [credential] is unknown."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logger, logs := newLogger()
			r := gin.New()
			r.Use(middleware.RequestLogger(logger))
			r.POST("/x", func(c *gin.Context) {
				tt.set(middleware.Fields(c.Request.Context()))
				c.Status(tt.status)
			})
			req := httptest.NewRequest(http.MethodPost, "/x", nil)
			if tt.header != "" {
				req.Header.Set("Authorization", tt.header)
			}
			r.ServeHTTP(httptest.NewRecorder(), req)
			if strings.Contains(logs.String(), token) {
				t.Fatalf("the log holds the credential: %s", logs)
			}
			recs := logs.records(t)
			if len(recs) != 1 {
				t.Fatalf("log = %v, want one line", recs)
			}
			for k, v := range tt.want {
				if recs[0][k] != v {
					t.Errorf("%s = %v, want %v (line %v)", k, recs[0][k], v, recs[0])
				}
			}
			for _, k := range tt.absent {
				if v, ok := recs[0][k]; ok {
					t.Errorf("%s = %v, want it absent", k, v)
				}
			}
		})
	}
}
