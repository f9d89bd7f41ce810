package gitlab_test

import (
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// TestPrivateProjectGuest: a Guest of a private project reads its issues
// but not its repository, merge requests or pipelines, in every tool.
func TestPrivateProjectGuest(t *testing.T) {
	w := newWorld(t)
	f := w.fixture(t)
	secret := w.project("acme/secret-plans")
	ctx := t.Context()
	if err := w.st.Groups.AddProjectMember(ctx, &models.ProjectMember{ProjectID: secret.ID, UserID: w.Carol.ID, AccessLevel: models.Guest}); err != nil {
		t.Fatal(err)
	}
	// The merge request's source branch, in git.
	repo, err := storetest.Repositories(t, w.st).Repository(ctx, secret.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.CreateBranch(ctx, "deal", "main"); err != nil {
		t.Fatal(err)
	}
	repo.Close()
	mr := &models.MergeRequest{ProjectID: secret.ID, Title: "Zebrafish merger", SourceBranch: "deal", TargetBranch: "main", AuthorID: w.Alice.ID}
	if err := w.st.MergeRequests.CreateMergeRequest(ctx, mr); err != nil {
		t.Fatal(err)
	}
	pl := &models.Pipeline{ProjectID: secret.ID, SHA: "abababababababababababababababababababab", Ref: "main"}
	if err := w.st.CI.CreatePipeline(ctx, pl); err != nil {
		t.Fatal(err)
	}
	ee := callOpts{edition: models.EditionEE}

	wantFields(t, "guest reads issues", w.ok(t, w.Carol, "get_issue", map[string]any{"id": secret.ID, "issue_iid": f.Private.IID}),
		map[string]any{"id": f.Private.ID})
	mrArgs := map[string]any{"id": secret.ID, "merge_request_iid": mr.IID}
	for _, tool := range []string{"get_merge_request_commits", "get_merge_request_diffs", "get_merge_request_pipelines"} {
		w.fails(t, w.Carol, tool, mrArgs, "404 Merge Request Not Found")
		w.ok(t, w.Alice, tool, mrArgs) // a maintainer does
	}
	refArgs := map[string]any{"project_id": secret.ID, "merge_request_iid": mr.IID}
	w.fails(t, w.Carol, "get_merge_request", refArgs, "404 Merge Request Not Found")
	w.ok(t, w.Alice, "get_merge_request", refArgs)
	w.fails(t, w.Carol, "get_pipeline_jobs", map[string]any{"id": secret.ID, "pipeline_id": pl.ID}, "404 Pipeline Not Found")
	w.ok(t, w.Alice, "get_pipeline_jobs", map[string]any{"id": secret.ID, "pipeline_id": pl.ID})
	w.fails(t, w.Carol, "semantic_code_search", map[string]any{"project_id": secret.ID, "scope": "code", "q": "zebrafish"},
		"Forbidden: you need at least the Reporter role in project acme/secret-plans to read its code", ee)

	countTerm := func(u *models.User, scope, term string) any {
		m := w.ok(t, u, "search", map[string]any{"scope": scope, "search": term, "project_id": secret.ID})
		return get(t, m, "pageInfo", "total")
	}
	count := func(u *models.User, scope string) any { return countTerm(u, scope, "zebrafish") }
	// The code scopes read the demo's git history ("Nebula" is in three
	// files and one commit message).
	jsonEq(t, "guest: issues, merge requests, blobs, commits", []any{count(w.Carol, "issues"), count(w.Carol, "merge_requests"),
		countTerm(w.Carol, "blobs", "nebula"), countTerm(w.Carol, "commits", "nebula")}, []int{1, 0, 0, 0})
	jsonEq(t, "maintainer: issues, merge requests, blobs, commits", []any{count(w.Alice, "issues"), count(w.Alice, "merge_requests"),
		countTerm(w.Alice, "blobs", "nebula"), countTerm(w.Alice, "commits", "nebula")}, []int{1, 1, 3, 1})
	// Notes on the hidden merge request stay hidden too.
	if err := w.st.Notes.CreateNote(ctx, &models.Note{NoteableType: models.NoteableMergeRequest, NoteableID: mr.ID, ProjectID: secret.ID,
		AuthorID: w.Alice.ID, Body: "zebrafish terms"}); err != nil {
		t.Fatal(err)
	}
	jsonEq(t, "guest notes", count(w.Carol, "notes"), 1) // the note on the private issue only
	jsonEq(t, "maintainer notes", count(w.Alice, "notes"), 2)
}
