package importexport

import (
	"sort"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

// convertPipelines writes the pipelines with their jobs.
func (c *converter) convertPipelines() error {
	return c.a.Pipelines.each(c.ctx, func(p planned, x *exPipeline) { c.a.ck.fixPipeline(p, x) }, func(_ planned, rec *exPipeline) error {
		x := *rec
		uid, err := c.um.ptr(c.ctx, x.UserID)
		if err != nil {
			return err
		}
		source := x.Source
		if source == "" {
			source = models.PipelineSourcePush
		}
		name := ""
		if x.Metadata != nil {
			name = x.Metadata.Name
		}
		p := models.Pipeline{IID: x.IID, SHA: x.SHA, Ref: x.Ref, Status: c.finished("ci_pipelines", x.Status), Source: source, UserID: uid, Name: name,
			Tag: x.Tag, CreatedAt: orNow(x.CreatedAt), UpdatedAt: orNow(x.UpdatedAt), StartedAt: x.StartedAt, FinishedAt: x.FinishedAt}
		stages := append([]exStage(nil), x.Stages...)
		sort.SliceStable(stages, func(i, j int) bool { return stages[i].Position < stages[j].Position })
		for _, s := range stages {
			for _, j := range s.jobs() {
				juid, err := c.um.ptr(c.ctx, j.UserID)
				if err != nil {
					return err
				}
				job := models.CIJob{Name: j.Name, Stage: j.Stage, Status: c.finished("jobs", j.Status), Ref: j.Ref, AllowFailure: j.AllowFailure,
					CreatedAt: orNow(j.CreatedAt), StartedAt: j.StartedAt, FinishedAt: j.FinishedAt, Type: j.Type, UserID: juid}
				if job.Stage == "" {
					job.Stage = s.Name
				}
				if job.Ref == "" {
					job.Ref = x.Ref
				}
				if job.Type != models.JobTypeBridge {
					job.Type = models.JobTypeBuild
				}
				if j.FailureReason != nil {
					job.FailureReason = *j.FailureReason
				}
				if j.Retried != nil {
					job.Retried = *j.Retried
				}
				if j.StartedAt != nil && j.FinishedAt != nil {
					d := j.FinishedAt.Sub(*j.StartedAt).Seconds()
					job.Duration = &d
				}
				p.Jobs = append(p.Jobs, job)
				c.sum.Imported["jobs"]++
			}
		}
		rp := store.RecordPipeline{Pipeline: p}
		if x.MergeRequest != nil {
			rp.MergeRequestIID = x.MergeRequest.IID
		}
		c.r.Pipelines = append(c.r.Pipelines, rp)
		c.sum.Skipped["external_pull_request"] += countRecords(x.ExternalPullRequest)
		c.sum.Imported[relPipelines]++
		return c.flushEvery(len(c.r.Pipelines))
	})
}

// finished is the status an imported pipeline or job keeps: one that had
// not finished in the archive (created, pending, running, manual, …) can
// never finish here, and is canceled, as GitLab's importer cancels it.
func (c *converter) finished(rel string, s statusValue) string {
	switch s {
	case "success", "failed", "canceled", "skipped":
		return string(s)
	}
	c.sum.Imported[rel+" (unfinished in the archive: canceled)"]++
	return "canceled"
}
