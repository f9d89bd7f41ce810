package spec

import (
	"net/http"
	"slices"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/subscriptions"
)

// Ensure a change reaches exactly the listeners whose tools/list could
// hold the changed tool: the route group's edition, the
// X-Gitlab-Enabled-Mcp-Server-Tools/-Toolsets headers (aliases included,
// meta always on) and a read_api token's read-only view all count; bulk
// changes and resyncs reach everyone.
//
// Each case runs on a fresh server: the event is published, then the
// server shuts down, and every stream must hold exactly the expected
// notifications before its final result (a signal raced by the shutdown is
// still delivered, so a wrong delivery cannot hide).
func TestListen_visibility(t *testing.T) {
	listeners := []struct {
		name     string
		ee       bool // on the EE route group
		readOnly bool // a read_api token
		header   http.Header
	}{
		{name: "ce"},
		{name: "ee", ee: true},
		{name: "toolsets=merge_requests", header: http.Header{"X-Gitlab-Enabled-Mcp-Server-Toolsets": {"merge_requests"}}},
		{name: "tools=gitlab_search", header: http.Header{"X-Gitlab-Enabled-Mcp-Server-Tools": {"gitlab_search"}}},
		{name: "read_api", readOnly: true},
	}
	all := []string{"ce", "ee", "toolsets=merge_requests", "tools=gitlab_search", "read_api"}
	tools := func(tool string, edition models.Edition) subscriptions.Event {
		return subscriptions.Event{Kind: subscriptions.KindTools, Tool: tool, Edition: edition}
	}
	for _, tc := range []struct {
		name  string
		event subscriptions.Event
		hear  []string
	}{
		{"EE-only tool", tools("semantic_search", models.EditionEE), []string{"ee"}},
		{"core read-only tool, named by alias", tools("search", models.EditionCE), []string{"ce", "ee", "tools=gitlab_search", "read_api"}},
		{"merge request tool", tools("get_merge_request", models.EditionCE), []string{"ce", "ee", "toolsets=merge_requests", "read_api"}},
		{"unlisted (superseded) tool: no listing changes", tools("create_issue", models.EditionCE), []string{}},
		{"meta tool: on with toolsets, not with the tools header alone", tools("get_mcp_server_version", models.EditionCE), []string{"ce", "ee", "toolsets=merge_requests", "read_api"}},
		{"bulk change", tools("", ""), all},
		{"resync", subscriptions.Event{Kind: subscriptions.KindResync}, all},
		{"tool unknown to this code, EE", tools("store_only_tool", models.EditionEE), []string{"ee"}},
		{"tool unknown to this code, CE: told to every CE-side listener", tools("store_only_tool", models.EditionCE), all},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := startServer(t, withEE())
			readOnly := h.mintScopedToken(t, "alice", models.ScopeReadAPI)
			streams := make([]*sseStream, len(listeners))
			for i, l := range listeners {
				c := listenCall("", "alice", l.name, toolsOnly())
				c.Header = l.header
				if l.ee {
					c.URL = h.EE
				}
				if l.readOnly {
					c.User, c.Token = "", readOnly
				}
				streams[i] = h.listen(t, c)
			}
			h.Server.Hub().Publish(tc.event)
			h.Server.BeginShutdown()
			for i, l := range listeners {
				want := 0
				if slices.Contains(tc.hear, l.name) {
					want = 1
				}
				t.Run(l.name, func(t *testing.T) { expectTranscript(t, streams[i], l.name, want) })
			}
		})
	}
}
