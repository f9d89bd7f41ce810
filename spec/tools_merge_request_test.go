package spec

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// The merge request and pipeline tools over HTTP: get_merge_request,
// get_merge_request_commits, get_merge_request_diffs,
// get_merge_request_pipelines, get_pipeline_jobs, and create_merge_request
// (an alias of save_merge_request, GitLab 19.5's).

// toolsPipelineID returns the id of the pipeline of project with the given
// status (the demo has one per status and project).
func toolsPipelineID(t testing.TB, h *harness, project, status string) int64 {
	t.Helper()
	id := storetest.Int(t, h.Env.Store, "SELECT id FROM ci_pipelines WHERE project_id = ? AND status = ? ORDER BY id LIMIT 1",
		toolsProject(t, h, project).ID, status)
	if id == 0 {
		t.Fatalf("no %s pipeline in %s", status, project)
	}
	return id
}

func TestTools_getMergeRequestSuperseded(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	mr1 := map[string]any{"id": "gitlab-org/gitlab-mcp", "merge_request_iid": 1}

	t.Run("validation errors", func(t *testing.T) {
		for _, tool := range []string{"get_merge_request_commits", "get_merge_request_diffs", "get_merge_request_pipelines"} {
			h.toolsInvalid(t, ce, "alice", tool, map[string]any{"id": "gitlab-org/gitlab-mcp"}, "merge_request_iid")
			h.toolsInvalid(t, ce, "alice", tool, map[string]any{"id": "gitlab-org/gitlab-mcp", "merge_request_iid": -1}, "/merge_request_iid")
			h.toolsInvalid(t, ce, "alice", tool, map[string]any{"id": "gitlab-org/gitlab-mcp", "merge_request_iid": 1, "iid": 1}, "iid")
		}
		for _, tool := range []string{"get_merge_request_commits", "get_merge_request_diffs"} {
			h.toolsInvalid(t, ce, "alice", tool, map[string]any{"id": "gitlab-org/gitlab-mcp", "merge_request_iid": 1, "per_page": 101}, "/per_page")
			h.toolsInvalid(t, ce, "alice", tool, map[string]any{"id": "gitlab-org/gitlab-mcp", "merge_request_iid": 1, "page": 0}, "/page")
		}
	})

	t.Run("not found", func(t *testing.T) {
		for _, tool := range []string{"get_merge_request_commits", "get_merge_request_diffs", "get_merge_request_pipelines"} {
			h.toolsFailWith(t, ce, "alice", tool, map[string]any{"id": "gitlab-org/gitlab-mcp", "merge_request_iid": 99}, "404 Merge Request Not Found")
			h.toolsFailWith(t, ce, "alice", tool, map[string]any{"id": "gitlab-org/nope", "merge_request_iid": 1}, "404 Project Not Found")
		}
	})

	t.Run("permissions", func(t *testing.T) {
		for _, tool := range []string{"get_merge_request_commits", "get_merge_request_diffs", "get_merge_request_pipelines"} {
			// The private project has no merge requests: its member learns
			// that; a non-member learns nothing, not even that it exists.
			h.toolsFailWith(t, ce, "alice", tool, map[string]any{"id": "acme/secret-plans", "merge_request_iid": 1}, "404 Merge Request Not Found")
			for _, user := range []string{"carol", "bob"} {
				h.toolsSameAsMissing(t, ce, user, tool,
					map[string]any{"id": "acme/secret-plans", "merge_request_iid": 1}, map[string]any{"id": "acme/nope", "merge_request_iid": 1})
			}
			// Internal and public projects: any signed-in user, a guest too.
			h.toolsRead(t, ce, "carol", tool, map[string]any{"id": "gitlab-org/orbit", "merge_request_iid": 1})
			h.toolsRead(t, ce, "carol", tool, mr1)
			for _, g := range h.groups() {
				h.toolsBlocked(t, g, tool, mr1)
			}
		}
	})
}

func TestTools_getMergeRequestLists(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]

	t.Run("commits, newest first, paged", func(t *testing.T) {
		sc := h.toolsRead(t, ce, "alice", "get_merge_request_commits", map[string]any{"id": "gitlab-org/gitlab-mcp", "merge_request_iid": 1})
		if got := toolsField(toolsItems(t, sc), "title"); !slices.Equal(got, []string{"Route server/discover to its handler", "Add server/discover handler"}) {
			t.Errorf("commit titles = %v", got)
		}
		toolsExpectField(t, sc, 2, "pageInfo", "total")
		page2 := h.toolsRead(t, ce, "alice", "get_merge_request_commits",
			map[string]any{"id": "gitlab-org/gitlab-mcp", "merge_request_iid": 1, "per_page": 1, "page": 2})
		if got := toolsField(toolsItems(t, page2), "title"); !slices.Equal(got, []string{"Add server/discover handler"}) {
			t.Errorf("page 2 titles = %v", got)
		}
		toolsExpectField(t, page2, 2, "pageInfo", "total_pages")
		toolsExpectField(t, page2, nil, "pageInfo", "next_page")
		toolsExpectField(t, page2, 1, "pageInfo", "prev_page")
	})

	t.Run("diffs", func(t *testing.T) {
		sc := h.toolsRead(t, ce, "alice", "get_merge_request_diffs", map[string]any{"id": "gitlab-org/gitlab-mcp", "merge_request_iid": 1})
		if got := toolsField(toolsItems(t, sc), "new_path"); !slices.Equal(got, []string{"internal/mcp/discover.go", "internal/mcp/handler.go"}) {
			t.Errorf("diff paths = %v", got)
		}
		toolsExpectField(t, sc, true, "items", 0, "new_file")
	})

	t.Run("pipelines", func(t *testing.T) {
		sc := h.toolsRead(t, ce, "alice", "get_merge_request_pipelines", map[string]any{"id": "gitlab-org/gitlab-mcp", "merge_request_iid": 1})
		if got := toolsField(toolsItems(t, sc), "status"); !slices.Equal(got, []string{"running"}) {
			t.Errorf("!1 pipeline statuses = %v", got)
		}
		sc = h.toolsRead(t, ce, "carol", "get_merge_request_pipelines", map[string]any{"id": "gitlab-org/orbit", "merge_request_iid": 1})
		if got := toolsField(toolsItems(t, sc), "status"); !slices.Equal(got, []string{"failed"}) {
			t.Errorf("orbit !1 pipeline statuses = %v", got)
		}
	})
}

func TestTools_getPipelineJobs(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	running := toolsPipelineID(t, h, "gitlab-org/gitlab-mcp", "running")
	failed := toolsPipelineID(t, h, "gitlab-org/orbit", "failed")

	t.Run("happy path", func(t *testing.T) {
		for _, g := range h.groups() {
			sc := h.toolsRead(t, g, "alice", "get_pipeline_jobs", map[string]any{"id": "gitlab-org/gitlab-mcp", "pipeline_id": running})
			items := toolsItems(t, sc)
			if got := toolsField(items, "name"); !slices.Equal(got, []string{"build", "test", "lint"}) {
				t.Errorf("job names = %v", got)
			}
			if got := toolsField(items, "status"); !slices.Equal(got, []string{"success", "running", "created"}) {
				t.Errorf("job statuses = %v", got)
			}
			toolsExpectField(t, sc, running, "items", 0, "pipeline", "id")
			toolsExpectField(t, sc, "alice", "items", 0, "user", "username")
		}
		sc := h.toolsRead(t, ce, "carol", "get_pipeline_jobs", map[string]any{"id": "gitlab-org/orbit", "pipeline_id": failed, "per_page": 1, "page": 2})
		toolsExpectField(t, sc, "test", "items", 0, "name")
		toolsExpectField(t, sc, "failed", "items", 0, "status")
		toolsExpectField(t, sc, 3, "pageInfo", "total")
	})

	t.Run("validation errors", func(t *testing.T) {
		h.toolsInvalid(t, ce, "alice", "get_pipeline_jobs", map[string]any{"id": "gitlab-org/gitlab-mcp"}, "pipeline_id")
		h.toolsInvalid(t, ce, "alice", "get_pipeline_jobs", map[string]any{"id": "gitlab-org/gitlab-mcp", "pipeline_id": 0}, "/pipeline_id")
		h.toolsInvalid(t, ce, "alice", "get_pipeline_jobs", map[string]any{"id": "gitlab-org/gitlab-mcp", "pipeline_id": running, "per_page": 0}, "/per_page")
	})

	t.Run("not found", func(t *testing.T) {
		h.toolsFailWith(t, ce, "alice", "get_pipeline_jobs", map[string]any{"id": "gitlab-org/gitlab-mcp", "pipeline_id": 9999}, "404 Pipeline Not Found")
		// A pipeline of another project is not found through this one.
		h.toolsFailWith(t, ce, "alice", "get_pipeline_jobs", map[string]any{"id": "gitlab-org/gitlab-mcp", "pipeline_id": failed}, "404 Pipeline Not Found")
		h.toolsFailWith(t, ce, "alice", "get_pipeline_jobs", map[string]any{"id": "gitlab-org/nope", "pipeline_id": running}, "404 Project Not Found")
	})

	t.Run("permissions", func(t *testing.T) {
		h.toolsFailWith(t, ce, "alice", "get_pipeline_jobs", map[string]any{"id": "acme/secret-plans", "pipeline_id": 1}, "404 Pipeline Not Found")
		for _, user := range []string{"carol", "bob"} {
			h.toolsSameAsMissing(t, ce, user, "get_pipeline_jobs",
				map[string]any{"id": "acme/secret-plans", "pipeline_id": 1}, map[string]any{"id": "acme/nope", "pipeline_id": 1})
		}
		h.toolsRead(t, ce, "carol", "get_pipeline_jobs", map[string]any{"id": "gitlab-org/gitlab-mcp", "pipeline_id": running})
		for _, g := range h.groups() {
			h.toolsBlocked(t, g, "get_pipeline_jobs", map[string]any{"id": "gitlab-org/gitlab-mcp", "pipeline_id": running})
		}
	})
}

// TestTools_createMergeRequest: create_merge_request is an alias of
// save_merge_request, taking its arguments (project_id, not the old id) and
// answering as it does.
func TestTools_createMergeRequest(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	ctx := context.Background()
	mcp := toolsProject(t, h, "gitlab-org/gitlab-mcp")
	bob := authUser(t, h, "bob")
	// A merge request is made of branches that exist in git.
	toolsBranch(t, h, "gitlab-org/gitlab-mcp", "spec/topic", "main")

	t.Run("happy path: created, returned and stored", func(t *testing.T) {
		branches := map[string][2]string{"legacy": {"spec/topic", "main"}, "modern": {"main", "feature/server-discover"}}
		for _, era := range eras {
			before := toolsState(t, h)
			nextIID := toolsMaxIID(t, h, "merge_requests", mcp.ID) + 1
			src, dst := branches[era][0], branches[era][1]
			sc := h.toolsWrite(t, ce, era, "alice", "create_merge_request", map[string]any{
				"project_id": "gitlab-org/gitlab-mcp", "title": "Draft: spec " + era, "source_branch": src, "target_branch": dst,
				"reviewer_ids": []any{bob.ID}, "labels": []any{"feature"}, "description": "From the spec.",
				"target_project_id": mcp.ID,
			})
			iid := toolsInt(t, sc["iid"])
			if iid != nextIID {
				t.Errorf("iid = %d, want %d (the next in the project)", iid, nextIID)
			}
			toolsExpectField(t, sc, "opened", "state")
			toolsExpectField(t, sc, true, "draft")
			toolsExpectField(t, sc, "draft_status", "detailed_merge_status")
			toolsExpectField(t, sc, src, "source_branch")
			toolsExpectField(t, sc, dst, "target_branch")
			toolsExpectField(t, sc, "alice", "author", "username")
			toolsExpectField(t, sc, "bob", "reviewers", 0, "username")
			toolsExpectField(t, sc, "[feature]", "labels")
			toolsExpectField(t, sc, fmt.Sprintf("%s/gitlab-org/gitlab-mcp/-/merge_requests/%d", h.Cfg.PublicURL, iid), "web_url")
			stored, err := h.Env.Store.MergeRequests.LoadMergeRequest(ctx, mcp.ID, iid)
			if err != nil {
				t.Fatalf("load created merge request: %v", err)
			}
			if stored.Title != "Draft: spec "+era || stored.SourceBranch != src || stored.TargetBranch != dst || !stored.Draft {
				t.Errorf("stored merge request = %+v", stored)
			}
			if after := toolsState(t, h); after["merge_requests rows"] != before["merge_requests rows"]+1 {
				t.Errorf("merge_requests: %d → %d rows", before["merge_requests rows"], after["merge_requests rows"])
			}
			got := h.toolsRead(t, ce, "alice", "get_merge_request", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "merge_request_iid": iid})
			toolsExpectField(t, got, "Draft: spec "+era, "title")
		}
	})

	t.Run("validation errors and conflicts change nothing", func(t *testing.T) {
		args := func(kv ...any) map[string]any {
			return overrideArgs(map[string]any{"project_id": "gitlab-org/gitlab-mcp", "title": "t", "source_branch": "spec/topic", "target_branch": "feature/server-discover"}, kv...)
		}
		for _, c := range []struct {
			args map[string]any
			frag string
		}{
			{args("target_branch", nil), "title, source_branch and target_branch are required to create a merge request"},
			{args("source_branch", ""), "/source_branch"},
			{args("title", "  "), "title: must not be blank"},
			{args("target_branch", "spec/topic"), "must be different"},
			{args("source_branch", "nope"), `source_branch: branch "nope" does not exist`},
			{args("target_branch", "nope"), `target_branch: branch "nope" does not exist`},
			{args("target_project_id", toolsProject(t, h, "gitlab-org/orbit").ID), "forks"},
			{args("milestone_id", 999), "milestone_id"},
			{args("reviewer_ids", []any{9999}, "labels", []any{"spec-never-created"}), "user 9999 does not exist"},
			{args("assignee_ids", []any{authUser(t, h, "carol").ID}, "project_id", "gitlab-org/orbit", "source_branch", "main", "target_branch", "fix/cycle-detection"), "not a member"},
			{args("state_event", "close"), "state_event applies only when updating (with merge_request_iid)"},
			// The old tool's id: refused by the schema, alone or beside project_id.
			{args("id", "gitlab-org/gitlab-mcp"), "additional properties 'id' not allowed"},
			{map[string]any{"id": "gitlab-org/gitlab-mcp", "title": "t", "source_branch": "spec/topic", "target_branch": "main"},
				"missing property 'project_id'"},
		} {
			h.toolsInvalid(t, ce, "alice", "create_merge_request", c.args, c.frag)
		}
		h.toolsFailWith(t, ce, "alice", "create_merge_request",
			args("source_branch", "feature/server-discover", "target_branch", "main"),
			"Conflict: Another open merge request already exists for this source branch: !1")
	})

	t.Run("not found", func(t *testing.T) {
		h.toolsFailWith(t, ce, "alice", "create_merge_request", map[string]any{
			"project_id": "gitlab-org/nope", "title": "t", "source_branch": "a", "target_branch": "b"}, "404 Project Not Found")
	})

	t.Run("permissions: refusals change nothing", func(t *testing.T) {
		mr := func(project string) map[string]any {
			return map[string]any{"project_id": project, "title": "t", "source_branch": "main", "target_branch": "spec/topic"}
		}
		forbidden := "Forbidden: you need at least the Developer role in project %s to create merge requests"
		h.toolsFailWith(t, ce, "bob", "create_merge_request", mr("gitlab-org/gitlab-mcp"), fmt.Sprintf(forbidden, "gitlab-org/gitlab-mcp"))
		h.toolsFailWith(t, ce, "carol", "create_merge_request", mr("gitlab-org/gitlab-mcp"), fmt.Sprintf(forbidden, "gitlab-org/gitlab-mcp"))
		h.toolsFailWith(t, ce, "carol", "create_merge_request", mr("gitlab-org/orbit"), fmt.Sprintf(forbidden, "gitlab-org/orbit"))
		for _, user := range []string{"carol", "bob"} {
			h.toolsSameAsMissing(t, ce, user, "create_merge_request", mr("acme/secret-plans"), mr("acme/nope"))
		}
		for _, g := range h.groups() {
			h.toolsBlocked(t, g, "create_merge_request", mr("gitlab-org/gitlab-mcp"))
		}
	})
}
