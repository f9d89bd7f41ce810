package spec

import (
	"context"
	"database/sql"
	"net/http"
	"slices"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
	"gitlab.com/glmcp/glmcp/services/subscriptions"
)

// Ensure a tool change made with the CLI — a separate process — reaches an
// open listen stream, on either store: through NOTIFY on PostgreSQL, and on
// the embedded store through the serving process's catalog poller. A client
// re-listing on the notification sees the change.
func TestListen_cliChangeReachesListener(t *testing.T) {
	h := startServer(t)
	s := h.listen(t, listenCall("", "alice", "cli", toolsOnly()))

	h.runGlmcp(t, "tools", "disable", "get_mcp_server_version")
	expectListChanged(t, s.nextMessage(t), "cli")
	if names := h.listedToolNames(t, h.CE, "alice"); slices.Contains(names, "get_mcp_server_version") {
		t.Errorf("tools/list after disable still has get_mcp_server_version: %v", names)
	}

	h.runGlmcp(t, "tools", "describe", "get_merge_request", "--description", "Fetch one merge request (edited by spec).")
	expectListChanged(t, s.nextMessage(t), "cli")
	if d := listedDescription(t, h, "get_merge_request"); d != "Fetch one merge request (edited by spec)." {
		t.Errorf("get_merge_request description after describe = %q", d)
	}

	h.runGlmcp(t, "tools", "enable", "get_mcp_server_version")
	expectListChanged(t, s.nextMessage(t), "cli")
	if names := h.listedToolNames(t, h.CE, "alice"); !slices.Contains(names, "get_mcp_server_version") {
		t.Errorf("tools/list after enable lacks get_mcp_server_version: %v", names)
	}
}

func listedDescription(t *testing.T, h *harness, tool string) string {
	t.Helper()
	r := h.send(t, call{Era: modern, User: "alice", ID: "list", Method: "tools/list"})
	r.expectStatus(t, http.StatusOK)
	validateResult(t, revModern, "ListToolsResult", r.Body)
	var res struct {
		Result struct {
			Tools []struct{ Name, Description string } `json:"tools"`
		} `json:"result"`
	}
	decodeJSONInto(t, r.Body, &res)
	for _, x := range res.Result.Tools {
		if x.Name == tool {
			return x.Description
		}
	}
	t.Fatalf("tools/list has no %s: %s", tool, r.Body)
	return ""
}

// Ensure two instances on one PostgreSQL both hear a change made by the
// CLI against the database, and both serve the changed list.
func TestListen_twoInstancesOnePostgres(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	a := startServer(t, withDSN(dsn))
	b := startServer(t, withDSN(dsn)) // seeds the same demo world again: idempotent
	la := a.listen(t, listenCall("", "alice", "a", toolsOnly()))
	lb := b.listen(t, listenCall("", "bob", "b", toolsOnly()))

	a.runGlmcp(t, "tools", "disable", "get_mcp_server_version")
	expectListChanged(t, la.nextMessage(t), "a")
	expectListChanged(t, lb.nextMessage(t), "b")
	for name, h := range map[string]*harness{"A": a, "B": b} {
		if names := h.listedToolNames(t, h.CE, "alice"); slices.Contains(names, "get_mcp_server_version") {
			t.Errorf("instance %s still lists get_mcp_server_version: %v", name, names)
		}
	}
}

// Ensure a CLI change of an EE-only tool reaches the EE-group listener and
// not the CE-group one, and a change outside a listener's toolsets header
// does not reach it either.
func TestListen_cliChangeOnlyToListenersWhoSeeTheTool(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	h := startServer(t, withEE(), withDSN(dsn))
	eeTool := eeOnlyTool(t, h)
	ce := h.listen(t, listenCall("", "alice", "ce", toolsOnly()))
	ee := h.listen(t, listenCall(h.EE, "alice", "ee", toolsOnly()))
	mrCall := listenCall("", "alice", "mr", toolsOnly())
	mrCall.Header = http.Header{"X-Gitlab-Enabled-Mcp-Server-Toolsets": {"merge_requests"}}
	mr := h.listen(t, mrCall)

	h.runGlmcp(t, "tools", "disable", eeTool)
	expectListChanged(t, ee.nextMessage(t), "ee")
	// A stream registered now has waited for that fan-out to finish (the
	// hub registers under its write lock): whoever was signalled, was.
	h.listen(t, listenCall("", "bob", "barrier-1", toolsOnly()))

	h.runGlmcp(t, "tools", "disable", "search")
	expectListChanged(t, ee.nextMessage(t), "ee")
	expectListChanged(t, ce.nextMessage(t), "ce")
	h.listen(t, listenCall("", "bob", "barrier-2", toolsOnly()))

	// Shutting down flushes any signal still pending before the final
	// result, so a wrong delivery would show here.
	h.Server.BeginShutdown()
	expectTranscript(t, ce, "ce", 0) // heard search only, read above
	expectTranscript(t, ee, "ee", 0)
	expectTranscript(t, mr, "mr", 0) // heard neither
}

// eeOnlyTool returns the name of an enabled EE-only tool: the catalog's
// semantic_search, or a row registered for the test when the code has
// none.
func eeOnlyTool(t *testing.T, h *harness) string {
	t.Helper()
	ctx := context.Background()
	if tool, err := h.Env.Store.Tools.FindToolByName(ctx, "semantic_search"); err == nil && tool.Edition == models.EditionEE && tool.Enabled {
		return tool.Name
	}
	row := &models.Tool{
		Name: "spec_ee_only", Title: "Spec EE tool", Description: "An EE-only tool registered by a spec.",
		InputSchema: models.JSON(`{"type":"object"}`), Annotations: models.JSON(`{"readOnlyHint":true}`),
		Toolset: models.ToolsetCore, Edition: models.EditionEE, Enabled: true, Aliases: models.StringList{},
	}
	if err := h.Env.Store.Tools.UpsertTool(ctx, row); err != nil {
		t.Fatalf("register EE tool: %v", err)
	}
	return row.Name
}

// Ensure a lost LISTEN connection is re-established and the open streams
// are told to re-list (changes may have been missed), and that changes
// flow again afterwards.
func TestListen_resyncAfterReconnect(t *testing.T) {
	h := startServer(t)
	if h.Env.Embedded {
		t.Skip("cross-instance notification needs PostgreSQL (set GLMCP_TEST_DATABASE_URL)")
	}
	s := h.listen(t, listenCall("", "alice", "r", toolsOnly()))
	db, err := sql.Open("pgx", h.Cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	var killed int
	err = db.QueryRowContext(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = 'glmcp-catalog-listener' AND datname = current_database()`).Scan(&killed)
	if err != nil || killed != 1 {
		t.Fatalf("terminate the listener's backend: killed %d, %v; want 1", killed, err)
	}
	expectListChanged(t, s.nextMessage(t), "r") // the resync

	// The resync is sent once LISTEN is active again: a NOTIFY from
	// anywhere reaches the stream.
	ev := subscriptions.Event{Kind: subscriptions.KindTools, Tool: "get_merge_request", Edition: models.EditionCE}
	if err := subscriptions.NewPGPublisher(db).Publish(ctx, ev); err != nil {
		t.Fatal(err)
	}
	expectListChanged(t, s.nextMessage(t), "r")
}
