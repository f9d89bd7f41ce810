package gitlab_test

import (
	"context"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// fixture is what the tests assert on exactly, added to the demo world (of
// which the tests use only the users, their roles and the three projects:
// gitlab-org/gitlab-mcp public, gitlab-org/orbit internal, acme/secret-plans
// private). Every searchable text holds the word "zebrafish", which the
// demo world never uses, so search counts are exact.
type fixture struct {
	Issue    *models.Issue // public, by root, assigned to alice, 7 notes
	Secret   *models.Issue // confidential, by alice; a public and an internal note
	Private  *models.Issue // in acme/secret-plans
	Internal *models.Issue // in gitlab-org/orbit
	Notes    []*models.Note
	// ThreadID is the discussion of Notes[1..3]; InternalThreadID starts
	// with the internal note on Secret.
	ThreadID, InternalThreadID string

	MR             *models.MergeRequest // !N in gitlab-mcp: 3 commits, 2 diffs (in git)
	Commits        []*repository.Commit // the MR's commits in git, newest first
	MRPipeline     *models.Pipeline     // merge request pipeline, 3 jobs
	BranchPipeline *models.Pipeline     // branch pipeline on one of the MR's commits
	OrbitPipeline  *models.Pipeline
}

// fixtureTime is when the fixture's history starts.
var fixtureTime = time.Date(2025, time.March, 1, 10, 0, 0, 0, time.UTC)

func at(minutes int) time.Time { return fixtureTime.Add(time.Duration(minutes) * time.Minute) }

func tptr(t time.Time) *time.Time { return &t }

func (w *world) fixture(tb testing.TB) *fixture {
	tb.Helper()
	ctx := context.Background()
	st := w.st
	must := func(what string, err error) {
		tb.Helper()
		if err != nil {
			tb.Fatalf("fixture %s: %v", what, err)
		}
	}
	mcp, orbit, secret := w.project("gitlab-org/gitlab-mcp"), w.project("gitlab-org/orbit"), w.project("acme/secret-plans")
	f := &fixture{}

	f.Issue = &models.Issue{ProjectID: mcp.ID, Title: "Zebrafish crash in tools/list", Description: "The zebrafish client crashes.",
		Labels: models.StringList{"bug", "zebrafish"}, Milestone: "19.0", AuthorID: w.Root.ID,
		Assignees: []models.User{{ID: w.Alice.ID}}, CreatedAt: at(0), UpdatedAt: at(5)}
	must("issue", st.Issues.CreateIssue(ctx, f.Issue))
	f.Secret = &models.Issue{ProjectID: mcp.ID, Title: "Zebrafish token leak", Description: "secret zebrafish details",
		Confidential: true, AuthorID: w.Alice.ID, Assignees: []models.User{{ID: w.Alice.ID}}, CreatedAt: at(1), UpdatedAt: at(1)}
	must("confidential issue", st.Issues.CreateIssue(ctx, f.Secret))
	f.Private = &models.Issue{ProjectID: secret.ID, Title: "Zebrafish acquisition", AuthorID: w.Alice.ID, CreatedAt: at(2), UpdatedAt: at(2)}
	must("private issue", st.Issues.CreateIssue(ctx, f.Private))
	f.Internal = &models.Issue{ProjectID: orbit.ID, Title: "Zebrafish graph cycle", State: models.IssueClosed,
		AuthorID: w.Bob.ID, CreatedAt: at(3), UpdatedAt: at(4), ClosedAt: tptr(at(4))}
	must("internal-project issue", st.Issues.CreateIssue(ctx, f.Internal))
	must("label", st.Issues.CreateLabel(ctx, &models.Label{ProjectID: mcp.ID, Name: "zebrafish", Color: "#ffcc00", Description: "Fish"}))
	must("label", st.Issues.CreateLabel(ctx, &models.Label{ProjectID: orbit.ID, Name: "zebrafish", Color: "#ffcc00"}))
	must("label", st.Issues.CreateLabel(ctx, &models.Label{ProjectID: orbit.ID, Name: "zebrafish::ops", Color: "#112233"}))
	must("label", st.Issues.CreateLabel(ctx, &models.Label{ProjectID: secret.ID, Name: "zebrafish-secret"}))

	f.ThreadID = "1111111111111111111111111111111111111111"
	note := func(i *models.Issue, author *models.User, minute int, body string, n models.Note) *models.Note {
		n.NoteableType, n.NoteableID, n.ProjectID, n.AuthorID, n.Body = models.NoteableIssue, i.ID, i.ProjectID, author.ID, body
		n.CreatedAt, n.UpdatedAt = at(minute), at(minute)
		must("note", st.Notes.CreateNote(ctx, &n))
		return &n
	}
	f.Notes = []*models.Note{
		note(f.Issue, w.Bob, 10, "First zebrafish comment", models.Note{}),
		note(f.Issue, w.Alice, 11, "Thread start", models.Note{DiscussionID: f.ThreadID}),
		note(f.Issue, w.Bob, 12, "Thread reply", models.Note{DiscussionID: f.ThreadID}),
		note(f.Issue, w.Alice, 13, "Thread second reply", models.Note{DiscussionID: f.ThreadID}),
		note(f.Issue, w.Root, 14, "added ~zebrafish label", models.Note{System: true}),
		// Two notes at the same instant: the order falls back to the id.
		note(f.Issue, w.Carol, 15, "Same minute A", models.Note{}),
		note(f.Issue, w.Carol, 15, "Same minute B", models.Note{}),
	}
	// The thread's notes were rewritten to DiscussionNote: read them back.
	for _, n := range f.Notes {
		back, err := st.Notes.LoadNote(ctx, n.ID)
		must("reload note", err)
		*n = *back
	}
	note(f.Secret, w.Alice, 20, "Public zebrafish note on a confidential issue", models.Note{})
	in := note(f.Secret, w.Root, 21, "Internal zebrafish note", models.Note{Internal: true})
	f.InternalThreadID = in.DiscussionID
	note(f.Private, w.Alice, 22, "Private zebrafish note", models.Note{})

	// Files on the default branches, and a feature branch of gitlab-mcp
	// that changes one file and adds one.
	files := []models.RepositoryFile{
		{ProjectID: mcp.ID, Ref: "main", FilePath: "zebrafish/tank.go", Content: "package zebrafish\n\n// Tank holds zebrafish.\ntype Tank struct{}\n"},
		{ProjectID: mcp.ID, Ref: "zebrafish/feature", FilePath: "zebrafish/tank.go", Content: "package zebrafish\n\n// Tank holds many zebrafish.\ntype Tank struct{ N int }\n"},
		{ProjectID: mcp.ID, Ref: "zebrafish/feature", FilePath: "zebrafish/feed.go", Content: "package zebrafish\n\nfunc Feed() {}\n"},
		{ProjectID: orbit.ID, Ref: "main", FilePath: "docs/zebrafish.md", Content: "# Zebrafish\n\nOrbit indexes zebrafish.\n"},
		{ProjectID: secret.ID, Ref: "main", FilePath: "zebrafish.txt", Content: "secret zebrafish plans\n"},
	}

	// The same history in git: zebrafish/tank.go on main, and the feature
	// branch's three commits (alice, fixed dates: stable ids).
	repo, err := storetest.Repositories(tb, st).Repository(ctx, mcp.ID)
	must("repository", err)
	defer repo.Close()
	gitCommit := func(branch, start, title string, minute int, a repository.Action) *repository.Commit {
		sig := repository.Signature{Name: w.Alice.Name, Email: w.Alice.Email, When: at(minute)}
		a.HasContent = a.Content != nil
		c, err := repo.CommitFiles(ctx, repository.CommitFilesRequest{Branch: branch, StartBranch: start, Message: title,
			Author: sig, Committer: sig, Actions: []repository.Action{a}})
		must("commit "+title, err)
		return c
	}
	base := gitCommit("main", "", "Add the zebrafish tank", 29, repository.Action{Action: "create", FilePath: "zebrafish/tank.go",
		Content: []byte(files[0].Content)})
	c1 := gitCommit("zebrafish/feature", "main", "Add a tank", 31, repository.Action{Action: "update", FilePath: "zebrafish/tank.go",
		Content: []byte("package zebrafish\n\n// Tank holds many zebrafish.\ntype Tank struct{}\n")})
	c2 := gitCommit("zebrafish/feature", "", "Grow the tank", 32, repository.Action{Action: "update", FilePath: "zebrafish/tank.go",
		Content: []byte(files[1].Content)})
	c3 := gitCommit("zebrafish/feature", "", "Feed them", 33, repository.Action{Action: "create", FilePath: "zebrafish/feed.go",
		Content: []byte(files[2].Content)})
	f.Commits = []*repository.Commit{c3, c2, c1}
	// The other default branches' files (semantic_search reads them).
	for k, file := range files[3:] {
		r, err := storetest.Repositories(tb, st).Repository(ctx, file.ProjectID)
		must("repository", err)
		sig := repository.Signature{Name: w.Alice.Name, Email: w.Alice.Email, When: at(34 + k)}
		_, err = r.CommitFiles(ctx, repository.CommitFilesRequest{Branch: "main", Message: "Add " + file.FilePath, Author: sig, Committer: sig,
			Actions: []repository.Action{{Action: "create", FilePath: file.FilePath, Content: []byte(file.Content), HasContent: true}}})
		must("commit "+file.FilePath, err)
		r.Close()
	}
	f.MR = &models.MergeRequest{ProjectID: mcp.ID, Title: "Zebrafish tank", Description: "Adds a zebrafish tank.",
		SourceBranch: "zebrafish/feature", TargetBranch: "main", AuthorID: w.Alice.ID,
		Labels: models.StringList{"zebrafish"}, MergeStatus: models.MergeStatusCanBeMerged,
		Assignees: []models.User{{ID: w.Alice.ID}}, Reviewers: []models.User{{ID: w.Bob.ID}},
		SHA: c3.ID, DiffBaseSHA: base.ID,
		CreatedAt: at(40), UpdatedAt: at(41)}
	must("merge request", st.MergeRequests.CreateMergeRequest(ctx, f.MR))
	f.MRPipeline = &models.Pipeline{ProjectID: mcp.ID, SHA: f.MR.SHA, Ref: "refs/merge-requests/" + itoa(f.MR.IID) + "/head",
		Status: models.StatusFailed, Source: models.PipelineSourceMergeRequestEvent, UserID: &w.Alice.ID,
		MergeRequestID: &f.MR.ID, CreatedAt: at(42), UpdatedAt: at(50), StartedAt: tptr(at(43)), FinishedAt: tptr(at(50)),
		Jobs: []models.CIJob{
			{Name: "build", Stage: "build", Status: models.StatusSuccess, CreatedAt: at(42), StartedAt: tptr(at(43)), FinishedAt: tptr(at(44)), Duration: fptr(60)},
			{Name: "test", Stage: "test", Status: models.StatusFailed, FailureReason: "script_failure", CreatedAt: at(42), StartedAt: tptr(at(44)), FinishedAt: tptr(at(50)), Duration: fptr(360.5)},
			{Name: "lint", Stage: "test", Status: models.StatusSuccess, AllowFailure: true, CreatedAt: at(42)},
		}}
	must("pipeline", st.CI.CreatePipeline(ctx, f.MRPipeline))
	f.BranchPipeline = &models.Pipeline{ProjectID: mcp.ID, SHA: f.Commits[1].ID, Ref: "zebrafish/feature",
		Status: models.StatusSuccess, Source: models.PipelineSourcePush, CreatedAt: at(35), UpdatedAt: at(36)}
	must("pipeline", st.CI.CreatePipeline(ctx, f.BranchPipeline))
	// A pipeline on the branch for a commit not in the MR is not one of its pipelines.
	must("pipeline", st.CI.CreatePipeline(ctx, &models.Pipeline{ProjectID: mcp.ID, SHA: "ffff000000000000000000000000000000000000",
		Ref: "zebrafish/feature", Status: models.StatusSuccess, CreatedAt: at(36), UpdatedAt: at(36)}))
	f.OrbitPipeline = &models.Pipeline{ProjectID: orbit.ID, SHA: "eeee000000000000000000000000000000000000", Ref: "main",
		Status: models.StatusSuccess, CreatedAt: at(60), UpdatedAt: at(60),
		Jobs: []models.CIJob{{Name: "index", Status: models.StatusSuccess, CreatedAt: at(60)}}}
	must("pipeline", st.CI.CreatePipeline(ctx, f.OrbitPipeline))
	return f
}

func fptr(f float64) *float64 { return &f }
