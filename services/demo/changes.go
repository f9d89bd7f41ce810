package demo

import (
	"archive/zip"
	"bytes"
	"fmt"
	"sort"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

// demoMR describes a demo merge request whose diffs are computed from the
// files of two trees under _demo/<project>/ (a tree falls back to "main"
// for files it does not hold).
type demoMR struct {
	mr        models.MergeRequest
	commits   []models.MergeRequestCommit // newest first
	before    string                      // tree before the change
	after     string                      // tree after the change
	paths     []string                    // changed files, in diff order
	assignees []*models.User
	reviewers []*models.User
}

func (b *demoBuilder) mergeRequest(p *models.Project, d demoMR) *models.MergeRequest {
	mr := d.mr
	mr.ProjectID = p.ID
	for _, u := range d.assignees {
		mr.Assignees = append(mr.Assignees, models.User{ID: u.ID})
	}
	for _, u := range d.reviewers {
		mr.Reviewers = append(mr.Reviewers, models.User{ID: u.ID})
	}
	mr.Commits = d.commits
	for _, fp := range d.paths {
		oldText, inBefore := treeFile(p.PathWithNamespace, d.before, fp)
		newText, inAfter := treeFile(p.PathWithNamespace, d.after, fp)
		mr.Diffs = append(mr.Diffs, models.MergeRequestDiff{
			OldPath: fp, NewPath: fp,
			NewFile: !inBefore, DeletedFile: !inAfter,
			Diff: store.UnifiedDiff(oldText, newText),
		})
	}
	if mr.UpdatedAt.IsZero() {
		mr.UpdatedAt = mr.CreatedAt
	}
	if b.err == nil {
		b.err = b.s.CreateMergeRequest(b.ctx, &mr)
	}
	return &mr
}

// treeFile reads a file of a demo tree, falling back to main.
func treeFile(project, tree, filePath string) (string, bool) {
	if content, ok := demoFile(project, tree, filePath); ok {
		return content, true
	}
	return demoFile(project, "main", filePath)
}

// commit returns a demo commit by u, authored at t.
func commit(project, title, body string, u *models.User, t time.Time) models.MergeRequestCommit {
	msg := title + "\n"
	if body != "" {
		msg += "\n" + body + "\n"
	}
	return models.MergeRequestCommit{
		SHA: demoSHA("commit", project, title), Title: title, Message: msg,
		AuthorName: u.Name, AuthorEmail: u.Email, AuthoredDate: t,
		CommitterName: u.Name, CommitterEmail: u.Email, CommittedDate: t,
	}
}

func (b *demoBuilder) pipeline(p *models.Project, pl models.Pipeline, jobs ...models.CIJob) *models.Pipeline {
	pl.ProjectID = p.ID
	pl.Jobs = jobs
	if pl.UpdatedAt.IsZero() {
		pl.UpdatedAt = pl.CreatedAt
		if pl.FinishedAt != nil {
			pl.UpdatedAt = *pl.FinishedAt
		}
	}
	if b.err == nil {
		b.err = b.s.CreatePipeline(b.ctx, &pl)
	}
	return &pl
}

// job returns a CI job queued at start; seconds < 0 means it has not
// finished (a running job when status is running).
func job(name, stage, status string, start time.Time, seconds float64) models.CIJob {
	j := models.CIJob{Name: name, Stage: stage, Status: status, CreatedAt: start}
	switch status {
	case models.StatusCreated, models.StatusPending, models.StatusManual, models.StatusSkipped:
		return j
	}
	started := start.Add(15 * time.Second)
	j.StartedAt = &started
	if seconds >= 0 {
		finished := started.Add(time.Duration(seconds * float64(time.Second)))
		j.FinishedAt = &finished
		j.Duration = ptr(seconds)
	}
	if status == models.StatusFailed {
		j.FailureReason = "script_failure"
	}
	return j
}

// diffThread is thread for a discussion on a line of a merge request's
// diff: every note of it is a DiffNote at pos.
func (b *demoBuilder) diffThread(p *models.Project, on *models.MergeRequest, name string, pos *models.DiffPosition) func(author *models.User, n models.Note) {
	id := demoSHA("discussion", p.PathWithNamespace, name)
	return func(author *models.User, n models.Note) {
		n.DiscussionID, n.Type, n.Position = id, models.NoteTypeDiff, pos
		b.note(p, on, author, n)
	}
}

// resolve marks the discussion named name of mr resolved by u.
func (b *demoBuilder) resolve(mr *models.MergeRequest, name string, p *models.Project, u *models.User, when time.Time) {
	if b.err == nil {
		_, b.err = b.s.ResolveDiscussionAt(b.ctx, mr.ID, demoSHA("discussion", p.PathWithNamespace, name), u.ID, true, when)
	}
}

// approve records u's approval of mr.
func (b *demoBuilder) approve(mr *models.MergeRequest, u *models.User, when time.Time) {
	if b.err == nil {
		_, b.err = b.s.ApproveMergeRequestAt(b.ctx, mr.ID, u.ID, when)
	}
}

// jobFile stores data as the file of fileType of the job named jobName of
// pipeline pl.
func (b *demoBuilder) jobFile(pl *models.Pipeline, jobName, fileType, format, fileName string, data []byte) {
	if b.err != nil {
		return
	}
	for _, j := range pl.Jobs {
		if j.Name == jobName {
			b.err = b.s.WriteJobArtifact(b.ctx, &models.JobArtifact{JobID: j.ID, FileType: fileType,
				FileFormat: format, FileName: fileName, CreatedAt: *pl.FinishedAt}, bytes.NewReader(data))
			return
		}
	}
	b.err = fmt.Errorf("demo: pipeline %d has no job %q", pl.ID, jobName)
}

// demoZip returns a zip archive of files (name → content), in name order.
func demoZip(files map[string]string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: n, Method: zip.Deflate, Modified: BaseTime})
		_, _ = w.Write([]byte(files[n]))
	}
	_ = zw.Close()
	return buf.Bytes()
}

// vulnerability records v in p.
func (b *demoBuilder) vulnerability(p *models.Project, v models.Vulnerability) {
	v.ProjectID = p.ID
	if b.err == nil {
		b.err = b.s.CreateVulnerability(b.ctx, &v)
	}
}
