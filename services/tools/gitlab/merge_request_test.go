package gitlab_test

import (
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

func TestGetMergeRequest(t *testing.T) {
	w := newWorld(t)
	f := w.fixture(t)
	mcp := w.project("gitlab-org/gitlab-mcp")
	iid := itoa(f.MR.IID)
	args := map[string]any{"id": "gitlab-org/gitlab-mcp", "merge_request_iid": f.MR.IID}

	t.Run("happy path", func(t *testing.T) {
		ref := map[string]any{"project_id": "gitlab-org/gitlab-mcp", "merge_request_iid": f.MR.IID}
		m := w.ok(t, w.Stranger, "get_merge_request", ref)
		wantFields(t, "merge request", m, map[string]any{
			"id": "gid://gitlab/MergeRequest/" + itoa(f.MR.ID), "iid": iid, "title": "Zebrafish tank",
			"description": "Adds a zebrafish tank.", "state": "opened", "draft": false,
			"createdAt": "2025-03-01T10:40:00.000Z", "updatedAt": "2025-03-01T10:41:00.000Z",
			"mergedAt": nil, "closedAt": nil, "sourceBranch": "zebrafish/feature", "targetBranch": "main",
			"userNotesCount": 0, "labels": []string{"zebrafish"}, "milestone": nil, "mergeStatus": "can_be_merged",
			"detailedMergeStatus": "MERGEABLE", "diffHeadSha": f.Commits[0].ID, "conflicts": false,
			"reference": "!" + iid, "webUrl": publicURL + "/gitlab-org/gitlab-mcp/-/merge_requests/" + iid,
			"project": map[string]any{"id": "gid://gitlab/Project/" + itoa(mcp.ID), "fullPath": "gitlab-org/gitlab-mcp"},
		})
		wantFields(t, "author", get(t, m, "author"), map[string]any{"username": "alice"})
		jsonEq(t, "assignees", field(t, get(t, m, "assignees", "nodes").([]any), "username"), []string{"alice"})
		jsonEq(t, "reviewers", field(t, get(t, m, "reviewers", "nodes").([]any), "username"), []string{"bob"})
		byURL := w.ok(t, w.Stranger, "get_merge_request", map[string]any{"url": publicURL + "/gitlab-org/gitlab-mcp/-/merge_requests/" + iid})
		jsonEq(t, "by url", get(t, byURL, "title"), "Zebrafish tank")
	})

	t.Run("not found and permissions", func(t *testing.T) {
		w.fails(t, w.Alice, "get_merge_request", `{"project_id":"gitlab-org/gitlab-mcp","merge_request_iid":9999}`, "404 Merge Request Not Found")
		w.fails(t, w.Stranger, "get_merge_request", `{"project_id":"acme/secret-plans","merge_request_iid":1}`, "404 Project Not Found")
		// A merge request of another project is not found through this one.
		w.fails(t, w.Alice, "get_merge_request", map[string]any{"project_id": "acme/secret-plans", "merge_request_iid": f.MR.IID}, "404 Merge Request Not Found")
		wantFields(t, "internal project, non-member", w.ok(t, w.Stranger, "get_merge_request", `{"project_id":"gitlab-org/orbit","merge_request_iid":1}`),
			map[string]any{"iid": "1"})
		w.fails(t, w.Alice, "get_merge_request", `{"merge_request_iid":1}`, "Validation error: provide either url, or project_id and merge_request_iid")
	})

	t.Run("commits, newest first, paged", func(t *testing.T) {
		m := w.ok(t, w.Bob, "get_merge_request_commits", args)
		list := items(t, m)
		jsonEq(t, "titles", field(t, list, "title"), []string{"Feed them", "Grow the tank", "Add a tank"})
		c := f.Commits[0]
		wantFields(t, "commit", list[0], map[string]any{
			"id": c.ID, "short_id": c.ID[:8], "created_at": "2025-03-01T10:33:00.000Z", "parent_ids": []string{f.Commits[1].ID},
			"message": "Feed them\n", "author_name": "Alice Martin", "author_email": "alice@example.com",
			"authored_date": "2025-03-01T10:33:00.000Z", "committer_name": "Alice Martin",
			"committed_date": "2025-03-01T10:33:00.000Z", "trailers": map[string]any{},
			"web_url": publicURL + "/gitlab-org/gitlab-mcp/-/commit/" + c.ID,
		})
		jsonEq(t, "pageInfo", m["pageInfo"], map[string]any{"page": 1, "per_page": 20, "total": 3, "total_pages": 1, "next_page": nil, "prev_page": nil})

		paged := map[string]any{"id": mcp.ID, "merge_request_iid": f.MR.IID, "per_page": 2, "page": 2}
		m = w.ok(t, w.Bob, "get_merge_request_commits", paged)
		jsonEq(t, "page 2", field(t, items(t, m), "title"), []string{"Add a tank"})
		jsonEq(t, "pageInfo 2", m["pageInfo"], map[string]any{"page": 2, "per_page": 2, "total": 3, "total_pages": 2, "next_page": nil, "prev_page": 1})
		paged["page"] = 3
		jsonEq(t, "past the end", items(t, w.ok(t, w.Bob, "get_merge_request_commits", paged)), []any{})
	})

	t.Run("diffs", func(t *testing.T) {
		m := w.ok(t, w.Bob, "get_merge_request_diffs", args)
		list := items(t, m)
		// Read from git: the feature branch against its merge base with main.
		jsonEq(t, "diffs", list, []map[string]any{
			{"old_path": "zebrafish/feed.go", "new_path": "zebrafish/feed.go", "a_mode": "0", "b_mode": "100644",
				"new_file": true, "renamed_file": false, "deleted_file": false, "generated_file": false,
				"diff": "@@ -0,0 +1,3 @@\n+package zebrafish\n+\n+func Feed() {}\n"},
			{"old_path": "zebrafish/tank.go", "new_path": "zebrafish/tank.go", "a_mode": "100644", "b_mode": "100644",
				"new_file": false, "renamed_file": false, "deleted_file": false, "generated_file": false,
				"diff": "@@ -1,4 +1,4 @@\n package zebrafish\n \n-// Tank holds zebrafish.\n-type Tank struct{}\n+// Tank holds many zebrafish.\n+type Tank struct{ N int }\n"},
		})
		m = w.ok(t, w.Bob, "get_merge_request_diffs", map[string]any{"id": mcp.ID, "merge_request_iid": f.MR.IID, "per_page": 1})
		jsonEq(t, "first page", field(t, items(t, m), "new_path"), []string{"zebrafish/feed.go"})
		wantFields(t, "pageInfo", m["pageInfo"], map[string]any{"total": 2, "next_page": 2})
	})

	t.Run("pipelines: merge request and branch pipelines of its commits", func(t *testing.T) {
		m := w.ok(t, w.Bob, "get_merge_request_pipelines", args)
		list := items(t, m)
		// Newest (highest id) first, as GitLab lists them.
		jsonEq(t, "ids", field(t, list, "id"), []int64{f.BranchPipeline.ID, f.MRPipeline.ID})
		wantFields(t, "branch pipeline", list[0], map[string]any{
			"id": f.BranchPipeline.ID, "iid": f.BranchPipeline.IID, "project_id": mcp.ID, "sha": f.Commits[1].ID,
			"ref": "zebrafish/feature", "status": "success", "source": "push",
			"created_at": "2025-03-01T10:35:00.000Z", "updated_at": "2025-03-01T10:36:00.000Z",
			"web_url": publicURL + "/gitlab-org/gitlab-mcp/-/pipelines/" + itoa(f.BranchPipeline.ID),
		})
		wantFields(t, "pageInfo", m["pageInfo"], map[string]any{"total": 2})
	})
}

func TestGetPipelineJobs(t *testing.T) {
	w := newWorld(t)
	f := w.fixture(t)
	args := map[string]any{"id": "gitlab-org/gitlab-mcp", "pipeline_id": f.MRPipeline.ID}

	m := w.ok(t, w.Stranger, "get_pipeline_jobs", args)
	list := items(t, m)
	jsonEq(t, "names", field(t, list, "name"), []string{"build", "test", "lint"})
	job := f.MRPipeline.Jobs[1]
	wantFields(t, "failed job", list[1], map[string]any{
		"id": job.ID, "status": "failed", "stage": "test", "name": "test", "ref": f.MRPipeline.Ref, "tag": false,
		"coverage": nil, "allow_failure": false, "created_at": "2025-03-01T10:42:00.000Z",
		"started_at": "2025-03-01T10:44:00.000Z", "finished_at": "2025-03-01T10:50:00.000Z", "erased_at": nil,
		"duration": 360.5, "failure_reason": "script_failure", "commit": map[string]any{"id": f.MR.SHA, "short_id": f.MR.SHA[:8]},
		"web_url": publicURL + "/gitlab-org/gitlab-mcp/-/jobs/" + itoa(job.ID), "artifacts": []any{}, "tag_list": []any{},
	})
	wantFields(t, "job user", get(t, list[1], "user"), map[string]any{"username": "alice"})
	wantFields(t, "job pipeline", get(t, list[1], "pipeline"), map[string]any{"id": f.MRPipeline.ID, "status": "failed"})
	wantFields(t, "pending job", list[2], map[string]any{"allow_failure": true, "started_at": nil, "duration": nil})
	if _, ok := list[0].(map[string]any)["failure_reason"]; ok {
		t.Error("a successful job has a failure_reason")
	}

	args["per_page"], args["page"] = 2, 2
	m = w.ok(t, w.Bob, "get_pipeline_jobs", args)
	jsonEq(t, "page 2", field(t, items(t, m), "name"), []string{"lint"})
	wantFields(t, "pageInfo", m["pageInfo"], map[string]any{"page": 2, "total": 3, "total_pages": 2, "prev_page": 1})

	t.Run("not found", func(t *testing.T) {
		// A pipeline of another project is not found through this one.
		w.fails(t, w.Alice, "get_pipeline_jobs", map[string]any{"id": "gitlab-org/gitlab-mcp", "pipeline_id": f.OrbitPipeline.ID}, "404 Pipeline Not Found")
		w.fails(t, w.Alice, "get_pipeline_jobs", `{"id":"gitlab-org/gitlab-mcp","pipeline_id":987654}`, "404 Pipeline Not Found")
		w.fails(t, w.Stranger, "get_pipeline_jobs", `{"id":"acme/secret-plans","pipeline_id":1}`, "404 Project Not Found")
		m := w.ok(t, w.Carol, "get_pipeline_jobs", map[string]any{"id": "gitlab-org/orbit", "pipeline_id": f.OrbitPipeline.ID})
		wantFields(t, "internal project job", items(t, m)[0], map[string]any{"name": "index", "user": nil})
	})
}

func TestCreateMergeRequest(t *testing.T) {
	w := newWorld(t)
	f := w.fixture(t)
	mcp := w.project("gitlab-org/gitlab-mcp")
	ctx := t.Context()

	// A branch of main with one file changed and one added, in git.
	repo, err := storetest.Repositories(t, w.st).Repository(ctx, mcp.ID)
	if err != nil {
		t.Fatal(err)
	}
	full, err := repo.CommitFiles(ctx, repository.CommitFilesRequest{Branch: "zebrafish/full", StartBranch: "main",
		Message: "Count the fish", Author: repository.Signature{Name: "Alice Martin", Email: "alice@example.com"},
		Actions: []repository.Action{
			{Action: "update", FilePath: "zebrafish/tank.go", HasContent: true,
				Content: []byte("package zebrafish\n\n// Tank holds zebrafish.\ntype Tank struct{ Fish int }\n")},
			{Action: "create", FilePath: "zebrafish/net.go", HasContent: true, Content: []byte("package zebrafish\n")},
		}})
	repo.Close()
	if err != nil {
		t.Fatal(err)
	}

	t.Run("happy path, with diffs computed from the branches", func(t *testing.T) {
		before := w.state(t)
		iid := w.nextIID(t, "merge_requests", mcp.ID)
		m := w.ok(t, w.Alice, "create_merge_request", map[string]any{
			"project_id": "gitlab-org%2Fgitlab-mcp", "title": "Draft: Count the fish", "source_branch": "zebrafish/full",
			"target_branch": "main", "target_project_id": mcp.ID, "description": "Counts them.",
			"labels": []string{"zebrafish", "aquarium"}, "assignee_ids": []int64{w.Alice.ID}, "reviewer_ids": []int64{w.Bob.ID, w.Root.ID},
		})
		wantFields(t, "merge request", m, map[string]any{
			"iid": iid, "project_id": mcp.ID, "title": "Draft: Count the fish", "description": "Counts them.",
			"state": "opened", "source_branch": "zebrafish/full", "target_branch": "main", "draft": true,
			"work_in_progress": true, "labels": []string{"zebrafish", "aquarium"}, "merge_status": "unchecked",
			"detailed_merge_status": "draft_status", "sha": full.ID, "changes_count": "2", "user_notes_count": 0,
			"head_pipeline": nil,
			"web_url":       publicURL + "/gitlab-org/gitlab-mcp/-/merge_requests/" + itoa(iid), "user": map[string]any{"can_merge": true},
		})
		wantFields(t, "author", get(t, m, "author"), map[string]any{"username": "alice"})
		jsonEq(t, "reviewers", field(t, get(t, m, "reviewers").([]any), "username"), []string{"root", "bob"})
		diffs := items(t, w.ok(t, w.Alice, "get_merge_request_diffs", map[string]any{"id": mcp.ID, "merge_request_iid": iid}))
		jsonEq(t, "diffs", diffs, []map[string]any{
			{"old_path": "zebrafish/net.go", "new_path": "zebrafish/net.go", "a_mode": "0", "b_mode": "100644",
				"new_file": true, "renamed_file": false, "deleted_file": false, "generated_file": false,
				"diff": "@@ -0,0 +1 @@\n+package zebrafish\n"},
			{"old_path": "zebrafish/tank.go", "new_path": "zebrafish/tank.go", "a_mode": "100644", "b_mode": "100644",
				"new_file": false, "renamed_file": false, "deleted_file": false, "generated_file": false,
				"diff": "@@ -1,4 +1,4 @@\n package zebrafish\n \n // Tank holds zebrafish.\n-type Tank struct{}\n+type Tank struct{ Fish int }\n"},
		})
		after := w.state(t)
		for k, d := range map[string]int64{"merge_requests": 1, "labels": 1, "merge_request_assignees": 1,
			"merge_request_reviewers": 2} {
			if after[k]-before[k] != d {
				t.Errorf("%s grew by %d, want %d", k, after[k]-before[k], d)
			}
		}
		// The same branches again: an open merge request exists.
		before = w.state(t)
		w.fails(t, w.Root, "create_merge_request", map[string]any{"project_id": mcp.ID, "title": "Again",
			"source_branch": "zebrafish/full", "target_branch": "main"},
			"Conflict: Another open merge request already exists for this source branch: !"+itoa(iid))
		w.unchanged(t, before)
	})

	t.Run("any two branches of the repository", func(t *testing.T) {
		// main → zebrafish/feature: the reverse of the fixture's merge request.
		m := w.ok(t, w.Root, "create_merge_request", map[string]any{"project_id": mcp.ID, "title": "Backport",
			"source_branch": "main", "target_branch": "zebrafish/feature"})
		wantFields(t, "merge request", m, map[string]any{"draft": false, "detailed_merge_status": "unchecked",
			"author": map[string]any{"id": w.Root.ID, "username": "root", "name": "Administrator", "state": "active",
				"locked": false, "avatar_url": nil, "web_url": publicURL + "/root"}})
	})

	failures := []struct {
		name string
		user func() *models.User
		args map[string]any
		opts callOpts
		want string
	}{
		{"reporter", func() *models.User { return w.Bob }, map[string]any{"title": "x"}, callOpts{},
			"Forbidden: you need at least the Developer role in project gitlab-org/gitlab-mcp to create merge requests"},
		{"guest", func() *models.User { return w.Carol }, map[string]any{"title": "x"}, callOpts{},
			"Forbidden: you need at least the Developer role"},
		{"non-member", func() *models.User { return w.Stranger }, map[string]any{"title": "x"}, callOpts{},
			"Forbidden: you need at least the Developer role"},
		{"private project, non-member", func() *models.User { return w.Bob }, map[string]any{"project_id": "acme/secret-plans", "title": "x"}, callOpts{},
			"404 Project Not Found"},
		{"same branches", func() *models.User { return w.Alice }, map[string]any{"title": "x", "source_branch": "main", "target_branch": "main"}, callOpts{},
			`Validation error: source_branch and target_branch must be different (both are "main")`},
		{"unknown source", func() *models.User { return w.Alice }, map[string]any{"title": "x", "source_branch": "nope", "labels": []string{"brand-new"}}, callOpts{},
			`Validation error: source_branch: branch "nope" does not exist in project gitlab-org/gitlab-mcp`},
		{"unknown target", func() *models.User { return w.Alice }, map[string]any{"title": "x", "target_branch": "nope"}, callOpts{},
			`Validation error: target_branch: branch "nope" does not exist in project gitlab-org/gitlab-mcp`},
		{"fork target", func() *models.User { return w.Alice }, map[string]any{"title": "x", "target_project_id": 987654}, callOpts{},
			"Validation error: target_project_id: merge requests into another project (forks) are not supported"},
		{"reviewer not a member", func() *models.User { return w.Alice }, map[string]any{"title": "x", "labels": []string{"brand-new"}, "reviewer_ids": []int64{w.Stranger.ID}}, callOpts{},
			"Validation error: reviewer_ids: user " + itoa(w.Stranger.ID) + " (stranger) is not a member of project gitlab-org/gitlab-mcp"},
		{"blank title", func() *models.User { return w.Alice }, map[string]any{"title": "   "}, callOpts{},
			"Validation error: title: must not be blank"},
		{"milestone", func() *models.User { return w.Alice }, map[string]any{"title": "x", "milestone_id": 999}, callOpts{},
			"Validation error: milestone_id: milestone 999 not found in project gitlab-org/gitlab-mcp"},
		{"open merge request exists", func() *models.User { return w.Alice }, map[string]any{"title": "x", "source_branch": "zebrafish/feature", "target_branch": "main"}, callOpts{},
			"Conflict: Another open merge request already exists for this source branch: !" + itoa(f.MR.IID)},
	}
	for _, c := range failures {
		t.Run("fails: "+c.name, func(t *testing.T) {
			args := map[string]any{"project_id": "gitlab-org/gitlab-mcp", "source_branch": "zebrafish/full", "target_branch": "zebrafish/feature"}
			for k, v := range c.args {
				args[k] = v
			}
			before := w.state(t)
			w.fails(t, c.user(), "create_merge_request", args, c.want, c.opts)
			w.unchanged(t, before)
		})
	}
}
