package store_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"sync"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

func TestStore_Approvals_concurrent(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		alice := mustCreateUser(t, s, "alice")
		bob := mustCreateUser(t, s, "bob")
		p := mustCreateProject(t, s, "g", "p")
		mr := &models.MergeRequest{ProjectID: p.ID, Title: "Fix", SourceBranch: "fix", TargetBranch: "main", AuthorID: alice.ID}
		wantErr(t, "CreateMergeRequest", s.MergeRequests.CreateMergeRequest(ctx, mr), nil)

		// The same user approving twice at once: exactly one approval is recorded.
		var wg sync.WaitGroup
		created := make([]bool, 4)
		errs := make([]error, 4)
		for k := range created {
			wg.Go(func() { created[k], errs[k] = s.MergeRequests.ApproveMergeRequest(ctx, mr.ID, bob.ID) })
		}
		wg.Wait()
		n := 0
		for k := range created {
			wantErr(t, "ApproveMergeRequest", errs[k], nil)
			if created[k] {
				n++
			}
		}
		if n != 1 || countRows(t, s, "approvals") != 1 {
			t.Fatalf("approvals created %d times, %d rows; want 1", n, countRows(t, s, "approvals"))
		}
		if ok, err := s.MergeRequests.ApproveMergeRequest(ctx, mr.ID, alice.ID); err != nil || !ok {
			t.Fatalf("second approver: %v %v", ok, err)
		}
		as, err := s.MergeRequests.MergeRequestApprovals(ctx, mr.ID)
		if err != nil || len(as) != 2 || as[0].User == nil || as[0].User.Username != "bob" {
			t.Fatalf("approvals = %+v, %v", as, err)
		}
		if ok, err := s.MergeRequests.UnapproveMergeRequest(ctx, mr.ID, bob.ID); err != nil || !ok {
			t.Fatalf("unapprove: %v %v", ok, err)
		}
		if ok, err := s.MergeRequests.UnapproveMergeRequest(ctx, mr.ID, bob.ID); err != nil || ok {
			t.Fatalf("unapprove again: %v %v, want false", ok, err)
		}
		if _, err := s.MergeRequests.ApproveMergeRequest(ctx, mr.ID, 9999); !errors.Is(err, models.ErrInvalidInput) {
			t.Fatalf("unknown user: %v", err)
		}
	})
}

func TestStore_Discussions(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		alice := mustCreateUser(t, s, "alice")
		bob := mustCreateUser(t, s, "bob")
		p := mustCreateProject(t, s, "g", "p")
		mr := &models.MergeRequest{ProjectID: p.ID, Title: "Fix", SourceBranch: "fix", TargetBranch: "main", AuthorID: alice.ID}
		wantErr(t, "CreateMergeRequest", s.MergeRequests.CreateMergeRequest(ctx, mr), nil)
		note := func(body, discussion, typ string, pos *models.DiffPosition, internal bool) *models.Note {
			n := &models.Note{NoteableType: models.NoteableMergeRequest, NoteableID: mr.ID, ProjectID: p.ID,
				AuthorID: bob.ID, Body: body, DiscussionID: discussion, Type: typ, Position: pos, Internal: internal}
			wantErr(t, "CreateNote("+body+")", s.Notes.CreateNote(ctx, n), nil)
			return n
		}
		line := 3
		comment := note("LGTM overall", "", "", nil, false)
		diff := note("Off by one?", "", models.NoteTypeDiff, &models.DiffPosition{NewPath: "a.go", OldPath: "a.go", NewLine: &line, HeadSHA: "abc"}, false)
		reply := note("Fixed.", diff.DiscussionID, "", nil, false)
		secret := note("internal", "", "", nil, true)
		if reply.Type != models.NoteTypeDiff || reply.Position == nil || *reply.Position.NewLine != 3 {
			t.Fatalf("reply to a diff note: type %q position %+v", reply.Type, reply.Position)
		}
		loaded, err := s.Notes.LoadNote(ctx, diff.ID)
		if err != nil || loaded.Position == nil || loaded.Position.NewPath != "a.go" || loaded.Position.OldLine != nil {
			t.Fatalf("stored position: %+v %v", loaded, err)
		}
		page, more, err := s.MergeRequests.PageDiscussions(ctx, models.DiscussionPageQuery{NoteableType: models.NoteableMergeRequest, NoteableID: mr.ID, Limit: 1})
		if err != nil || len(page) != 1 || !more || page[0].ID != comment.DiscussionID || !page[0].Individual {
			t.Fatalf("page 1 = %+v more %v err %v", page, more, err)
		}
		page, more, err = s.MergeRequests.PageDiscussions(ctx, models.DiscussionPageQuery{NoteableType: models.NoteableMergeRequest,
			NoteableID: mr.ID, Limit: 5, AfterNoteID: page[0].Notes[0].ID})
		if err != nil || len(page) != 1 || more || len(page[0].Notes) != 2 || !page[0].Resolvable() || page[0].Resolved() {
			t.Fatalf("page 2 (internal hidden) = %+v more %v err %v", page, more, err)
		}
		all, _, _ := s.MergeRequests.PageDiscussions(ctx, models.DiscussionPageQuery{NoteableType: models.NoteableMergeRequest,
			NoteableID: mr.ID, Limit: 5, IncludeInternal: true})
		if len(all) != 3 || all[2].ID != secret.DiscussionID {
			t.Fatalf("with internal: %d discussions", len(all))
		}
		notes, err := s.MergeRequests.ResolveDiscussion(ctx, mr.ID, diff.DiscussionID, alice.ID, true)
		if err != nil || len(notes) != 2 || notes[0].ResolvedAt == nil || *notes[1].ResolvedByID != alice.ID {
			t.Fatalf("resolve: %+v %v", notes, err)
		}
		if _, err := s.MergeRequests.ResolveDiscussion(ctx, mr.ID, comment.DiscussionID, alice.ID, true); !errors.Is(err, models.ErrInvalidInput) {
			t.Fatalf("resolve a comment: %v", err)
		}
		if _, err := s.MergeRequests.ResolveDiscussion(ctx, mr.ID+1, diff.DiscussionID, alice.ID, true); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("resolve through another MR: %v", err)
		}
		notes, err = s.MergeRequests.ResolveDiscussion(ctx, mr.ID, diff.DiscussionID, alice.ID, false)
		if err != nil || notes[0].ResolvedAt != nil {
			t.Fatalf("unresolve: %+v %v", notes, err)
		}
	})
}

func TestStore_ListAndUpdateMergeRequests(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		alice := mustCreateUser(t, s, "alice")
		bob := mustCreateUser(t, s, "bob")
		p := mustCreateProject(t, s, "g", "p")
		var mrs []*models.MergeRequest
		for k, title := range []string{"Add cache", "Fix 100% bug", "Docs"} {
			mr := &models.MergeRequest{ProjectID: p.ID, Title: title, SourceBranch: "b" + title, TargetBranch: "main",
				AuthorID: alice.ID, Labels: models.StringList{"x"}}
			if k == 1 {
				mr.Labels = models.StringList{"bug", "x"}
				mr.Reviewers = []models.User{*bob}
			}
			wantErr(t, "CreateMergeRequest", s.MergeRequests.CreateMergeRequest(ctx, mr), nil)
			mrs = append(mrs, mr)
		}
		list := func(q models.MergeRequestQuery) []string {
			q.ProjectIDs = []int64{p.ID}
			if q.Limit == 0 {
				q.Limit = 10
			}
			got, _, err := s.MergeRequests.ListMergeRequests(ctx, q)
			wantErr(t, "ListMergeRequests", err, nil)
			var titles []string
			for _, mr := range got {
				titles = append(titles, mr.Title)
			}
			return titles
		}
		for name, tc := range map[string]struct {
			q    models.MergeRequestQuery
			want int
		}{
			"all":        {models.MergeRequestQuery{}, 3},
			"labels":     {models.MergeRequestQuery{Labels: []string{"bug", "x"}}, 1},
			"reviewer":   {models.MergeRequestQuery{ReviewerID: bob.ID}, 1},
			"search %":   {models.MergeRequestQuery{Search: "100%"}, 1},
			"search _":   {models.MergeRequestQuery{Search: "_"}, 0},
			"author bob": {models.MergeRequestQuery{AuthorID: bob.ID}, 0},
		} {
			if got := list(tc.q); len(got) != tc.want {
				t.Errorf("%s: %v, want %d", name, got, tc.want)
			}
		}
		first, more, _ := s.MergeRequests.ListMergeRequests(ctx, models.MergeRequestQuery{ProjectIDs: []int64{p.ID}, Limit: 2})
		rest, more2, _ := s.MergeRequests.ListMergeRequests(ctx, models.MergeRequestQuery{ProjectIDs: []int64{p.ID}, Limit: 2, BeforeID: first[1].ID})
		if len(first) != 2 || !more || len(rest) != 1 || more2 || rest[0].Title != "Add cache" {
			t.Fatalf("paging: %d %v %d %v", len(first), more, len(rest), more2)
		}

		title, yes := "Fix the 100% bug", true
		got, err := s.MergeRequests.UpdateMergeRequest(ctx, p.ID, mrs[1].IID, models.MergeRequestUpdate{Title: &title,
			AddLabels: []string{"ready"}, RemoveLabels: []string{"x"}, ReviewerIDs: []int64{}, AssigneeIDs: []int64{bob.ID},
			Squash: &yes, StateEvent: "close"})
		if err != nil || got.Title != title || !got.Squash || got.State != models.MergeRequestClosed || len(got.Reviewers) != 0 ||
			len(got.Assignees) != 1 || len(got.Labels) != 2 || got.Labels[1] != "ready" || got.ClosedAt == nil {
			t.Fatalf("update = %+v, %v", got, err)
		}
		before := *got
		_, err = s.MergeRequests.UpdateMergeRequest(ctx, p.ID, mrs[1].IID, models.MergeRequestUpdate{Title: &title, AssigneeIDs: []int64{999}})
		wantErr(t, "unknown assignee", err, models.ErrInvalidInput)
		after, _ := s.MergeRequests.LoadMergeRequest(ctx, p.ID, mrs[1].IID)
		if len(after.Assignees) != 1 || !after.UpdatedAt.Equal(before.UpdatedAt) {
			t.Fatalf("a refused update changed the merge request: %+v", after)
		}
		_, err = s.MergeRequests.UpdateMergeRequest(ctx, p.ID, 99, models.MergeRequestUpdate{Title: &title})
		wantErr(t, "unknown iid", err, models.ErrNotFound)
	})
}

func TestStore_JobArtifacts(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		alice := mustCreateUser(t, s, "alice")
		p := mustCreateProject(t, s, "g", "p")
		pl := &models.Pipeline{ProjectID: p.ID, SHA: "abc", Ref: "main", Status: models.StatusFailed, UserID: &alice.ID,
			Jobs:      []models.CIJob{{Name: "test", Status: models.StatusFailed}, {Name: "lint", Status: models.StatusSuccess}},
			Variables: []models.PipelineVariable{{Key: "A", Value: "1"}}}
		wantErr(t, "CreatePipeline", s.CI.CreatePipeline(ctx, pl), nil)
		job := pl.Jobs[0]

		// A log of 2.5 chunks: any range reads back exactly.
		log := make([]byte, store.ChunkSize*5/2)
		_, _ = rand.Read(log)
		trace := &models.JobArtifact{JobID: job.ID, FileType: models.ArtifactTrace, FileName: "job.log"}
		wantErr(t, "WriteJobArtifact", s.CI.WriteJobArtifact(ctx, trace, bytes.NewReader(log)), nil)
		if trace.Size != int64(len(log)) || countRows(t, s, "ci_job_artifact_chunks") != 3 {
			t.Fatalf("size %d chunks %d", trace.Size, countRows(t, s, "ci_job_artifact_chunks"))
		}
		for _, r := range [][2]int64{{0, 10}, {store.ChunkSize - 5, 10}, {store.ChunkSize - 1, store.ChunkSize + 2}, {int64(len(log)) - 7, 100}, {int64(len(log)), 5}, {0, int64(len(log))}} {
			got, err := s.CI.ReadArtifactRange(ctx, trace, r[0], r[1])
			end := min(r[0]+r[1], int64(len(log)))
			if err != nil || !bytes.Equal(got, log[r[0]:end]) {
				t.Fatalf("range %v: %d bytes, err %v", r, len(got), err)
			}
		}

		// A zip archive read through the chunk reader.
		var zbuf bytes.Buffer
		zw := zip.NewWriter(&zbuf)
		big := bytes.Repeat([]byte("coverage line\n"), 30000)
		for name, body := range map[string][]byte{"coverage/index.html": big, "report.txt": []byte("ok\n")} {
			w, _ := zw.Create(name)
			_, _ = w.Write(body)
		}
		_ = zw.Close()
		arch := &models.JobArtifact{JobID: job.ID, FileType: models.ArtifactArchive, FileFormat: "zip", FileName: "artifacts.zip"}
		wantErr(t, "WriteJobArtifact(zip)", s.CI.WriteJobArtifact(ctx, arch, bytes.NewReader(zbuf.Bytes())), nil)
		zr, err := zip.NewReader(s.CI.OpenArtifact(ctx, arch), arch.Size)
		if err != nil {
			t.Fatal(err)
		}
		f, err := zr.Open("coverage/index.html")
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(f)
		if !bytes.Equal(got, big) {
			t.Fatalf("zip entry: %d bytes, want %d", len(got), len(big))
		}
		arts, err := s.CI.JobArtifacts(ctx, []int64{job.ID})
		if err != nil || len(arts) != 1 || arts[0].FileType != models.ArtifactArchive {
			t.Fatalf("artifacts (log excluded) = %+v %v", arts, err)
		}
		wantErr(t, "artifact of unknown job", s.CI.WriteJobArtifact(ctx, &models.JobArtifact{JobID: 999, FileType: "trace", FileName: "x"}, bytes.NewReader(nil)), models.ErrNotFound)

		// Retry, cancel, rename, delete.
		retried, err := s.CI.RetryPipeline(ctx, pl.ID, alice.ID)
		if err != nil || retried.Status != models.StatusPending {
			t.Fatalf("retry: %+v %v", retried, err)
		}
		jobs, _, _ := s.CI.PageJobs(ctx, models.JobQuery{PipelineID: pl.ID, Limit: 10})
		if len(jobs) != 2 || jobs[1].Name != "test" || jobs[1].Status != models.StatusPending {
			t.Fatalf("jobs after retry = %+v", jobs)
		}
		canceled, err := s.CI.CancelPipeline(ctx, pl.ID)
		if err != nil || canceled.Status != models.StatusCanceled {
			t.Fatalf("cancel: %+v %v", canceled, err)
		}
		_, err = s.CI.CancelPipeline(ctx, pl.ID)
		wantErr(t, "cancel a canceled pipeline", err, models.ErrInvalidInput)
		renamed, err := s.CI.RenamePipeline(ctx, pl.ID, "Nightly")
		if err != nil || renamed.Name != "Nightly" {
			t.Fatalf("rename: %+v %v", renamed, err)
		}
		wantErr(t, "DeletePipeline", s.CI.DeletePipeline(ctx, pl.ID), nil)
		for _, table := range []string{"ci_jobs", "ci_job_artifacts", "ci_job_artifact_chunks", "ci_pipeline_variables"} {
			if n := countRows(t, s, table); n != 0 {
				t.Errorf("%s: %d rows after delete", table, n)
			}
		}
		wantErr(t, "DeletePipeline again", s.CI.DeletePipeline(ctx, pl.ID), models.ErrNotFound)
	})
}

func TestStore_Vulnerabilities(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		alice := mustCreateUser(t, s, "alice")
		p := mustCreateProject(t, s, "g", "p")
		v := &models.Vulnerability{ProjectID: p.ID, Title: "SQL injection", Severity: "high", ReportType: "sast",
			Location: models.VulnerabilityLocation{File: "db.go", StartLine: 12}}
		wantErr(t, "CreateVulnerability", s.Vulnerabilities.CreateVulnerability(ctx, v), nil)
		wantErr(t, "bad severity", s.Vulnerabilities.CreateVulnerability(ctx, &models.Vulnerability{ProjectID: p.ID, Title: "x", Severity: "HUGE", ReportType: "sast"}), models.ErrInvalidInput)
		got, err := s.Vulnerabilities.ChangeVulnerability(ctx, v.ID, models.VulnerabilityChange{State: "dismissed", DismissalReason: "false_positive", Comment: "test data", AuthorID: alice.ID})
		if err != nil || got.State != "dismissed" || *got.DismissalReason != "false_positive" || *got.DismissedByID != alice.ID || got.Location.File != "db.go" {
			t.Fatalf("dismiss: %+v %v", got, err)
		}
		_, err = s.Vulnerabilities.ChangeVulnerability(ctx, v.ID, models.VulnerabilityChange{State: "dismissed", AuthorID: alice.ID})
		wantErr(t, "dismiss twice", err, models.ErrConflict)
		got, err = s.Vulnerabilities.ChangeVulnerability(ctx, v.ID, models.VulnerabilityChange{State: "detected", AuthorID: alice.ID})
		if err != nil || got.DismissalReason != nil || got.DismissedAt != nil {
			t.Fatalf("revert: %+v %v", got, err)
		}
		if n := countRows(t, s, "vulnerability_events"); n != 2 {
			t.Fatalf("events = %d", n)
		}
		list, more, err := s.Vulnerabilities.ListVulnerabilities(ctx, models.VulnerabilityQuery{ProjectID: p.ID, Severities: []string{"high"}, Limit: 5})
		if err != nil || len(list) != 1 || more {
			t.Fatalf("list: %+v %v %v", list, more, err)
		}
	})
}
