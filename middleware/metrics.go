package middleware

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics owns the request path's Prometheus collectors. app creates one
// per server with NewMetrics, so two servers in one process (the specs
// run many) never share or double-register series.
type Metrics struct {
	// methods are the JSON-RPC method labels; any other is "other".
	methods         map[string]bool
	gatherer        prometheus.Gatherer
	requestsTotal   *prometheus.CounterVec
	requestDuration *prometheus.HistogramVec
	toolCalls       *prometheus.CounterVec
	storageErrors   *prometheus.CounterVec
}

// NewMetrics creates the request collectors and registers them on reg,
// which Handler then serves (with whatever else is registered on it).
// methods are the JSON-RPC methods labelled by name (the MCP method
// table's, mcp.MethodNames); any other method is labelled "other", so a
// client cannot grow the label set.
func NewMetrics(reg *prometheus.Registry, methods []string) *Metrics {
	known := make(map[string]bool, len(methods)+1)
	known[""] = true // not a JSON-RPC request (no body read)
	for _, n := range methods {
		known[n] = true
	}
	m := &Metrics{
		methods:  known,
		gatherer: reg,
		requestsTotal: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "glmcp_http_requests_total",
			Help: "HTTP requests by route, MCP era, JSON-RPC method and status.",
		}, []string{"route", "era", "rpc_method", "status"}),
		requestDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "glmcp_http_request_duration_seconds",
			Help:    "HTTP request latency by route and JSON-RPC method (SSE streams excluded).",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"route", "rpc_method"}),
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "glmcp_tool_calls_total",
			Help: "tools/call requests by tool, HTTP status and outcome (ok, tool_error, refused, protocol_error).",
		}, []string{"tool", "status", "outcome"}),
	}
	m.storageErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "glmcp_storage_errors_total",
		Help: "Tool calls answered \"Insufficient storage\": a disk full, over quota or read-only, by tool.",
	}, []string{"tool"})
	reg.MustRegister(m.requestsTotal, m.requestDuration, m.toolCalls, m.storageErrors)
	return m
}

// StorageErrorClass is the error class of a tool call that found a disk
// full (tools.ErrorClassInsufficientStorage): glmcp_storage_errors_total
// counts them.
const StorageErrorClass = "insufficient_storage"

// Handler serves the registry's series in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.gatherer, promhttp.HandlerOpts{})
}

// Record records request counts and latencies. Label values are bounded:
// the route template (not the raw path), a known era, and the method only
// for the MCP routes (an unknown method is recorded as "other").
func (m *Metrics) Record() gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		route := c.FullPath()
		if route == "" {
			route = "unmatched"
		}
		f := Fields(c.Request.Context())
		method := f.RPCMethod
		if !m.methods[method] {
			method = "other"
		}
		status := strconv.Itoa(c.Writer.Status())
		m.requestsTotal.WithLabelValues(route, f.Era, method, status).Inc()
		if c.Writer.Header().Get("Content-Type") != "text/event-stream" {
			m.requestDuration.WithLabelValues(route, method).Observe(time.Since(start).Seconds())
		}
		if outcome, class := f.ToolOutcome(c.Writer.Status()); outcome != "" {
			tool := f.Tool
			if tool == "" {
				tool = "(unknown)" // not resolved: the name is the client's, unbounded
			}
			m.toolCalls.WithLabelValues(tool, status, outcome).Inc()
			if class == StorageErrorClass {
				m.storageErrors.WithLabelValues(tool).Inc()
			}
		}
	}
}
