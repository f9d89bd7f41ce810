package spec

import (
	"net/http"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/app"
)

// /metrics is for the monitoring system, not for anyone who can reach the
// port (issue #13, item 11): like GitLab's monitoring allowlist, only
// GLMCP_MONITORING_ALLOWLIST (default loopback) may read it; everyone else
// gets 404.

func withMonitoringAllowlist(list ...string) option {
	return func(c *app.Config) { c.MonitoringAllowlist = list }
}

func TestReliability_metricsAllowlist(t *testing.T) {
	t.Run("loopback by default", func(t *testing.T) {
		h := startServer(t)
		r := h.send(t, call{Verb: http.MethodGet, URL: h.URL + "/metrics"})
		r.expectStatus(t, http.StatusOK)
		if !strings.Contains(string(r.Body), "go_goroutines") {
			t.Errorf("/metrics does not look like Prometheus metrics: %.200s", r.Body)
		}
	})
	t.Run("a client outside the allowlist gets 404", func(t *testing.T) {
		h := startServer(t, withMonitoringAllowlist("10.0.0.0/8", "192.0.2.7"))
		r := h.send(t, call{Verb: http.MethodGet, URL: h.URL + "/metrics"})
		r.expectStatus(t, http.StatusNotFound)
		if strings.Contains(string(r.Body), "go_goroutines") {
			t.Errorf("metrics served to a client outside the allowlist")
		}
		// The MCP endpoint and health checks are not affected.
		h.send(t, call{Verb: http.MethodGet, URL: h.URL + "/-/liveness"}).expectStatus(t, http.StatusOK)
		h.send(t, call{User: "alice", Method: "ping"}).expectStatus(t, http.StatusOK)
	})
}
