package spec

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// The 19.5 merge request tools over HTTP: list_merge_requests,
// get_merge_request (facets and their cursors), get_merge_request_notes,
// save_merge_request and save_merge_request_review.

var mcpMR1 = map[string]any{"project_id": "gitlab-org/gitlab-mcp", "merge_request_iid": 1}

func TestTools_getMergeRequest(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]

	t.Run("base and facets, both groups", func(t *testing.T) {
		for _, g := range h.groups() {
			sc := h.toolsRead(t, g, "alice", "get_merge_request", mcpMR1)
			toolsExpectField(t, sc, "Add server/discover for the 2026-07-28 revision", "title")
			toolsExpectField(t, sc, "1", "iid")
			toolsExpectField(t, sc, "opened", "state")
			toolsExpectField(t, sc, "feature/server-discover", "sourceBranch")
			toolsExpectField(t, sc, "MERGEABLE", "detailedMergeStatus")
			toolsExpectField(t, sc, "bob", "reviewers", "nodes", 0, "username")
			toolsExpectField(t, sc, 2, "userNotesCount")
			if sc["diffHeadSha"] == nil || sc["commits"] != nil || sc["notes"] != nil {
				t.Errorf("base view: diffHeadSha %v, unrequested facets commits %v notes %v", sc["diffHeadSha"], sc["commits"], sc["notes"])
			}
		}
		byURL := h.toolsRead(t, ce, "carol", "get_merge_request", map[string]any{"url": h.Cfg.PublicURL + "/gitlab-org/gitlab-mcp/-/merge_requests/1"})
		toolsExpectField(t, byURL, "feature/server-discover", "sourceBranch")

		with := func(kv ...any) map[string]any { return overrideArgs(mcpMR1, kv...) }
		diffs := h.toolsRead(t, ce, "alice", "get_merge_request", with("include", []any{"diffs"}))
		toolsExpectField(t, diffs, 2, "diffStatsSummary", "fileCount")
		toolsExpectField(t, diffs, "internal/mcp/discover.go", "diffStats", 0, "path")
		if diffs["diffs"] != nil {
			t.Errorf("stats detail returned patches")
		}
		none := h.toolsRead(t, ce, "alice", "get_merge_request", with("include", []any{"diffs"}, "detail", "none"))
		if none["diffStats"] != nil || none["diffStatsSummary"] == nil {
			t.Errorf("detail none: %v", none)
		}
		// full_patch, one file a page: the cursor of page 1 resumes at file 2.
		p1 := h.toolsRead(t, ce, "alice", "get_merge_request", with("include", []any{"diffs"}, "detail", "full_patch", "diffs_first", 1))
		toolsExpectField(t, p1, "internal/mcp/discover.go", "diffs", "nodes", 0, "newPath")
		toolsExpectField(t, p1, true, "diffs", "pageInfo", "hasNextPage")
		after := toolsDig(p1, "diffs", "pageInfo", "endCursor")
		p2 := h.toolsRead(t, ce, "alice", "get_merge_request", with("include", []any{"diffs"}, "detail", "full_patch", "diffs_first", 1, "diffs_after", after))
		toolsExpectField(t, p2, "internal/mcp/handler.go", "diffs", "nodes", 0, "newPath")
		toolsExpectField(t, p2, false, "diffs", "pageInfo", "hasNextPage")
		if !strings.Contains(fmt.Sprint(toolsDig(p2, "diffs", "nodes", 0, "diff")), "@@") {
			t.Errorf("patch text missing: %v", toolsDig(p2, "diffs", "nodes", 0))
		}

		commits := h.toolsRead(t, ce, "alice", "get_merge_request", with("include", []any{"commits"}, "commits_first", 1))
		toolsExpectField(t, commits, "Route server/discover to its handler", "commits", "nodes", 0, "title")
		c2 := h.toolsRead(t, ce, "alice", "get_merge_request", with("include", []any{"commits"}, "commits_after", toolsDig(commits, "commits", "pageInfo", "endCursor")))
		toolsExpectField(t, c2, "Add server/discover handler", "commits", "nodes", 0, "title")

		notes := h.toolsRead(t, ce, "alice", "get_merge_request", with("include", []any{"notes"}, "notes_last", 1))
		toolsExpectField(t, notes, "Kept it a constant for now; a flag can come with the config rework. Resolving.", "notes", "nodes", 0, "body")
		toolsExpectField(t, notes, true, "notes", "pageInfo", "hasPreviousPage")

		pipes := h.toolsRead(t, ce, "alice", "get_merge_request", with("include", []any{"pipelines"}))
		toolsExpectField(t, pipes, "RUNNING", "pipelines", "nodes", 0, "status")

		disc := h.toolsRead(t, ce, "alice", "get_merge_request", with("include", []any{"discussions"}))
		toolsExpectField(t, disc, true, "discussions", "nodes", 0, "resolved")
		toolsExpectField(t, disc, 10, "discussions", "nodes", 0, "notes", "nodes", 0, "position", "newLine")
		toolsExpectField(t, disc, "internal/mcp/discover.go", "discussions", "nodes", 0, "notes", "nodes", 0, "position", "newPath")

		appr := h.toolsRead(t, ce, "alice", "get_merge_request", with("include", []any{"approvals"}))
		toolsExpectField(t, appr, true, "approved")
		toolsExpectField(t, appr, "root", "approvedBy", "nodes", 0, "username")
		toolsExpectField(t, appr, 0, "approvalsLeft")
	})

	t.Run("conflicts facet", func(t *testing.T) {
		// orbit's draft conflicts with main (the demo history): the
		// conflicted file with git's markers, ours the source branch.
		orbit := map[string]any{"project_id": "gitlab-org/orbit", "merge_request_iid": 1, "include": []any{"conflicts"}}
		sc := h.toolsRead(t, ce, "alice", "get_merge_request", orbit)
		toolsExpectField(t, sc, "CONFLICTS", "conflictStatus")
		toolsExpectField(t, sc, "graph/graph.go", "conflictFiles", 0, "ourPath")
		content := fmt.Sprint(toolsDig(sc, "conflictFiles", 0, "content"))
		if !strings.Contains(content, "<<<<<<< graph/graph.go\n// indirectly, in depth-first order. Each module is listed once, so cyclic\n") ||
			!strings.Contains(content, "=======\n// indirectly, in depth-first order.\n>>>>>>> graph/graph.go\n") {
			t.Errorf("conflict content:\n%s", content)
		}
		h.toolsFailWith(t, ce, "bob", "get_merge_request", orbit,
			"Forbidden: you are not allowed to push to the source branch 'fix/cycle-detection' of merge request !1; conflicts are shown to those who can resolve them")
		h.toolsInvalid(t, ce, "alice", "get_merge_request", overrideArgs(mcpMR1, "include", []any{"conflicts"}), "Merge request does not have conflicts")
	})

	t.Run("validation errors", func(t *testing.T) {
		with := func(kv ...any) map[string]any { return overrideArgs(mcpMR1, kv...) }
		h.toolsInvalid(t, ce, "alice", "get_merge_request", with("include", []any{"diffs", "notes"}), "/include")
		h.toolsInvalid(t, ce, "alice", "get_merge_request", with("include", []any{"files"}), "/include")
		h.toolsInvalid(t, ce, "alice", "get_merge_request", with("detail", "patch"), "/detail")
		h.toolsInvalid(t, ce, "alice", "get_merge_request", with("notes_first", 101), "/notes_first")
		h.toolsInvalid(t, ce, "alice", "get_merge_request", with("id", "gitlab-org/gitlab-mcp"), "id")
		h.toolsInvalid(t, ce, "alice", "get_merge_request", with("include", []any{"diffs"}, "notes_first", 5), "notes_* parameters apply only")
		h.toolsInvalid(t, ce, "alice", "get_merge_request", with("include", []any{"notes"}, "notes_first", 5, "notes_last", 5), "not both directions")
		h.toolsInvalid(t, ce, "alice", "get_merge_request", with("include", []any{"notes"}, "notes_after", "bogus"), "notes_after", "not a cursor")
		h.toolsInvalid(t, ce, "alice", "get_merge_request", map[string]any{"merge_request_iid": 1}, "provide either url, or project_id and merge_request_iid")
		h.toolsInvalid(t, ce, "alice", "get_merge_request", map[string]any{"url": "https://example.com/gitlab-org/gitlab-mcp/-/issues/1"}, "merge request URL")
		// A cursor of one merge request's list does not page another's.
		p1 := h.toolsRead(t, ce, "alice", "get_merge_request", with("include", []any{"commits"}, "commits_first", 1))
		cursor := toolsDig(p1, "commits", "pageInfo", "endCursor")
		h.toolsInvalid(t, ce, "alice", "get_merge_request", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "merge_request_iid": 2,
			"include": []any{"commits"}, "commits_after": cursor}, "not a cursor of this list")
		// Tampering breaks the signature.
		tampered := []byte(fmt.Sprint(cursor))
		tampered[len(tampered)/2] ^= 1 // stays in the base64url alphabet
		h.toolsInvalid(t, ce, "alice", "get_merge_request", with("include", []any{"commits"}, "commits_after", string(tampered)), "not a cursor")
	})

	t.Run("not found and permissions", func(t *testing.T) {
		h.toolsFailWith(t, ce, "alice", "get_merge_request", overrideArgs(mcpMR1, "merge_request_iid", 99), "404 Merge Request Not Found")
		for _, user := range []string{"carol", "bob"} {
			h.toolsSameAsMissing(t, ce, user, "get_merge_request",
				map[string]any{"project_id": "acme/secret-plans", "merge_request_iid": 1}, map[string]any{"project_id": "acme/nope", "merge_request_iid": 1})
		}
		for _, g := range h.groups() {
			h.toolsBlocked(t, g, "get_merge_request", mcpMR1)
		}
	})
}

func TestTools_listMergeRequests(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	iids := func(sc map[string]any) string {
		var out []string
		for _, n := range toolsArray(t, sc["nodes"]) {
			out = append(out, fmt.Sprint(toolsDig(n, "projectFullPath"), "!", toolsDig(n, "iid")))
		}
		return strings.Join(out, " ")
	}
	t.Run("filters and paging", func(t *testing.T) {
		for _, g := range h.groups() {
			sc := h.toolsRead(t, g, "alice", "list_merge_requests", map[string]any{"project_id": "gitlab-org/gitlab-mcp"})
			if got := iids(sc); got != "gitlab-org/gitlab-mcp!2 gitlab-org/gitlab-mcp!1" {
				t.Errorf("project list = %s", got)
			}
		}
		cases := []struct {
			args map[string]any
			want string
		}{
			{map[string]any{"group_id": "gitlab-org"}, "gitlab-org/orbit!1 gitlab-org/gitlab-mcp!2 gitlab-org/gitlab-mcp!1"},
			{map[string]any{"url": h.Cfg.PublicURL + "/gitlab-org/gitlab-mcp", "state": "merged"}, "gitlab-org/gitlab-mcp!2"},
			{map[string]any{"group_id": "gitlab-org", "state": "opened", "labels": "bug"}, "gitlab-org/orbit!1"},
			{map[string]any{"group_id": "gitlab-org", "reviewer_username": "bob"}, "gitlab-org/gitlab-mcp!2 gitlab-org/gitlab-mcp!1"},
			{map[string]any{"group_id": "gitlab-org", "scope": "review_requested"}, ""},
			{map[string]any{"group_id": "gitlab-org", "search": "CYCLES"}, "gitlab-org/orbit!1"},
			{map[string]any{"group_id": "gitlab-org", "author_username": "nobody-here"}, ""},
			{map[string]any{"group_id": "gitlab-org", "state": "locked"}, ""},
		}
		for _, c := range cases {
			if got := iids(h.toolsRead(t, ce, "alice", "list_merge_requests", c.args)); got != c.want {
				t.Errorf("%v: %q, want %q", c.args, got, c.want)
			}
		}
		if got := iids(h.toolsRead(t, ce, "bob", "list_merge_requests", map[string]any{"group_id": "gitlab-org", "scope": "review_requested"})); got != "gitlab-org/gitlab-mcp!2 gitlab-org/gitlab-mcp!1" {
			t.Errorf("bob's review requests: %q", got)
		}
		p1 := h.toolsRead(t, ce, "alice", "list_merge_requests", map[string]any{"group_id": "gitlab-org", "first": 2})
		toolsExpectField(t, p1, true, "pageInfo", "hasNextPage")
		p2 := h.toolsRead(t, ce, "alice", "list_merge_requests", map[string]any{"group_id": "gitlab-org", "first": 2, "after": toolsDig(p1, "pageInfo", "endCursor")})
		if got := iids(p2); got != "gitlab-org/gitlab-mcp!1" {
			t.Errorf("page 2 = %q", got)
		}
		toolsExpectField(t, p2, false, "pageInfo", "hasNextPage")
		// The cursor of the group list is not one of a project list.
		h.toolsInvalid(t, ce, "alice", "list_merge_requests", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "after": toolsDig(p1, "pageInfo", "endCursor")}, "not a cursor")
	})
	t.Run("validation, not found, permissions", func(t *testing.T) {
		h.toolsInvalid(t, ce, "alice", "list_merge_requests", map[string]any{}, "exactly one of url, project_id or group_id")
		h.toolsInvalid(t, ce, "alice", "list_merge_requests", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "group_id": "gitlab-org"}, "exactly one")
		h.toolsInvalid(t, ce, "alice", "list_merge_requests", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "state": "open"}, "/state")
		h.toolsInvalid(t, ce, "alice", "list_merge_requests", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "first": 0}, "/first")
		h.toolsSameAsMissing(t, ce, "carol", "list_merge_requests", map[string]any{"project_id": "acme/secret-plans"}, map[string]any{"project_id": "acme/nope"})
		h.toolsSameAsMissing(t, ce, "carol", "list_merge_requests", map[string]any{"group_id": "acme"}, map[string]any{"group_id": "nope"})
		h.toolsBlocked(t, ce, "list_merge_requests", map[string]any{"group_id": "gitlab-org"})
	})
}

func TestTools_getMergeRequestNotes(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	sc := h.toolsRead(t, ce, "bob", "get_merge_request_notes", overrideArgs(mcpMR1, "first", 1))
	toolsExpectField(t, sc, "Should `ttlMs` be configurable? Operators behind a CDN may want more than a minute.", "nodes", 0, "body")
	toolsExpectField(t, sc, true, "nodes", 0, "resolved")
	next := h.toolsRead(t, ce, "bob", "get_merge_request_notes", overrideArgs(mcpMR1, "first", 1, "after", toolsDig(sc, "pageInfo", "endCursor")))
	toolsExpectField(t, next, "alice", "nodes", 0, "author", "username")
	toolsExpectField(t, next, false, "pageInfo", "hasNextPage")
	h.toolsInvalid(t, ce, "bob", "get_merge_request_notes", overrideArgs(mcpMR1, "first", 1, "last", 1), "not both directions")
	h.toolsInvalid(t, ce, "bob", "get_merge_request_notes", overrideArgs(mcpMR1, "first", 200), "/first")
	h.toolsSameAsMissing(t, ce, "carol", "get_merge_request_notes",
		map[string]any{"project_id": "acme/secret-plans", "merge_request_iid": 1}, map[string]any{"project_id": "acme/nope", "merge_request_iid": 1})
	h.toolsBlocked(t, ce, "get_merge_request_notes", mcpMR1)
}

func TestTools_saveMergeRequest(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	// Merge requests are made of branches that exist in git.
	toolsBranch(t, h, "gitlab-org/gitlab-mcp", "spec/take-two", "main")
	create := map[string]any{"project_id": "gitlab-org/gitlab-mcp", "title": "Stable tool order, take two",
		"source_branch": "spec/take-two", "target_branch": "feature/server-discover", "reviewers": []any{"bob"},
		"labels": []any{"bug"}, "squash": true, "remove_source_branch": true, "milestone": "18.8"}

	t.Run("refused writes change nothing", func(t *testing.T) {
		h.toolsFailWith(t, ce, "bob", "save_merge_request", create,
			"Forbidden: you need at least the Developer role in project gitlab-org/gitlab-mcp to create merge requests")
		h.toolsFailWith(t, ce, "bob", "save_merge_request", overrideArgs(mcpMR1, "title", "x"),
			"Forbidden: you need at least the Developer role in project gitlab-org/gitlab-mcp, or to be the author, to update merge request !1")
		h.toolsSameAsMissing(t, ce, "carol", "save_merge_request",
			map[string]any{"project_id": "acme/secret-plans", "merge_request_iid": 1, "title": "x"}, map[string]any{"project_id": "acme/nope", "merge_request_iid": 1, "title": "x"})
		h.toolsInvalid(t, ce, "alice", "save_merge_request", overrideArgs(create, "assignees", []any{"alice"}, "assignee_ids", []any{2}), "assignees or assignee_ids")
		h.toolsInvalid(t, ce, "alice", "save_merge_request", overrideArgs(create, "state_event", "close"), "state_event applies only when updating")
		h.toolsInvalid(t, ce, "alice", "save_merge_request", overrideArgs(create, "title", nil), "title, source_branch and target_branch are required")
		h.toolsInvalid(t, ce, "alice", "save_merge_request", overrideArgs(create, "reviewers", []any{"ghost"}), "user \"ghost\" not found")
		h.toolsInvalid(t, ce, "alice", "save_merge_request", overrideArgs(create, "milestone", "99.9"), "no milestone titled")
		h.toolsInvalid(t, ce, "alice", "save_merge_request", overrideArgs(mcpMR1, "state_event", "merge"), "/state_event")
		h.toolsInvalid(t, ce, "alice", "save_merge_request", overrideArgs(mcpMR1, "source_branch", "x"), "source_branch cannot be changed")
		h.toolsInvalid(t, ce, "alice", "save_merge_request", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "merge_request_iid": 2, "state_event": "close"}, "merged merge request cannot be closed")
		h.toolsBlocked(t, ce, "save_merge_request", create)
	})

	t.Run("create, update, close, reopen", func(t *testing.T) {
		for _, era := range eras {
			sc := h.toolsWrite(t, ce, era, "alice", "save_merge_request", overrideArgs(create, "title", "Take two ("+era+")"))
			iid := toolsDig(sc, "iid")
			toolsExpectField(t, sc, true, "squash")
			toolsExpectField(t, sc, "18.8", "milestone", "title")
			toolsExpectField(t, sc, "bob", "reviewers", 0, "username")
			ref := map[string]any{"project_id": "gitlab-org/gitlab-mcp", "merge_request_iid": iid}
			up := h.toolsWrite(t, ce, era, "alice", "save_merge_request", overrideArgs(ref, "title", "Draft: take two",
				"add_labels", []any{"feature"}, "remove_labels", []any{"bug"}, "reviewer_ids", []any{}, "state_event", "close"))
			toolsExpectField(t, up, "closed", "state")
			toolsExpectField(t, up, true, "draft")
			toolsExpectField(t, up, "[feature]", "labels")
			toolsExpectField(t, up, "[]", "reviewers")
			re := h.toolsWrite(t, ce, era, "alice", "save_merge_request", overrideArgs(ref, "state_event", "reopen", "discussion_locked", true))
			toolsExpectField(t, re, "opened", "state")
			// Another open merge request for the same branches cannot be
			// created; the first era's is closed again to let the second create.
			h.toolsFail(t, ce, "alice", "save_merge_request", create)
			h.toolsWrite(t, ce, era, "alice", "save_merge_request", overrideArgs(ref, "state_event", "close"))
		}
		// update_merge_request is save_merge_request's alias.
		sc := h.toolsWrite(t, ce, "modern", "alice", "update_merge_request", overrideArgs(mcpMR1, "description", "Updated through the alias."))
		toolsExpectField(t, sc, "Updated through the alias.", "description")
	})
}

func TestTools_saveMergeRequestReview(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	review := func(method string, kv ...any) map[string]any {
		return overrideArgs(mcpMR1, append([]any{"method", method}, kv...)...)
	}

	t.Run("refused writes change nothing", func(t *testing.T) {
		h.toolsInvalid(t, ce, "alice", "save_merge_request_review", review("create_note"), "Missing required parameters for create_note: body")
		h.toolsInvalid(t, ce, "alice", "save_merge_request_review", review("approve", "body", "x"), "Parameters not valid for method 'approve': body")
		h.toolsInvalid(t, ce, "alice", "save_merge_request_review", review("create_note", "body", "LGTM\n/merge"), "quick actions")
		h.toolsInvalid(t, ce, "alice", "save_merge_request_review", review("nap"), "/method")
		h.toolsInvalid(t, ce, "alice", "save_merge_request_review", review("create_diff_note", "body", "x", "new_path", "README.md", "new_line", 1), "not a file changed by merge request !1")
		h.toolsInvalid(t, ce, "alice", "save_merge_request_review", review("create_diff_note", "body", "x", "new_path", "internal/mcp/discover.go"), "old_line and/or new_line")
		h.toolsInvalid(t, ce, "alice", "save_merge_request_review", review("submit_review", "comments", []any{
			map[string]any{"file": "internal/mcp/discover.go", "new_line": 3, "body": "ok"},
			map[string]any{"file": "nope.go", "new_line": 1, "body": "no such file"}}), "comments[1]")
		h.toolsInvalid(t, ce, "alice", "save_merge_request_review", review("approve", "sha", "0000000000000000000000000000000000000000"), "SHA does not match HEAD")
		h.toolsInvalid(t, ce, "alice", "save_merge_request_review", review("post_duo_review"), "post_duo_review requires GitLab Duo Code Review, which is not available")
		h.toolsFailWith(t, ce, "bob", "save_merge_request_review", review("approve"), "Forbidden: You are not allowed to approve this merge request.")
		h.toolsFailWith(t, ce, "bob", "save_merge_request_review", review("resolve_discussion", "discussion_id", "nope", "resolved", false), "404 Discussion Not Found")
		// A Guest of the public project comments, as GitLab lets her.
		toolsExpectField(t, h.toolsWrite(t, ce, "legacy", "carol", "save_merge_request_review", review("create_note", "body", "hi")),
			"carol", "note", "author", "username")
		h.toolsSameAsMissing(t, ce, "carol", "save_merge_request_review",
			map[string]any{"project_id": "acme/secret-plans", "merge_request_iid": 1, "method": "approve"},
			map[string]any{"project_id": "acme/nope", "merge_request_iid": 1, "method": "approve"})
		h.toolsBlocked(t, ce, "save_merge_request_review", review("approve"))
	})

	t.Run("a review, end to end", func(t *testing.T) {
		disc := h.toolsRead(t, ce, "alice", "get_merge_request", overrideArgs(mcpMR1, "include", []any{"discussions"}))
		thread := toolsDig(disc, "discussions", "nodes", 0, "id")
		for _, era := range eras {
			n := h.toolsWrite(t, ce, era, "bob", "save_merge_request_review", review("create_note", "body", "Overall fine ("+era+")."))
			toolsExpectField(t, n, false, "note", "resolvable")
			r := h.toolsWrite(t, ce, era, "bob", "save_merge_request_review", review("reply_discussion", "body", "One more thought.", "discussion_id", thread))
			toolsExpectField(t, r, thread, "note", "discussionId")
			d := h.toolsWrite(t, ce, era, "bob", "save_merge_request_review", review("create_diff_note", "body", "Name this constant?",
				"old_path", "internal/mcp/discover.go", "new_path", "internal/mcp/discover.go", "new_line", 7))
			toolsExpectField(t, d, 7, "note", "position", "newLine")
			res := h.toolsWrite(t, ce, era, "alice", "save_merge_request_review", review("resolve_discussion",
				"discussion_id", toolsDig(d, "note", "discussionId"), "resolved", true))
			toolsExpectField(t, res, true, "discussion", "resolved")
			un := h.toolsWrite(t, ce, era, "alice", "save_merge_request_review", review("resolve_discussion",
				"discussion_id", strings.TrimPrefix(fmt.Sprint(toolsDig(d, "note", "discussionId")), "gid://gitlab/Discussion/"), "resolved", false))
			toolsExpectField(t, un, false, "discussion", "resolved")
			sub := h.toolsWrite(t, ce, era, "bob", "save_merge_request_review", review("submit_review", "verdict", "Approve with nits",
				"summary", "Two small things.", "comments", []any{
					map[string]any{"file": "internal/mcp/discover.go", "new_line": 10, "body": "ok", "suggestion": "const discoverTTLMillis = 30_000"},
					map[string]any{"file": "internal/mcp/handler.go", "old_line": 3, "body": "why?"}}))
			toolsExpectField(t, sub, 2, "comments_created")
			if s := fmt.Sprint(toolsDig(sub, "summary", "body")); !strings.HasPrefix(s, "**Approve with nits**") {
				t.Errorf("summary = %q", s)
			}
		}
		a := h.toolsWrite(t, ce, "legacy", "alice", "save_merge_request_review", review("approve", "sha", toolsDig(disc, "diffHeadSha")))
		toolsExpectField(t, a, "approved", "status")
		again := h.toolsWrite(t, ce, "modern", "alice", "save_merge_request_review", review("approve", "sha", "stale"))
		toolsExpectField(t, again, "already_approved", "status")
		toolsExpectField(t, h.toolsWrite(t, ce, "modern", "alice", "save_merge_request_review", review("unapprove")), "unapproved", "status")
		toolsExpectField(t, h.toolsWrite(t, ce, "modern", "alice", "save_merge_request_review", review("unapprove")), "not_approved", "status")
	})

	t.Run("two approvals at once record one", func(t *testing.T) {
		var wg sync.WaitGroup
		status := make([]string, 6)
		for k := range status {
			wg.Go(func() {
				res := toolsResult(t, ce, eras[k%2], h.toolsCall(t, ce, eras[k%2], "alice", "save_merge_request_review", review("approve")))
				status[k] = fmt.Sprint(toolsDig(res, "structuredContent", "status"))
			})
		}
		wg.Wait()
		approved := 0
		for _, s := range status {
			switch s {
			case "approved":
				approved++
			case "already_approved":
			default:
				t.Errorf("status %q", s)
			}
		}
		rows := storetest.Int(t, h.Env.Store, "SELECT COUNT(*) FROM approvals a JOIN users u ON u.id = a.user_id WHERE u.username = 'alice'")
		if approved != 1 || rows != 1 {
			t.Errorf("%d calls said approved, %d rows; want 1 and 1 (%v)", approved, rows, status)
		}
	})
}
