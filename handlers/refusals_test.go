package handlers_test

import (
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"gitlab.com/glmcp/glmcp/handlers"
	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
	"gitlab.com/glmcp/glmcp/middleware"
	"gitlab.com/glmcp/glmcp/middleware/ratelimit"
)

// Ensure each refusal the middleware can make is answered with its
// JSON-RPC error, status and headers from the one status table, and its
// code and class are left for the access log.
func TestRenderRefusals(t *testing.T) {
	gin.SetMode(gin.TestMode)
	tests := []struct {
		name    string
		err     error
		status  int
		headers map[string]string
		body    string
		class   string
	}{
		{"origin", &middleware.Refusal{Kind: middleware.RefusalOrigin, Message: "Forbidden: invalid Origin header"}, 403, nil,
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Forbidden: invalid Origin header"}}`, "invalid_request"},
		{"internal", &middleware.Refusal{Kind: middleware.RefusalInternal}, 500, nil,
			`{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"}}`, "internal"},
		{"store unavailable", &middleware.Refusal{Kind: middleware.RefusalStoreUnavailable}, 503, map[string]string{"Retry-After": "5"},
			`{"jsonrpc":"2.0","error":{"code":-32603,"message":"Store unavailable: the database cannot be reached right now; retry later","data":{"retryAfterSeconds":5}}}`, "store_unavailable"},
		{"rate limited", &ratelimit.Exceeded{Message: "Slow down", RetryAfter: 0, Data: map[string]int{"limit": 1}}, 429, map[string]string{"Retry-After": "1"},
			`{"jsonrpc":"2.0","error":{"code":-31029,"message":"Slow down","data":{"limit":1}}}`, "rpc_-31029"},
		{"a JSON-RPC error as it is", jsonrpc.MethodNotAllowed(), 405, map[string]string{"Allow": "POST"},
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Method not allowed: the MCP endpoint accepts POST only"}}`, "invalid_request"},
		{"anything else", errors.New("a bug"), 500, nil,
			`{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"}}`, "internal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f *middleware.LogFields
			r := gin.New()
			r.Use(middleware.RequestLogger(nopLogger()), func(c *gin.Context) {
				c.Next()
				f = middleware.Fields(c.Request.Context())
			}, handlers.RenderRefusals)
			r.POST("/x", func(c *gin.Context) { middleware.Refuse(c, tt.err) }, func(*gin.Context) { t.Error("the chain went on after a refusal") })
			w := httptest.NewRecorder()
			r.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/x", nil))
			if w.Code != tt.status || w.Body.String() != tt.body {
				t.Fatalf("response = %d %s, want %d %s", w.Code, w.Body, tt.status, tt.body)
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
			for k, v := range tt.headers {
				if got := w.Header().Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			if f.RPCClass != tt.class || f.RPCCode == 0 {
				t.Errorf("log fields: code %d class %q, want class %q", f.RPCCode, f.RPCClass, tt.class)
			}
		})
	}
}

// Ensure a response already started is left alone, and a request nobody
// refused is not touched.
func TestRenderRefusals_writtenOrNotRefused(t *testing.T) {
	gin.SetMode(gin.TestMode)
	r := gin.New()
	r.Use(handlers.RenderRefusals)
	r.POST("/written", func(c *gin.Context) {
		c.String(http.StatusOK, "partial")
		middleware.Refuse(c, &middleware.Refusal{Kind: middleware.RefusalInternal})
	})
	r.POST("/ok", func(c *gin.Context) { c.Status(http.StatusAccepted) })
	for path, want := range map[string]struct {
		status int
		body   string
	}{"/written": {200, "partial"}, "/ok": {202, ""}} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest(http.MethodPost, path, nil))
		if w.Code != want.status || w.Body.String() != want.body {
			t.Errorf("%s: %d %q, want %d %q", path, w.Code, w.Body, want.status, want.body)
		}
	}
}

func nopLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// Ensure the router writes a panic's refusal inside the metrics: the
// client gets the internal error, and the metrics count its 500.
func TestNewRouter_panicIsRenderedAndCounted(t *testing.T) {
	gin.SetMode(gin.TestMode)
	reg := prometheus.NewRegistry()
	r := handlers.NewRouter(handlers.Deps{Metrics: middleware.NewMetrics(reg, nil)})
	r.POST("/boom", func(*gin.Context) { panic("boom") })
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/boom", nil))
	if want := `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"}}`; w.Code != 500 || w.Body.String() != want {
		t.Fatalf("response = %d %s, want 500 %s", w.Code, w.Body, want)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	counted := false
	for _, mf := range mfs {
		if mf.GetName() != "glmcp_http_requests_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			counted = counted || (labels["route"] == "/boom" && labels["status"] == "500" && m.GetCounter().GetValue() == 1)
		}
	}
	if !counted {
		t.Errorf("the panic's 500 on /boom was not counted: %v", mfs)
	}
}
