package middleware

import (
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
)

// Prometheus collectors for the request path. They are registered once on
// the default registry by RegisterMetrics.
var (
	requestsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "glmcp_http_requests_total",
		Help: "HTTP requests by route, MCP era, JSON-RPC method and status.",
	}, []string{"route", "era", "rpc_method", "status"})
	requestDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "glmcp_http_request_duration_seconds",
		Help:    "HTTP request latency by route and JSON-RPC method (SSE streams excluded).",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
	}, []string{"route", "rpc_method"})
	toolCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "glmcp_tool_calls_total",
		Help: "tools/call requests by tool and status.",
	}, []string{"tool", "status"})
)

// Collectors returns the request collectors, for registration by cmd.
func Collectors() []prometheus.Collector {
	return []prometheus.Collector{requestsTotal, requestDuration, toolCalls}
}

// Metrics records request counts and latencies. Label values are bounded:
// the route template (not the raw path), a known era, and the method only
// for the MCP routes (an unknown method is recorded as "other").
func Metrics() gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		route := c.FullPath()
		if route == "" {
			route = "unmatched"
		}
		f := Fields(c.Request.Context())
		method := boundedMethod(f.RPCMethod)
		status := strconv.Itoa(c.Writer.Status())
		requestsTotal.WithLabelValues(route, f.Era, method, status).Inc()
		if c.Writer.Header().Get("Content-Type") != "text/event-stream" {
			requestDuration.WithLabelValues(route, method).Observe(time.Since(start).Seconds())
		}
		if f.Tool != "" {
			toolCalls.WithLabelValues(f.Tool, status).Inc()
		}
	}
}

func boundedMethod(m string) string {
	switch m {
	case "", "initialize", "ping", "server/discover", "tools/list", "tools/call", "subscriptions/listen",
		"notifications/initialized", "notifications/cancelled":
		return m
	}
	return "other"
}
