package spec

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// Two agents doing the same write at once (issue #13, items 2 and 3): real
// concurrent HTTP requests against the server on a real database. Every
// call must end in a clear answer and the store must stay consistent.

// relConcurrency is how many identical writes race.
const relConcurrency = 20

// relCallResult is one raced tools/call: its HTTP status and, for a
// result, isError and the text block.
type relCallResult struct {
	status      int
	contentType string
	isError     bool
	text        string
	body        string
	err         error
	// sent: the whole request was written before err (an answer lost, not
	// a connection refused).
	sent bool
	// reused: the request went on a kept-alive connection the server had
	// answered on before (so it had accepted it).
	reused bool
}

// relRace sends n identical Legacy tools/call requests as user at once
// (released together) and returns every outcome, each answer validated
// against the schema. Call it from the test goroutine.
func (h *harness) relRace(t testing.TB, n int, user, tool string, args map[string]any) []relCallResult {
	t.Helper()
	c := call{User: user, Method: "tools/call", Params: map[string]any{"name": tool, "arguments": args}}
	reqs := make([]*http.Request, n)
	for i := range reqs {
		reqs[i] = h.request(t, context.Background(), c)
	}
	out := make([]relCallResult, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: n, MaxIdleConnsPerHost: n}}
	defer client.CloseIdleConnections()
	for i := range n {
		wg.Go(func() {
			<-start
			out[i] = relPost(client, reqs[i])
		})
	}
	close(start)
	wg.Wait()
	for _, r := range out {
		if r.err == nil && strings.HasPrefix(r.contentType, "application/json") {
			validateAnswer(t, c.rev(), c.Method, []byte(r.body))
		}
	}
	return out
}

// relPost sends one request and decodes a tools/call answer.
func relPost(client *http.Client, req *http.Request) relCallResult {
	res, err := client.Do(req)
	if err != nil {
		return relCallResult{err: err}
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	r := relCallResult{status: res.StatusCode, contentType: res.Header.Get("Content-Type"), body: string(b), err: err}
	var env struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if json.Unmarshal(b, &env) == nil {
		r.isError = env.Result.IsError
		if len(env.Result.Content) > 0 {
			r.text = env.Result.Content[0].Text
		}
	}
	return r
}

// relCount runs a COUNT query on the store.
func relCount(t testing.TB, h *harness, query string, args ...any) int64 {
	t.Helper()
	return storetest.Int(t, h.Env.Store, query, args...)
}

func TestReliability_concurrentCreateIssueWithNewLabel(t *testing.T) {
	h := startServer(t)
	project := toolsProject(t, h, "gitlab-org/gitlab-mcp")
	// Several rounds, each with a label no one has created yet: one round
	// can miss the race window; five in a row do not.
	for round := range 5 {
		issuesBefore := relCount(t, h, "SELECT COUNT(*) FROM issues WHERE project_id = ?", project.ID)
		label := fmt.Sprintf("spec-raced-label-%d", round)
		results := h.relRace(t, relConcurrency, "alice", "create_issue", map[string]any{
			"id": "gitlab-org/gitlab-mcp", "title": "Raced", "labels": []any{"bug", label},
		})
		for i, r := range results {
			if r.err != nil || r.status != http.StatusOK || r.isError {
				t.Errorf("round %d call %d: err %v, status %d, isError %v: %s", round, i, r.err, r.status, r.isError, r.body)
			}
		}
		if n := relCount(t, h, "SELECT COUNT(*) FROM labels WHERE project_id = ? AND name = ?", project.ID, label); n != 1 {
			t.Errorf("labels named %q: %d, want exactly 1", label, n)
		}
		if n := relCount(t, h, "SELECT COUNT(DISTINCT iid) FROM issues WHERE project_id = ?", project.ID) - issuesBefore; n != relConcurrency {
			t.Errorf("round %d: %d issues with distinct iids created, want %d", round, n, relConcurrency)
		}
	}
}

func TestReliability_concurrentCreateMergeRequestOpensOne(t *testing.T) {
	h := startServer(t)
	project := toolsProject(t, h, "gitlab-org/gitlab-mcp")
	toolsBranch(t, h, "gitlab-org/gitlab-mcp", "spec/race", "main")
	// One round per branch pair no open merge request uses yet.
	for _, pair := range [][2]string{
		{"spec/race", "main"}, {"main", "spec/race"}, {"spec/race", "feature/server-discover"},
	} {
		source, target := pair[0], pair[1]
		const openSQL = "SELECT iid FROM merge_requests WHERE project_id = ? AND source_branch = ? AND target_branch = ? AND state = 'opened'"
		if open := storetest.Ints(t, h.Env.Store, openSQL, project.ID, source, target); len(open) != 0 {
			t.Fatalf("the demo already has open merge requests %s → %s: %v", source, target, open)
		}
		results := h.relRace(t, relConcurrency, "alice", "save_merge_request", map[string]any{
			"project_id": "gitlab-org/gitlab-mcp", "title": "Raced", "source_branch": source, "target_branch": target,
		})
		open := storetest.Ints(t, h.Env.Store, openSQL, project.ID, source, target)
		if len(open) != 1 {
			t.Errorf("open merge requests %s → %s: %v, want exactly one", source, target, open)
			continue
		}
		// GitLab answers 409 {"message": ["Another open merge request already
		// exists for this source branch: !N"]}.
		want := fmt.Sprintf("Conflict: Another open merge request already exists for this source branch: !%d", open[0])
		ok := 0
		for i, r := range results {
			switch {
			case r.err != nil || r.status != http.StatusOK:
				t.Errorf("%s → %s call %d: err %v, status %d: %s", source, target, i, r.err, r.status, r.body)
			case !r.isError:
				ok++
			case r.text != want:
				t.Errorf("%s → %s call %d: text %q, want %q", source, target, i, r.text, want)
			}
		}
		if ok != 1 {
			t.Errorf("%s → %s: %d of %d calls succeeded, want exactly 1", source, target, ok, relConcurrency)
		}
	}
}
