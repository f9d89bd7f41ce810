package demo

import (
	"archive/zip"
	"bytes"
	"fmt"
	"sort"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
)

// demoMR describes a demo merge request. Its head and merge base are read
// from the project's repository (what the source branch adds to the
// target branch, or, for a merged one, what it added when it was merged),
// and so are its commits and diffs when a tool reads them.
type demoMR struct {
	mr        models.MergeRequest
	assignees []*models.User
	reviewers []*models.User
}

// mergeRequest creates d's merge request and returns it with the merge
// base its diff starts from.
func (b *demoBuilder) mergeRequest(p *models.Project, d demoMR) (*models.MergeRequest, string) {
	mr := d.mr
	mr.ProjectID = p.ID
	for _, u := range d.assignees {
		mr.Assignees = append(mr.Assignees, models.User{ID: u.ID})
	}
	for _, u := range d.reviewers {
		mr.Reviewers = append(mr.Reviewers, models.User{ID: u.ID})
	}
	if mr.UpdatedAt.IsZero() {
		mr.UpdatedAt = mr.CreatedAt
	}
	if b.err != nil {
		return &mr, ""
	}
	cmp, err := b.compare(p, mr.SourceBranch, mr.TargetBranch)
	if err != nil {
		b.err = fmt.Errorf("demo merge request %q: %w", mr.Title, err)
		return &mr, ""
	}
	mr.SHA, mr.DiffBaseSHA = cmp.HeadSHA, cmp.MergeBaseSHA
	if m := b.hist[p.ID].merges[mr.SourceBranch]; m != nil && mr.State == models.MergeRequestMerged {
		mr.MergeCommitSHA, mr.MergeUserID = m.CommitID, &b.w.Root.ID
	}
	b.err = b.s.MergeRequests.CreateMergeRequest(b.ctx, &mr)
	return &mr, cmp.MergeBaseSHA
}

// compare returns what branch source adds to target in p's repository; a
// source already merged is compared with the merge base it had then.
func (b *demoBuilder) compare(p *models.Project, source, target string) (*repository.Comparison, error) {
	h := b.hist[p.ID]
	head, ok := h.heads[source]
	if !ok {
		return nil, fmt.Errorf("the history of %s has no branch %q", p.PathWithNamespace, source)
	}
	base := target
	if m := h.merges[source]; m != nil {
		base = m.MergeBase
	}
	repo, err := b.repos.Repository(b.ctx, p.ID)
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	return repo.Compare(b.ctx, base, head, repository.CompareOptions{SkipDiffs: true})
}

// mergeCommit returns the commit that merged branch source in p's history.
// After an earlier error p may have no history: like every step, it then
// does nothing.
func (b *demoBuilder) mergeCommit(p *models.Project, source string) string {
	if b.err != nil {
		return ""
	}
	if m := b.hist[p.ID].merges[source]; m != nil {
		return m.CommitID
	}
	b.err = fmt.Errorf("the history of %s never merges %q", p.PathWithNamespace, source)
	return ""
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
		b.err = b.s.CI.CreatePipeline(b.ctx, &pl)
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
		_, b.err = b.s.MergeRequests.ResolveDiscussionAt(b.ctx, mr.ID, demoSHA("discussion", p.PathWithNamespace, name), u.ID, true, when)
	}
}

// approve records u's approval of mr.
func (b *demoBuilder) approve(mr *models.MergeRequest, u *models.User, when time.Time) {
	if b.err == nil {
		_, b.err = b.s.MergeRequests.ApproveMergeRequestAt(b.ctx, mr.ID, u.ID, when)
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
			b.err = b.s.CI.WriteJobArtifact(b.ctx, &models.JobArtifact{JobID: j.ID, FileType: fileType,
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
		b.err = b.s.Vulnerabilities.CreateVulnerability(b.ctx, &v)
	}
}
