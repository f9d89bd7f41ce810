package spec

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/services/store"
)

// The issue view cache (issue #12): each instance answers get_issue of an
// issue it read before from memory, and every change to a row the view is
// read from — made by any writer of the database — reaches every instance
// as a notification (PostgreSQL NOTIFY on glmcp_views, sent by triggers).
// Like the identity cache specs (auth_cache_test.go), these run two
// instances on one database and change rows with plain SQL. On the
// embedded store (the sqlite specs at the end) the same changes are marked
// by triggers in the file, read before each use: the next get_issue reads
// them, with no notification to wait for.

// secretIssue is acme/secret-plans#1: private, alice (its only member,
// maintainer) wrote it, is assigned and commented on it.
var secretIssue = map[string]any{"id": "acme/secret-plans", "issue_iid": 1}

// viewGet calls get_issue as alice on h (Modern) and returns the result.
func viewGet(t *testing.T, h *harness, args map[string]any) map[string]any {
	t.Helper()
	return viewGetAs(t, h, "alice", args)
}

// viewGetAs is viewGet as user.
func viewGetAs(t *testing.T, h *harness, user string, args map[string]any) map[string]any {
	t.Helper()
	g := h.groups()[0]
	return toolsResult(t, g, "modern", h.toolsCall(t, g, "modern", user, "get_issue", args))
}

// viewRead is viewGet of a readable issue: its structuredContent.
func viewRead(t *testing.T, h *harness, args map[string]any) map[string]any {
	t.Helper()
	return toolsSucceeded(t, viewGet(t, h, args))
}

// viewCachedOn reads args on h until it is answered from h's cache: the
// first read may store it, the next one must be a hit.
func viewCachedOn(t *testing.T, h *harness, args map[string]any) map[string]any {
	t.Helper()
	return viewCachedAs(t, h, "alice", args)
}

// viewCachedAs is viewCachedOn as user.
func viewCachedAs(t *testing.T, h *harness, user string, args map[string]any) map[string]any {
	t.Helper()
	c := h.Server.IssueViewCache()
	toolsSucceeded(t, viewGetAs(t, h, user, args))
	before := c.Stats()
	sc := toolsSucceeded(t, viewGetAs(t, h, user, args))
	if after := c.Stats(); after.Hits != before.Hits+1 || after.Misses != before.Misses {
		t.Fatalf("issue view cache stats %+v → %+v: want one hit, no miss", before, after)
	}
	return sc
}

// awaitViews waits until h's issue view cache stats satisfy ok (the
// notification round trip) and returns how long that took.
func awaitViews(t *testing.T, h *harness, what string, ok func(store.IssueViewCacheStats) bool) time.Duration {
	t.Helper()
	start := time.Now()
	deadline := start.Add(10 * time.Second)
	for !ok(h.Server.IssueViewCache().Stats()) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not seen within 10 s (stats %+v)", what, h.Server.IssueViewCache().Stats())
		}
		time.Sleep(time.Millisecond)
	}
	return time.Since(start)
}

// viewNum reads a JSON number, -1 if v is none.
func viewNum(v any) float64 {
	switch n := v.(type) {
	case float64:
		return n
	case json.Number:
		f, err := n.Float64()
		if err == nil {
			return f
		}
	}
	return -1
}

// viewChange caches args on both instances, runs query with plain SQL,
// waits for both caches to drop the view, and returns what each instance
// reads next.
func (p *cachePair) viewChange(t *testing.T, args map[string]any, query string, qargs ...any) [2]map[string]any {
	t.Helper()
	hs := [2]*harness{p.a, p.b}
	var drops [2]int64
	for i, h := range hs {
		viewCachedOn(t, h, args)
		drops[i] = h.Server.IssueViewCache().Stats().Drops
	}
	p.exec(t, query, qargs...)
	var out [2]map[string]any
	for i, h := range hs {
		took := awaitViews(t, h, query, func(s store.IssueViewCacheStats) bool { return s.Drops > drops[i] })
		t.Logf("%.40s… reached instance %d %v after the commit", query, i, took)
		out[i] = viewRead(t, h, args)
	}
	return out
}

// Ensure a change made with plain SQL to the issue, its labels, its notes
// or its author is what both instances answer on their next get_issue,
// though both had the issue cached.
func TestIssueViewCache_changedByPlainSQL(t *testing.T) {
	p := startCachePair(t)
	const issue = `(SELECT i.id FROM issues i JOIN projects pr ON pr.id = i.project_id
		WHERE pr.path_with_namespace = 'acme/secret-plans' AND i.iid = 1)`
	before := viewCachedOn(t, p.a, secretIssue)
	if viewNum(before["user_notes_count"]) < 1 {
		t.Fatalf("user_notes_count = %v, want a note to change", before["user_notes_count"])
	}

	for _, c := range []struct {
		what, query string
		check       func(sc map[string]any) bool
	}{
		{"title", "UPDATE issues SET title = 'Renamed with SQL' WHERE id = " + issue,
			func(sc map[string]any) bool { return sc["title"] == "Renamed with SQL" }},
		{"labels", `UPDATE issues SET labels = '["strategy","sql"]' WHERE id = ` + issue,
			func(sc map[string]any) bool { l, _ := sc["labels"].([]any); return len(l) == 2 && l[1] == "sql" }},
		{"a note", "UPDATE notes SET system = true WHERE noteable_type = 'Issue' AND noteable_id = " + issue,
			func(sc map[string]any) bool { return viewNum(sc["user_notes_count"]) == 0 }},
		{"the author's name", "UPDATE users SET name = 'Alice Renamed' WHERE username = 'alice'",
			func(sc map[string]any) bool {
				a, _ := sc["author"].(map[string]any)
				return a["name"] == "Alice Renamed"
			}},
	} {
		for i, sc := range p.viewChange(t, secretIssue, c.query) {
			if !c.check(sc) {
				t.Errorf("%s changed with SQL: instance %d reads %v", c.what, i, sc)
			}
		}
	}
}

// Ensure removing the caller's membership with plain SQL refuses the
// issue on both instances' next get_issue, though both had it cached.
func TestIssueViewCache_membershipRemovedByPlainSQL(t *testing.T) {
	p := startCachePair(t)
	hs := [2]*harness{p.a, p.b}
	var drops [2]int64
	for i, h := range hs {
		viewCachedOn(t, h, secretIssue)
		drops[i] = h.Server.IssueViewCache().Stats().Drops
	}
	p.exec(t, `DELETE FROM project_members WHERE user_id = (SELECT id FROM users WHERE username = 'alice')
		AND project_id = (SELECT id FROM projects WHERE path_with_namespace = 'acme/secret-plans')`)
	for i, h := range hs {
		awaitViews(t, h, "membership removed", func(s store.IssueViewCacheStats) bool { return s.Drops > drops[i] })
		res := viewGet(t, h, secretIssue)
		if text := toolsText(t, res); res["isError"] != true || !strings.Contains(text, "Project Not Found") {
			t.Errorf("instance %d after the membership was removed: %v", i, res)
		}
	}
}

// Ensure a get_issue after an update_issue on the same instance reads the
// update at once: the instance's own writes do not wait for their
// notification.
func TestIssueViewCache_ownWriteReadAtOnce(t *testing.T) {
	p := startCachePair(t)
	viewCachedOn(t, p.a, secretIssue)
	p.a.toolsWrite(t, p.a.groups()[0], "modern", "alice", "save_work_item",
		map[string]any{"project_id": "acme/secret-plans", "work_item_iid": 1, "title": "Renamed with save_work_item"})
	if sc := viewRead(t, p.a, secretIssue); sc["title"] != "Renamed with save_work_item" {
		t.Errorf("get_issue right after save_work_item reads title %v", sc["title"])
	}
}

// Ensure nothing cached before a lost LISTEN connection is served after
// it: a change made while the connection was down (its notification never
// arrives) shows on the next get_issue once the loss is seen.
func TestIssueViewCache_lostListenConnection(t *testing.T) {
	p := startCachePair(t)
	viewCachedOn(t, p.b, secretIssue)
	resets := p.b.Server.IssueViewCache().Stats().Resets

	var killed int
	err := p.db.QueryRowContext(context.Background(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = 'glmcp-catalog-listener' AND datname = current_database()`).Scan(&killed)
	if err != nil || killed != 2 {
		t.Fatalf("terminate the listeners' backends: killed %d, %v; want 2 (one per instance)", killed, err)
	}
	p.exec(t, `UPDATE issues SET title = 'Renamed while deaf' WHERE iid = 1
		AND project_id = (SELECT id FROM projects WHERE path_with_namespace = 'acme/secret-plans')`)

	awaitViews(t, p.b, "loss noticed", func(s store.IssueViewCacheStats) bool { return s.Resets > resets })
	if sc := viewRead(t, p.b, secretIssue); sc["title"] != "Renamed while deaf" {
		t.Errorf("after the loss: title %v", sc["title"])
	}
	awaitViews(t, p.b, "listening again", func(s store.IssueViewCacheStats) bool { return s.Live })
	if sc := viewCachedOn(t, p.b, secretIssue); sc["title"] != "Renamed while deaf" {
		t.Errorf("listening again: title %v", sc["title"])
	}
}

// startSQLiteViewPair starts two instances on one SQLite file (as two
// processes would share it) and opens it a third time for plain SQL.
func startSQLiteViewPair(t *testing.T) *cachePair {
	t.Helper()
	a := startServer(t, withDSN(""))
	b := startServer(t, withStoreOf(a))
	db, err := sql.Open("sqlite", "file:"+a.Env.DSN+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &cachePair{a: a, b: b, db: db}
}

// Ensure, on the embedded store, a change made with plain SQL through
// another handle on the file (the issue, a note, the author) or through
// the other instance's tool is what both instances answer on their very
// next get_issue, though both had the issue cached.
func TestIssueViewCache_sqliteChangedByAnotherWriter(t *testing.T) {
	p := startSQLiteViewPair(t)
	hs := [2]*harness{p.a, p.b}
	const issue = `(SELECT i.id FROM issues i JOIN projects pr ON pr.id = i.project_id
		WHERE pr.path_with_namespace = 'acme/secret-plans' AND i.iid = 1)`
	for _, c := range []struct {
		what  string
		write func()
		check func(sc map[string]any) bool
	}{
		{"title", func() { p.exec(t, "UPDATE issues SET title = 'Renamed with SQL' WHERE id = "+issue) },
			func(sc map[string]any) bool { return sc["title"] == "Renamed with SQL" }},
		{"labels", func() { p.exec(t, `UPDATE issues SET labels = '["strategy","sql"]' WHERE id = `+issue) },
			func(sc map[string]any) bool { l, _ := sc["labels"].([]any); return len(l) == 2 && l[1] == "sql" }},
		{"a note", func() {
			p.exec(t, "UPDATE notes SET system = 1 WHERE noteable_type = 'Issue' AND noteable_id = "+issue)
		},
			func(sc map[string]any) bool { return viewNum(sc["user_notes_count"]) == 0 }},
		{"the author's name", func() { p.exec(t, "UPDATE users SET name = 'Alice Renamed' WHERE username = 'alice'") },
			func(sc map[string]any) bool {
				a, _ := sc["author"].(map[string]any)
				return a["name"] == "Alice Renamed"
			}},
		{"the other instance's save_work_item", func() {
			p.b.toolsWrite(t, p.b.groups()[0], "modern", "alice", "save_work_item",
				map[string]any{"project_id": "acme/secret-plans", "work_item_iid": 1, "title": "Renamed by the other instance"})
		}, func(sc map[string]any) bool { return sc["title"] == "Renamed by the other instance" }},
	} {
		for _, h := range hs {
			viewCachedOn(t, h, secretIssue)
		}
		c.write()
		for i, h := range hs {
			if sc := viewRead(t, h, secretIssue); !c.check(sc) {
				t.Errorf("%s changed: instance %d reads %v", c.what, i, sc)
			}
		}
	}
}

// Ensure, on the embedded store, removing the caller's membership with
// plain SQL refuses the issue on both instances' next get_issue, though
// both had it cached.
func TestIssueViewCache_sqliteMembershipRemoved(t *testing.T) {
	p := startSQLiteViewPair(t)
	hs := [2]*harness{p.a, p.b}
	for _, h := range hs {
		viewCachedOn(t, h, secretIssue)
	}
	p.exec(t, `DELETE FROM project_members WHERE user_id = (SELECT id FROM users WHERE username = 'alice')
		AND project_id = (SELECT id FROM projects WHERE path_with_namespace = 'acme/secret-plans')`)
	for i, h := range hs {
		res := viewGet(t, h, secretIssue)
		if text := toolsText(t, res); res["isError"] != true || !strings.Contains(text, "Project Not Found") {
			t.Errorf("instance %d after the membership was removed: %v", i, res)
		}
	}
}

// publicIssue is gitlab-org/gitlab-mcp#2, an issue of a public project:
// readable by a user who is a member of nothing.
var publicIssue = map[string]any{"id": "gitlab-org/gitlab-mcp", "issue_iid": 2}

// Ensure making a public project private with plain SQL refuses its issue
// to a non-member on both instances' next get_issue, though both had it
// cached for that user: access removed by visibility, not by membership.
func TestIssueViewCache_projectMadePrivate(t *testing.T) {
	for _, c := range []struct {
		name     string
		start    func(*testing.T) *cachePair
		notified bool // PostgreSQL: wait for the notification
	}{
		{"postgres", startCachePair, true},
		{"sqlite", startSQLiteViewPair, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := c.start(t)
			toolsAddUser(t, p.a, "outsider")
			p.b.Tokens["outsider"] = p.a.Tokens["outsider"]
			hs := [2]*harness{p.a, p.b}
			var drops [2]int64
			for i, h := range hs {
				viewCachedAs(t, h, "outsider", publicIssue)
				drops[i] = h.Server.IssueViewCache().Stats().Drops
			}
			p.exec(t, `UPDATE projects SET visibility = 'private' WHERE path_with_namespace = 'gitlab-org/gitlab-mcp'`)
			for i, h := range hs {
				if c.notified {
					awaitViews(t, h, "project made private", func(s store.IssueViewCacheStats) bool { return s.Drops > drops[i] })
				}
				res := viewGetAs(t, h, "outsider", publicIssue)
				if text := toolsText(t, res); res["isError"] != true || !strings.Contains(text, "Project Not Found") {
					t.Errorf("instance %d after the project was made private: %v", i, res)
				}
			}
		})
	}
}
