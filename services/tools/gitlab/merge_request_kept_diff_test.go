package gitlab_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
)

// Ensure a merge request whose source branch is gone from the repository
// is answered from the diff an export archive carried for it (kept by the
// import): get_merge_request's diffs and commits facets and the older
// get_merge_request_diffs and get_merge_request_commits; without a kept
// diff the missing branch stays a not-found error naming it.
func TestMergeRequest_keptDiff(t *testing.T) {
	w := newWorld(t)
	f := w.fixture(t)
	ctx := context.Background()
	mcp := w.project("gitlab-org/gitlab-mcp")
	args := map[string]any{"id": "gitlab-org/gitlab-mcp", "merge_request_iid": f.MR.IID}
	ref := map[string]any{"project_id": "gitlab-org/gitlab-mcp", "merge_request_iid": f.MR.IID}

	repos := w.st.Projects.Repositories().(*repository.Storage)
	if out, err := exec.Command("git", "--git-dir", repos.Path(mcp.ID), "update-ref", "-d", "refs/heads/zebrafish/feature").CombinedOutput(); err != nil {
		t.Fatalf("delete the branch: %v\n%s", err, out)
	}
	w.fails(t, w.Bob, "get_merge_request_diffs", args, "Source branch 'zebrafish/feature' of merge request !"+itoa(f.MR.IID)+" does not exist in the repository")

	when := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	kept := &models.MergeRequestDiff{HeadSHA: strings.Repeat("b", 40), BaseSHA: strings.Repeat("a", 40), StartSHA: strings.Repeat("a", 40),
		Commits: []models.MergeRequestDiffCommit{
			{SHA: strings.Repeat("b", 40), Message: "Feed the fish\n\nDaily.\n", AuthorName: "Zoë Archivist", AuthorEmail: "zoe@example.com",
				AuthoredDate: when, CommitterName: "Zoë Archivist", CommitterEmail: "zoe@example.com", CommittedDate: when},
			{SHA: strings.Repeat("c", 40), Message: "Add a tank\n", AuthorName: "Ann", AuthorEmail: "ann@example.com",
				AuthoredDate: when.Add(-time.Hour), CommitterName: "Ann", CommitterEmail: "ann@example.com", CommittedDate: when.Add(-time.Hour)},
		},
		Files: []models.MergeRequestDiffFile{
			{OldPath: "fish/feed.go", NewPath: "fish/feed.go", AMode: "0", BMode: "100644", NewFile: true,
				Diff: "@@ -0,0 +1,2 @@\n+package fish\n+func Feed() {}\n"},
			{OldPath: "fish/old.go", NewPath: "fish/old.go", AMode: "100644", BMode: "0", DeletedFile: true,
				Diff: "@@ -1 +0,0 @@\n-package fish\n"},
		}}
	if err := w.st.MergeRequests.SaveMergeRequestDiff(ctx, f.MR.ID, kept); err != nil {
		t.Fatal(err)
	}

	jsonEq(t, "get_merge_request_diffs", items(t, w.ok(t, w.Bob, "get_merge_request_diffs", args)), []map[string]any{
		{"old_path": "fish/feed.go", "new_path": "fish/feed.go", "a_mode": "0", "b_mode": "100644", "new_file": true,
			"renamed_file": false, "deleted_file": false, "generated_file": false, "diff": "@@ -0,0 +1,2 @@\n+package fish\n+func Feed() {}\n"},
		{"old_path": "fish/old.go", "new_path": "fish/old.go", "a_mode": "100644", "b_mode": "0", "new_file": false,
			"renamed_file": false, "deleted_file": true, "generated_file": false, "diff": "@@ -1 +0,0 @@\n-package fish\n"},
	})
	commits := items(t, w.ok(t, w.Bob, "get_merge_request_commits", args))
	jsonEq(t, "commit titles", field(t, commits, "title"), []string{"Feed the fish", "Add a tank"})
	wantFields(t, "commit", commits[0], map[string]any{"id": strings.Repeat("b", 40), "message": "Feed the fish\n\nDaily.\n",
		"author_name": "Zoë Archivist", "author_email": "zoe@example.com", "authored_date": "2024-05-06T07:08:09.000Z"})

	m := w.ok(t, w.Bob, "get_merge_request", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "merge_request_iid": f.MR.IID,
		"include": []string{"diffs"}, "detail": "full_patch"})
	jsonEq(t, "diffStatsSummary", m["diffStatsSummary"], map[string]any{"additions": 2, "deletions": 1, "changes": 3, "fileCount": 2})
	jsonEq(t, "diffStats", m["diffStats"], []map[string]any{{"path": "fish/feed.go", "additions": 2, "deletions": 0},
		{"path": "fish/old.go", "additions": 0, "deletions": 1}})
	jsonEq(t, "diff paths", field(t, get(t, m, "diffs", "nodes").([]any), "newPath"), []string{"fish/feed.go", "fish/old.go"})
	ref["include"] = []string{"commits"}
	m = w.ok(t, w.Bob, "get_merge_request", ref)
	jsonEq(t, "commits facet", field(t, get(t, m, "commits", "nodes").([]any), "sha"), []string{strings.Repeat("b", 40), strings.Repeat("c", 40)})
	ref["commits_first"] = 1
	m = w.ok(t, w.Bob, "get_merge_request", ref)
	jsonEq(t, "first commit", field(t, get(t, m, "commits", "nodes").([]any), "title"), []string{"Feed the fish"})
	wantFields(t, "pageInfo", get(t, m, "commits", "pageInfo"), map[string]any{"hasNextPage": true})
}
