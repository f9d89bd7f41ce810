package middleware_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"gitlab.com/glmcp/glmcp/middleware"
)

// metricsEngine serves POST /api/v4/:group/mcp (a route template) behind
// RequestLogger and m.Record; the handler sets the log fields from the
// request's X-Era, X-Method, X-Tool, X-Outcome headers, X-RPC-Code answers
// a JSON-RPC error code with 400, and X-SSE makes it stream.
func metricsEngine(m *middleware.Metrics) *gin.Engine {
	r := gin.New()
	r.Use(middleware.RequestLogger(slog.New(slog.DiscardHandler)), m.Record())
	r.POST("/api/v4/:group/mcp", func(c *gin.Context) {
		f := middleware.Fields(c.Request.Context())
		f.Era = c.GetHeader("X-Era")
		f.RPCMethod = c.GetHeader("X-Method")
		f.Tool = c.GetHeader("X-Tool")
		f.Outcome = c.GetHeader("X-Outcome")
		if code := c.GetHeader("X-RPC-Code"); code != "" {
			f.RPCCode, _ = strconv.Atoi(code)
			c.String(http.StatusBadRequest, "error")
			return
		}
		if c.GetHeader("X-SSE") != "" {
			c.Header("Content-Type", "text/event-stream")
			c.Status(http.StatusOK)
			return
		}
		c.String(http.StatusAccepted, "ok")
	})
	return r
}

// gather reads the registry.
func gather(t *testing.T, reg *prometheus.Registry) []*dto.MetricFamily {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	return mfs
}

// metricValue returns the counter value, or histogram sample count, of the
// series of family name with exactly labels (0 when absent).
func metricValue(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	for _, mf := range gather(t, reg) {
		if mf.GetName() != name {
			continue
		}
	series:
		for _, m := range mf.GetMetric() {
			if len(m.GetLabel()) != len(labels) {
				continue
			}
			for _, lp := range m.GetLabel() {
				if v, ok := labels[lp.GetName()]; !ok || v != lp.GetValue() {
					continue series
				}
			}
			if h := m.GetHistogram(); h != nil {
				return float64(h.GetSampleCount())
			}
			return m.GetCounter().GetValue()
		}
	}
	return 0
}

func TestMetrics(t *testing.T) {
	const route = "/api/v4/:group/mcp"
	tests := []struct {
		name       string
		path       string
		headers    map[string]string
		requests   map[string]string // labels of glmcp_http_requests_total
		durationOK bool              // a latency sample is expected
		tool       map[string]string // labels of glmcp_tool_calls_total, if any
	}{
		{
			name:       "known method",
			path:       "/api/v4/metrics-known/mcp",
			headers:    map[string]string{"X-Era": "2026-07-28", "X-Method": "tools/call", "X-Tool": "metrics_test_tool"},
			requests:   map[string]string{"route": route, "era": "2026-07-28", "rpc_method": "tools/call", "status": "202"},
			durationOK: true,
			tool:       map[string]string{"tool": "metrics_test_tool", "status": "202", "outcome": "ok"},
		},
		{
			name:       "a tool error is counted as one",
			path:       "/api/v4/metrics-tool-error/mcp",
			headers:    map[string]string{"X-Era": "2026-07-28", "X-Method": "tools/call", "X-Tool": "metrics_test_tool", "X-Outcome": "tool_error"},
			requests:   map[string]string{"route": route, "era": "2026-07-28", "rpc_method": "tools/call", "status": "202"},
			durationOK: true,
			tool:       map[string]string{"tool": "metrics_test_tool", "status": "202", "outcome": "tool_error"},
		},
		{
			name:       "an unknown tool is a protocol error of no tool name",
			path:       "/api/v4/metrics-unknown-tool/mcp",
			headers:    map[string]string{"X-Era": "2026-07-28", "X-Method": "tools/call", "X-RPC-Code": "-32602"},
			requests:   map[string]string{"route": route, "era": "2026-07-28", "rpc_method": "tools/call", "status": "400"},
			durationOK: true,
			tool:       map[string]string{"tool": "(unknown)", "status": "400", "outcome": "protocol_error"},
		},
		{
			name:       "unknown method is bounded to other",
			path:       "/api/v4/metrics-unknown/mcp",
			headers:    map[string]string{"X-Era": "legacy-metrics-test", "X-Method": "evil/method-1234567"},
			requests:   map[string]string{"route": route, "era": "legacy-metrics-test", "rpc_method": "other", "status": "202"},
			durationOK: true,
		},
		{
			name:       "no method",
			path:       "/api/v4/metrics-none/mcp",
			headers:    map[string]string{"X-Era": "none-metrics-test"},
			requests:   map[string]string{"route": route, "era": "none-metrics-test", "rpc_method": "", "status": "202"},
			durationOK: true,
		},
		{
			name:       "event stream is counted but not timed",
			path:       "/api/v4/metrics-sse/mcp",
			headers:    map[string]string{"X-Era": "sse-metrics-test", "X-Method": "subscriptions/listen", "X-SSE": "1"},
			requests:   map[string]string{"route": route, "era": "sse-metrics-test", "rpc_method": "subscriptions/listen", "status": "200"},
			durationOK: false,
		},
		{
			name:     "unmatched route",
			path:     "/metrics-test/no/such/route",
			requests: map[string]string{"route": "unmatched", "era": "", "rpc_method": "", "status": "404"},
		},
	}
	reg := prometheus.NewRegistry()
	r := metricsEngine(middleware.NewMetrics(reg, testMethods))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dur := map[string]string{"route": tt.requests["route"], "rpc_method": tt.requests["rpc_method"]}
			beforeReq := metricValue(t, reg, "glmcp_http_requests_total", tt.requests)
			beforeDur := metricValue(t, reg, "glmcp_http_request_duration_seconds", dur)
			var beforeTool float64
			if tt.tool != nil {
				beforeTool = metricValue(t, reg, "glmcp_tool_calls_total", tt.tool)
			}

			req := httptest.NewRequest(http.MethodPost, tt.path, nil)
			for k, v := range tt.headers {
				req.Header.Set(k, v)
			}
			r.ServeHTTP(httptest.NewRecorder(), req)

			if d := metricValue(t, reg, "glmcp_http_requests_total", tt.requests) - beforeReq; d != 1 {
				t.Fatalf("glmcp_http_requests_total%v grew by %v, want 1", tt.requests, d)
			}
			if tt.requests["route"] == route {
				want := 0.0
				if tt.durationOK {
					want = 1
				}
				if d := metricValue(t, reg, "glmcp_http_request_duration_seconds", dur) - beforeDur; d != want {
					t.Fatalf("duration samples%v grew by %v, want %v", dur, d, want)
				}
			}
			if tt.tool != nil {
				if d := metricValue(t, reg, "glmcp_tool_calls_total", tt.tool) - beforeTool; d != 1 {
					t.Fatalf("glmcp_tool_calls_total%v grew by %v, want 1", tt.tool, d)
				}
			}
		})
	}

	// The raw path never becomes a label value.
	for _, mf := range gather(t, reg) {
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetName() == "route" && lp.GetValue() != route && lp.GetValue() != "unmatched" {
					t.Fatalf("%s has route label %q, want the template or unmatched", mf.GetName(), lp.GetValue())
				}
			}
		}
	}
}

// Two servers in one process own separate series, and Handler serves its
// own registry's.
func TestMetrics_ownedPerServer(t *testing.T) {
	regA, regB := prometheus.NewRegistry(), prometheus.NewRegistry()
	a, b := middleware.NewMetrics(regA, testMethods), middleware.NewMetrics(regB, testMethods)
	req := httptest.NewRequest(http.MethodPost, "/api/v4/x/mcp", nil)
	req.Header.Set("X-Method", "ping")
	metricsEngine(a).ServeHTTP(httptest.NewRecorder(), req)

	labels := map[string]string{"route": "/api/v4/:group/mcp", "era": "", "rpc_method": "ping", "status": "202"}
	if v := metricValue(t, regA, "glmcp_http_requests_total", labels); v != 1 {
		t.Errorf("server A: requests = %v, want 1", v)
	}
	if v := metricValue(t, regB, "glmcp_http_requests_total", labels); v != 0 {
		t.Errorf("server B: requests = %v, want 0 (it served nothing)", v)
	}

	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	want := `glmcp_http_requests_total{era="",route="/api/v4/:group/mcp",rpc_method="ping",status="202"} 1`
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), want) {
		t.Errorf("server A /metrics = %d, want 200 containing %q:\n%s", rec.Code, want, rec.Body)
	}
	rec = httptest.NewRecorder()
	b.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), "glmcp_http_requests_total") {
		t.Errorf("server B /metrics = %d, want 200 without server A's series:\n%s", rec.Code, rec.Body)
	}
}

// testMethods stand for the MCP method table's names.
var testMethods = []string{"initialize", "ping", "tools/list", "tools/call", "subscriptions/listen", "prompts/list"}
