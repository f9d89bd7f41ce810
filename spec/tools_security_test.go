package spec

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// The EE code_security tools (list_vulnerabilities, get_vulnerability,
// save_vulnerability) on the orbit demo project's vulnerability, the
// duo_agent_platform tools that glmcp does not have, and the toolsets
// header accepting both toolsets.

func toolsVulnerabilityID(t testing.TB, h *harness) string {
	t.Helper()
	id := storetest.Int(t, h.Env.Store, "SELECT COALESCE(MIN(id), 0) FROM vulnerabilities")
	if id == 0 {
		t.Fatal("no demo vulnerability")
	}
	return fmt.Sprint(id)
}

func TestTools_vulnerabilities(t *testing.T) {
	h := startServer(t, withEE())
	ce, ee := h.groups()[0], h.groups()[1]
	vid := toolsVulnerabilityID(t, h)
	toolsAddUser(t, h, "erin") // EE seat, member of nothing
	// Root is the orbit owner; alice a developer: she reads, root changes.
	list := map[string]any{"project_full_path": "gitlab-org/orbit"}

	t.Run("read", func(t *testing.T) {
		sc := h.toolsRead(t, ee, "alice", "list_vulnerabilities", list)
		toolsExpectField(t, sc, "HIGH", "nodes", 0, "severity")
		toolsExpectField(t, sc, "SAST", "nodes", 0, "reportType")
		toolsExpectField(t, sc, "DETECTED", "nodes", 0, "state")
		toolsExpectField(t, sc, "graph/graph.go", "nodes", 0, "location", "file")
		none := h.toolsRead(t, ee, "alice", "list_vulnerabilities", overrideArgs(list, "severity", []any{"LOW"}, "state", []any{"DETECTED"}))
		toolsExpectField(t, none, "[]", "nodes")
		got := h.toolsRead(t, ee, "alice", "get_vulnerability", map[string]any{"vulnerability_id": vid})
		toolsExpectField(t, got, "CWE-674", "identifiers", 0, "name")
		toolsExpectField(t, got, "Track visited modules (see !1), or bound the traversal depth.", "solution")
		h.toolsInvalid(t, ee, "alice", "list_vulnerabilities", overrideArgs(list, "severity", []any{"SEVERE"}), "/severity")
		h.toolsInvalid(t, ee, "alice", "list_vulnerabilities", overrideArgs(list, "after", "nope"), "not a cursor")
		h.toolsInvalid(t, ee, "alice", "get_vulnerability", map[string]any{"vulnerability_id": "abc"}, "not a numeric vulnerability ID")
		h.toolsFailWith(t, ee, "alice", "get_vulnerability", map[string]any{"vulnerability_id": "99999"}, "404 Vulnerability Not Found")
		// Outsiders (and a guest-less non-member) read it as missing.
		h.toolsSameAsMissing(t, ee, "erin", "get_vulnerability", map[string]any{"vulnerability_id": vid}, map[string]any{"vulnerability_id": "99999"})
		h.toolsSameAsMissing(t, ee, "erin", "list_vulnerabilities", list, map[string]any{"project_full_path": "gitlab-org/nope"})
		h.toolsBlocked(t, ee, "list_vulnerabilities", list)
		// EE tools do not exist on the CE group.
		for _, era := range eras {
			r := h.toolsCall(t, ce, era, "alice", "list_vulnerabilities", list)
			if r.Status == http.StatusOK && !strings.Contains(string(r.Body), "Tool 'list_vulnerabilities' not found.") {
				t.Errorf("%s: CE answered %s", era, r.Body)
			}
		}
	})

	t.Run("refused writes change nothing", func(t *testing.T) {
		save := map[string]any{"vulnerability_id": vid, "action": "confirm"}
		h.toolsFailWith(t, ee, "alice", "save_vulnerability", save,
			"Forbidden: you need at least the Maintainer role in project gitlab-org/orbit to change vulnerabilities")
		h.toolsSameAsMissing(t, ee, "erin", "save_vulnerability", save, overrideArgs(save, "vulnerability_id", "99999"))
		h.toolsInvalid(t, ee, "root", "save_vulnerability", overrideArgs(save, "action", "update_severity", "severity", "LOW"), "requires severity and comment")
		h.toolsInvalid(t, ee, "root", "save_vulnerability", overrideArgs(save, "dismissal_reason", "FALSE_POSITIVE"), "dismissal_reason applies only")
		h.toolsInvalid(t, ee, "root", "save_vulnerability", overrideArgs(save, "action", "create_issue"), "requires project_full_path")
		h.toolsInvalid(t, ee, "root", "save_vulnerability", overrideArgs(save, "action", "ignore"), "/action")
		h.toolsInvalid(t, ee, "root", "save_vulnerability", overrideArgs(save, "action", "dismiss", "dismissal_reason", "BORED"), "/dismissal_reason")
		h.toolsInvalid(t, ee, "root", "save_vulnerability", overrideArgs(save, "action", "create_issue", "project_full_path", "gitlab-org/gitlab-mcp"), "vulnerability's project")
		h.toolsBlocked(t, ee, "save_vulnerability", save)
		ro, _ := authMint(t, h, "root", []string{models.ScopeReadAPI}, authDay(7))
		h.Tokens["root-ro"] = ro
		before := toolsState(t, h)
		for _, era := range eras {
			expect403Scope(t, h, ee, h.toolsCall(t, ee, era, "root-ro", "save_vulnerability", save), "mcp")
		}
		toolsExpectState(t, h, before)
	})

	t.Run("dismiss, revert, confirm, severity, issue", func(t *testing.T) {
		d := h.toolsWrite(t, ee, modern, "root", "save_vulnerability", map[string]any{"vulnerability_id": vid, "action": "dismiss",
			"dismissal_reason": "MITIGATING_CONTROL", "comment": "Depth limit in the indexer."})
		toolsExpectField(t, d, "DISMISSED", "vulnerability", "state")
		toolsExpectField(t, d, "MITIGATING_CONTROL", "vulnerability", "dismissalReason")
		h.toolsFailWith(t, ee, "root", "save_vulnerability", map[string]any{"vulnerability_id": vid, "action": "dismiss"},
			"Conflict: change vulnerability "+vid+": vulnerability "+vid+" is already dismissed")
		toolsExpectField(t, h.toolsWrite(t, ee, legacy, "root", "save_vulnerability", map[string]any{"vulnerability_id": vid, "action": "revert_to_detected"}), "DETECTED", "vulnerability", "state")
		toolsExpectField(t, h.toolsWrite(t, ee, modern, "root", "save_vulnerability", map[string]any{"vulnerability_id": vid, "action": "confirm"}), "CONFIRMED", "vulnerability", "state")
		s := h.toolsWrite(t, ee, modern, "root", "save_vulnerability", map[string]any{"vulnerability_id": vid, "action": "update_severity", "severity": "CRITICAL", "comment": "Crashes the shared indexer."})
		toolsExpectField(t, s, "CRITICAL", "vulnerability", "severity")
		is := h.toolsWrite(t, ee, modern, "root", "save_vulnerability", map[string]any{"vulnerability_id": vid, "action": "create_issue", "project_full_path": "gitlab-org/orbit"})
		if !strings.Contains(fmt.Sprint(toolsDig(is, "issue", "webUrl")), "/gitlab-org/orbit/-/issues/") {
			t.Errorf("issue = %v", is["issue"])
		}
		toolsExpectField(t, is, "CREATED", "vulnerability", "issueLinks", "nodes", 0, "linkType")
		if events := storetest.Int(t, h.Env.Store, "SELECT COUNT(*) FROM vulnerability_events"); events != 4 {
			t.Errorf("vulnerability_events = %d, want 4", events)
		}
	})
}

func TestTools_duoAgentPlatform(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	for _, tool := range []string{"list_duo_sessions", "get_duo_session", "get_duo_workflow_status"} {
		args := map[string]any{}
		if tool != "list_duo_sessions" {
			args["workflow_id"] = 1
		}
		text := h.toolsFail(t, ce, "alice", tool, args)
		if !strings.Contains(text, "GitLab Duo Agent Platform is not available for this namespace") {
			t.Errorf("%s: %q", tool, text)
		}
	}
	// Known toolsets, listing none of the Duo tools.
	for _, era := range eras {
		names := toolsNames(h.toolsList(t, ce, era, "alice", http.Header{hdrToolsets: {"duo_agent_platform"}}))
		if strings.Join(names, ",") != "get_mcp_server_version" {
			t.Errorf("%s: duo_agent_platform lists %v", era, names)
		}
		ee := toolsNames(h.toolsList(t, h.groups()[1], era, "alice", http.Header{hdrToolsets: {"code_security"}}))
		if strings.Join(ee, ",") != "attach_scan_profile,get_mcp_server_version,get_vulnerability,list_vulnerabilities,save_vulnerability" {
			t.Errorf("%s: code_security lists %v", era, ee)
		}
	}
}
