package spec

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// Resource subscriptions on subscriptions/listen (2026-07-28): a stream
// subscribed to resource URIs is acknowledged with those the caller may
// read, and gets notifications/resources/updated when one of them changes,
// whoever changed it: a tool, the store's API, plain SQL, another
// instance.

// resourceListen opens a listen stream as user subscribed to uris and
// returns it with the URIs the acknowledgement honours.
func (h *harness) resourceListen(t testing.TB, user string, id any, uris ...string) (*sseStream, []string) {
	t.Helper()
	s := h.stream(t, listenCall("", user, id, map[string]any{"resourceSubscriptions": uris}))
	checkStreamHeaders(t, s.Resp)
	msg := s.nextMessage(t)
	validateMessage(t, revModern, "SubscriptionsAcknowledgedNotification", msg)
	var ack struct {
		Method string `json:"method"`
		Params struct {
			Meta          map[string]json.RawMessage `json:"_meta"`
			Notifications map[string]json.RawMessage `json:"notifications"`
		} `json:"params"`
	}
	decodeJSONInto(t, msg, &ack)
	if ack.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first message = %s, want the acknowledgement", msg)
	}
	checkSubscriptionID(t, ack.Params.Meta, id, msg)
	var honoured []string
	for k, v := range ack.Params.Notifications {
		if k != "resourceSubscriptions" {
			t.Errorf("acknowledged %s = %s; only resourceSubscriptions was asked for", k, v)
			continue
		}
		decodeJSONInto(t, v, &honoured)
	}
	return s, honoured
}

// expectResourceUpdated checks that msg is notifications/resources/updated
// for uri, tagged with the subscription id.
func expectResourceUpdated(t testing.TB, msg []byte, id any, uri string) {
	t.Helper()
	validateMessage(t, revModern, "ResourceUpdatedNotification", msg)
	var n struct {
		Method string `json:"method"`
		Params struct {
			URI  string                     `json:"uri"`
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	decodeJSONInto(t, msg, &n)
	if n.Method != "notifications/resources/updated" || n.Params.URI != uri {
		t.Fatalf("message = %s, want notifications/resources/updated for %s", msg, uri)
	}
	checkSubscriptionID(t, n.Params.Meta, id, msg)
}

func TestListen_resourceSubscriptions(t *testing.T) {
	h := startServer(t)
	ce := h.groups()[0]
	repoSetUp(t, h, "gitlab-org/watched")
	base := h.Cfg.PublicURL
	issue := base + "/gitlab-org/gitlab-mcp/-/issues/1"
	mr := base + "/gitlab-org/gitlab-mcp/-/merge_requests/1"
	file := base + "/gitlab-org/watched/-/blob/feature/feature.txt"
	private := base + "/acme/secret-plans/-/issues/1" // bob is not a member
	missing := base + "/gitlab-org/gitlab-mcp/-/issues/99999"

	// bob (reporter) subscribes; what he may not read is left out, like
	// what does not exist, and duplicates are acknowledged once.
	s, honoured := h.resourceListen(t, "bob", "r", issue, private, "https://elsewhere.example/x", mr, missing, issue, file)
	if want := []string{issue, mr, file}; !sameJSON(t, honoured, want) {
		t.Fatalf("acknowledged resourceSubscriptions = %v, want %v", honoured, want)
	}

	issueID := func(iid int) int64 {
		sc := h.toolsWrite(t, ce, "modern", "alice", "get_issue", map[string]any{"id": "gitlab-org/gitlab-mcp", "issue_iid": iid})
		id, err := sc["id"].(json.Number).Int64()
		if err != nil {
			t.Fatalf("get_issue id = %v", sc["id"])
		}
		return id
	}
	retitle := func(id int64, title string) {
		t.Helper()
		if _, err := h.Env.Store.Issues.UpdateWorkItem(context.Background(), id, models.WorkItemUpdate{Title: &title}); err != nil {
			t.Fatalf("update work item %d: %v", id, err)
		}
	}

	// A change of a resource nobody subscribed to is not told: the next
	// message is the one about the subscribed issue, changed after it.
	retitle(issueID(2), "Not watched")
	retitle(issueID(1), "Watched (changed by the store's API)")
	expectResourceUpdated(t, s.nextMessage(t), "r", issue)

	// A change made with a tool.
	h.toolsWrite(t, ce, "modern", "alice", "save_merge_request",
		map[string]any{"project_id": "gitlab-org/gitlab-mcp", "merge_request_iid": 1, "title": "Watched merge request"})
	expectResourceUpdated(t, s.nextMessage(t), "r", mr)

	// A commit on the file's branch, made with add_commit.
	h.toolsWrite(t, ce, "modern", "alice", "add_commit", map[string]any{
		"project_id": "gitlab-org/watched", "branch": "feature", "commit_message": "Change the watched file",
		"actions": []any{map[string]any{"action": "update", "file_path": "feature.txt", "content": "changed\n"}}})
	expectResourceUpdated(t, s.nextMessage(t), "r", file)

	// A subscription of the private issue by its member is honoured.
	_, honoured = h.resourceListen(t, "alice", 7, private)
	if !sameJSON(t, honoured, []string{private}) {
		t.Errorf("alice's acknowledged resourceSubscriptions = %v, want %v", honoured, []string{private})
	}
}

func TestListen_resourceSubscriptionsBounded(t *testing.T) {
	h := startServer(t)
	uris := make([]string, 101)
	for i := range uris {
		uris[i] = h.Cfg.PublicURL + "/gitlab-org/gitlab-mcp/-/issues/1"
	}
	r := h.send(t, listenCall("", "bob", 1, map[string]any{"resourceSubscriptions": uris}))
	r.expectError(t, http.StatusBadRequest, -32602)
	r = h.send(t, listenCall("", "bob", 2, map[string]any{"resourceSubscriptions": "not a list"}))
	r.expectError(t, http.StatusBadRequest, -32602)
}

// Ensure a change made through one instance, or with plain SQL, reaches a
// listener on another instance of the same PostgreSQL database.
func TestListen_resourceUpdateAcrossInstances(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	a := startServer(t, withDSN(dsn))
	b := startServer(t, withDSN(dsn))
	ce := a.groups()[0]
	<-b.Server.Listening()
	issue := b.Cfg.PublicURL + "/gitlab-org/gitlab-mcp/-/issues/1"
	mr := b.Cfg.PublicURL + "/gitlab-org/gitlab-mcp/-/merge_requests/1"
	s, honoured := b.resourceListen(t, "bob", "x", issue, mr)
	if !sameJSON(t, honoured, []string{issue, mr}) {
		t.Fatalf("acknowledged = %v", honoured)
	}

	a.toolsWrite(t, ce, "modern", "alice", "save_merge_request",
		map[string]any{"project_id": "gitlab-org/gitlab-mcp", "merge_request_iid": 1, "title": "Changed on instance A"})
	expectResourceUpdated(t, s.nextMessage(t), "x", mr)

	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE issues SET title = 'Changed with plain SQL'
		WHERE iid = 1 AND project_id = (SELECT p.id FROM projects p JOIN namespaces n ON n.id = p.namespace_id
		WHERE n.path = 'gitlab-org' AND p.path = 'gitlab-mcp')`); err != nil {
		t.Fatal(err)
	}
	expectResourceUpdated(t, s.nextMessage(t), "x", issue)
}
