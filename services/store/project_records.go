package store

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"gitlab.com/glmcp/glmcp/models"
)

// ProjectRecords are the rows of one project that a project export
// archive carries (services/importexport): written as they are by
// InsertProjectRecords, their numbers (iids) and times kept, and read back
// by LoadProjectRecords. Rows refer to each other by iid or title, never
// by database id: MilestoneTitle, NoteableIID, MergeRequestIID.
type ProjectRecords struct {
	Members       []models.ProjectMember
	Labels        []models.Label
	Milestones    []models.Milestone
	Issues        []RecordIssue
	MergeRequests []RecordMergeRequest
	Notes         []RecordNote
	Approvals     []RecordApproval
	Pipelines     []RecordPipeline
	Releases      []models.Release
	WikiPages     []models.WikiPage
	// ReleaseMilestones link releases to milestones (GitLab's
	// milestone_releases), by tag and title.
	ReleaseMilestones []RecordReleaseMilestone
	// SourceUsers are the source identities of the placeholder users the
	// records name (GitLab's import_source_users).
	SourceUsers []models.ImportSourceUser
}

// RecordReleaseMilestone links the release Tag to the milestone
// MilestoneTitle.
type RecordReleaseMilestone struct {
	Tag            string
	MilestoneTitle string
}

// RecordIssue is an issue (Assignees by ID; Milestone is its title).
type RecordIssue struct{ models.Issue }

// RecordMergeRequest is a merge request (Assignees and Reviewers by ID),
// the title of its milestone ("" none) and the diff kept for it when the
// repository lacks its commits (nil none; see SaveMergeRequestDiff).
type RecordMergeRequest struct {
	models.MergeRequest
	MilestoneTitle string
	Diff           *models.MergeRequestDiff
}

// RecordNote is a note on the issue or merge request NoteableIID.
type RecordNote struct {
	models.Note
	NoteableIID int64
}

// RecordApproval is a user's approval of merge request MergeRequestIID.
type RecordApproval struct {
	MergeRequestIID int64
	UserID          int64
	CreatedAt       time.Time
}

// RecordPipeline is a pipeline with its Jobs, and the merge request it ran
// for (MergeRequestIID, 0 none).
type RecordPipeline struct {
	models.Pipeline
	MergeRequestIID int64
}

// recordBatch is how many rows one INSERT writes.
const recordBatch = 200

// InsertProjectRecords writes r into project projectID, which must have
// none of these rows yet: iids, states and times as given, milestones and
// noteables found by title and iid among r's own rows (one that is not
// there is models.ErrInvalidInput), the project's iid counters moved past
// the highest imported number. Call it in the transaction that creates the
// project: on an error nothing of r should stay.
func (s *Imports) InsertProjectRecords(ctx context.Context, projectID int64, r *ProjectRecords) error {
	w := s.NewRecordWriter(projectID)
	if err := w.Write(ctx, r); err != nil {
		return err
	}
	return w.Finish(ctx)
}

// RecordWriter writes a project's records in parts (an import streams
// its archive: a part of issues with their notes, then the next), each
// part finding the milestones, issues and merge requests of the parts
// written before it. Finish moves the iid counters past the highest
// number written. Use it inside one transaction.
type RecordWriter struct {
	s         *Imports
	projectID int64

	milestones                         map[string]int64 // title → id
	issueIDs, mrIDs                    map[int64]int64  // iid → id
	maxIssue, maxMR, maxPipeline, maxM int64
}

// NewRecordWriter starts writing the records of project projectID, which
// must have none yet.
func (s *Imports) NewRecordWriter(projectID int64) *RecordWriter {
	return &RecordWriter{s: s, projectID: projectID, milestones: map[string]int64{},
		issueIDs: map[int64]int64{}, mrIDs: map[int64]int64{}}
}

// Write writes the part r: its members, labels and milestones first, then
// issues, merge requests (with their diffs), notes, approvals, pipelines
// with jobs, releases and wiki pages. A note, an approval or a pipeline
// may name an issue or merge request of r or of an earlier part.
func (w *RecordWriter) Write(ctx context.Context, r *ProjectRecords) error {
	s, projectID := w.s, w.projectID
	// A fresh statement for every insert: a gorm chain keeps its
	// statement's model from one call to the next.
	ins := func() *gorm.DB { return s.conn(ctx).Omit(clause.Associations) }
	fail := func(what string, err error) error {
		return fmt.Errorf("import %s into project %d: %w", what, projectID, translate(err))
	}
	for k := range r.Members {
		r.Members[k].ID, r.Members[k].ProjectID = 0, projectID
	}
	if len(r.Members) > 0 {
		if err := ins().CreateInBatches(r.Members, recordBatch).Error; err != nil {
			return fail("members", err)
		}
	}
	for k := range r.Labels {
		r.Labels[k].ID, r.Labels[k].ProjectID = 0, projectID
	}
	if len(r.Labels) > 0 {
		if err := ins().CreateInBatches(r.Labels, recordBatch).Error; err != nil {
			return fail("labels", err)
		}
	}
	milestones := w.milestones
	for k := range r.Milestones {
		m := &r.Milestones[k]
		m.ID, m.ProjectID = 0, projectID
		w.maxM = max(w.maxM, m.IID)
	}
	if len(r.Milestones) > 0 {
		if err := ins().CreateInBatches(r.Milestones, recordBatch).Error; err != nil {
			return fail("milestones", err)
		}
	}
	for _, m := range r.Milestones {
		milestones[m.Title] = m.ID
	}
	milestoneID := func(title string) (*int64, error) {
		if title == "" {
			return nil, nil
		}
		id, ok := milestones[title]
		if !ok {
			return nil, fmt.Errorf("milestone %q is not among the project's milestones: %w", title, models.ErrInvalidInput)
		}
		return &id, nil
	}

	issues := make([]models.Issue, len(r.Issues))
	issueIDs := w.issueIDs
	for k := range r.Issues {
		i := r.Issues[k].Issue
		i.ID, i.ProjectID = 0, projectID
		id, err := milestoneID(i.Milestone)
		if err != nil {
			return fail(fmt.Sprintf("issue #%d", i.IID), err)
		}
		i.MilestoneID = id
		if i.Labels == nil {
			i.Labels = models.StringList{}
		}
		if i.WorkItemTypeID == 0 {
			i.WorkItemTypeID = models.TypeIssue
		}
		issues[k] = i
		w.maxIssue = max(w.maxIssue, i.IID)
	}
	if len(issues) > 0 {
		if err := ins().CreateInBatches(issues, recordBatch).Error; err != nil {
			return fail("issues", err)
		}
	}
	var assignees []map[string]any
	for _, i := range issues {
		issueIDs[i.IID] = i.ID
		assignees = appendLinks(assignees, "issue_id", i.ID, i.AssigneeIDs())
	}
	if err := insertLinks(ins, "issue_assignees", assignees); err != nil {
		return fail("issue assignees", err)
	}

	mrs := make([]models.MergeRequest, len(r.MergeRequests))
	mrIDs := w.mrIDs
	for k := range r.MergeRequests {
		m := r.MergeRequests[k].MergeRequest
		m.ID, m.ProjectID, m.Imported = 0, projectID, true
		id, err := milestoneID(r.MergeRequests[k].MilestoneTitle)
		if err != nil {
			return fail(fmt.Sprintf("merge request !%d", m.IID), err)
		}
		m.MilestoneID = id
		if m.Labels == nil {
			m.Labels = models.StringList{}
		}
		if m.MergeStatus == "" {
			m.MergeStatus = models.MergeStatusUnchecked
		}
		mrs[k] = m
		w.maxMR = max(w.maxMR, m.IID)
	}
	if len(mrs) > 0 {
		if err := ins().CreateInBatches(mrs, recordBatch).Error; err != nil {
			return fail("merge requests", err)
		}
	}
	var mrAssignees, mrReviewers []map[string]any
	for _, m := range mrs {
		mrIDs[m.IID] = m.ID
		mrAssignees = appendLinks(mrAssignees, "merge_request_id", m.ID, m.AssigneeIDs())
		mrReviewers = appendLinks(mrReviewers, "merge_request_id", m.ID, m.ReviewerIDs())
	}
	if err := insertLinks(ins, "merge_request_assignees", mrAssignees); err != nil {
		return fail("merge request assignees", err)
	}
	if err := insertLinks(ins, "merge_request_reviewers", mrReviewers); err != nil {
		return fail("merge request reviewers", err)
	}
	for k := range r.MergeRequests {
		if d := r.MergeRequests[k].Diff; d != nil {
			if err := s.st.MergeRequests.SaveMergeRequestDiff(ctx, mrs[k].ID, d); err != nil {
				return fail(fmt.Sprintf("the diff of merge request !%d", mrs[k].IID), err)
			}
		}
	}

	notes := make([]models.Note, len(r.Notes))
	for k := range r.Notes {
		n := r.Notes[k].Note
		n.ID, n.ProjectID = 0, projectID
		var ok bool
		switch n.NoteableType {
		case models.NoteableIssue:
			n.NoteableID, ok = issueIDs[r.Notes[k].NoteableIID]
		case models.NoteableMergeRequest:
			n.NoteableID, ok = mrIDs[r.Notes[k].NoteableIID]
		}
		if !ok {
			return fail("notes", fmt.Errorf("a note on %s %d, which is not imported: %w", n.NoteableType, r.Notes[k].NoteableIID, models.ErrInvalidInput))
		}
		if n.Type != models.NoteTypeDiff {
			n.Position = nil
		}
		notes[k] = n
	}
	if len(notes) > 0 {
		if err := ins().CreateInBatches(notes, recordBatch).Error; err != nil {
			return fail("notes", err)
		}
	}

	approvals := make([]models.Approval, 0, len(r.Approvals))
	for _, a := range r.Approvals {
		id, ok := mrIDs[a.MergeRequestIID]
		if !ok {
			return fail("approvals", fmt.Errorf("an approval of merge request !%d, which is not imported: %w", a.MergeRequestIID, models.ErrInvalidInput))
		}
		approvals = append(approvals, models.Approval{MergeRequestID: id, UserID: a.UserID, CreatedAt: a.CreatedAt})
	}
	if len(approvals) > 0 {
		if err := ins().CreateInBatches(approvals, recordBatch).Error; err != nil {
			return fail("approvals", err)
		}
	}

	pipelines := make([]models.Pipeline, len(r.Pipelines))
	for k := range r.Pipelines {
		p := r.Pipelines[k].Pipeline
		p.ID, p.ProjectID, p.MergeRequestID, p.UpstreamPipelineID, p.SourceJobID = 0, projectID, nil, nil, nil
		if iid := r.Pipelines[k].MergeRequestIID; iid != 0 {
			id, ok := mrIDs[iid]
			if !ok {
				return fail(fmt.Sprintf("pipeline #%d", p.IID), fmt.Errorf("merge request !%d is not imported: %w", iid, models.ErrInvalidInput))
			}
			p.MergeRequestID = &id
		}
		p.Jobs, p.Variables = nil, nil
		pipelines[k] = p
		w.maxPipeline = max(w.maxPipeline, p.IID)
	}
	if len(pipelines) > 0 {
		if err := ins().CreateInBatches(pipelines, recordBatch).Error; err != nil {
			return fail("pipelines", err)
		}
	}
	var jobs []models.CIJob
	for k := range r.Pipelines {
		for _, j := range r.Pipelines[k].Jobs {
			j.ID, j.PipelineID, j.ProjectID = 0, pipelines[k].ID, projectID
			if j.Type == "" {
				j.Type = models.JobTypeBuild
			}
			jobs = append(jobs, j)
		}
	}
	if len(jobs) > 0 {
		if err := ins().CreateInBatches(jobs, recordBatch).Error; err != nil {
			return fail("jobs", err)
		}
	}

	for k := range r.Releases {
		rel := r.Releases[k]
		rel.ID, rel.ProjectID = 0, projectID
		links := rel.Links
		rel.Links = nil
		if err := ins().Create(&rel).Error; err != nil {
			return fail(fmt.Sprintf("release %s", rel.Tag), err)
		}
		for j := range links {
			links[j].ID, links[j].ReleaseID = 0, rel.ID
			if links[j].LinkType == "" {
				links[j].LinkType = "other"
			}
		}
		if len(links) > 0 {
			if err := ins().Create(&links).Error; err != nil {
				return fail(fmt.Sprintf("links of release %s", rel.Tag), err)
			}
		}
	}

	if err := s.insertReleaseMilestones(ctx, projectID, r, milestones); err != nil {
		return fail("release milestones", err)
	}
	for k := range r.SourceUsers {
		u := &r.SourceUsers[k]
		u.ID, u.ProjectID = 0, projectID
		if u.Status == "" {
			u.Status = models.SourceUserPending
		}
	}
	if len(r.SourceUsers) > 0 {
		if err := ins().CreateInBatches(r.SourceUsers, recordBatch).Error; err != nil {
			return fail("source users", err)
		}
	}

	for k := range r.WikiPages {
		r.WikiPages[k].ID, r.WikiPages[k].ProjectID = 0, projectID
		if r.WikiPages[k].Format == "" {
			r.WikiPages[k].Format = "markdown"
		}
	}
	if len(r.WikiPages) > 0 {
		if err := ins().CreateInBatches(r.WikiPages, recordBatch).Error; err != nil {
			return fail("wiki pages", err)
		}
	}

	return nil
}

// Finish moves the project's iid counters past the highest numbers
// written.
func (w *RecordWriter) Finish(ctx context.Context) error {
	for usage, last := range map[string]int64{usageIssues: w.maxIssue, usageMergeRequests: w.maxMR,
		usagePipelines: w.maxPipeline, usageMilestones: w.maxM} {
		if last == 0 {
			continue
		}
		err := w.s.conn(ctx).Exec(`INSERT INTO internal_ids (project_id, usage, last_value) VALUES (?, ?, ?)
ON CONFLICT (project_id, usage) DO UPDATE SET last_value = CASE WHEN internal_ids.last_value > excluded.last_value
THEN internal_ids.last_value ELSE excluded.last_value END`, w.projectID, usage, last).Error
		if err != nil {
			return fmt.Errorf("import iid counters into project %d: %w", w.projectID, translate(err))
		}
	}
	w.s.changedViews(projectViews(w.projectID))
	return nil
}

// insertReleaseMilestones writes r's release milestone links; the releases
// are found by tag in the project, the milestones by title among r's
// (milestones: title → id).
func (s *Imports) insertReleaseMilestones(ctx context.Context, projectID int64, r *ProjectRecords, milestones map[string]int64) error {
	if len(r.ReleaseMilestones) == 0 {
		return nil
	}
	releases := map[string]int64{}
	for _, rel := range r.Releases {
		releases[rel.Tag] = 0
	}
	var rows []struct {
		ID  int64
		Tag string
	}
	if err := s.conn(ctx).Table("releases").Select("id, tag").Where("project_id = ?", projectID).Find(&rows).Error; err != nil {
		return translate(err)
	}
	for _, row := range rows {
		releases[row.Tag] = row.ID
	}
	var links []map[string]any
	seen := map[[2]int64]bool{}
	for _, l := range r.ReleaseMilestones {
		rid, mid := releases[l.Tag], milestones[l.MilestoneTitle]
		if rid == 0 || mid == 0 {
			return fmt.Errorf("release %q and milestone %q must both be among the project's: %w", l.Tag, l.MilestoneTitle, models.ErrInvalidInput)
		}
		if key := [2]int64{rid, mid}; !seen[key] {
			seen[key] = true
			links = append(links, map[string]any{"release_id": rid, "milestone_id": mid})
		}
	}
	return translate(s.conn(ctx).Table("release_milestones").CreateInBatches(links, recordBatch).Error)
}

// appendLinks adds the rows linking owner (in column) to each user once.
func appendLinks(rows []map[string]any, column string, owner int64, users []int64) []map[string]any {
	seen := map[int64]bool{}
	for _, u := range users {
		if !seen[u] {
			seen[u] = true
			rows = append(rows, map[string]any{column: owner, "user_id": u})
		}
	}
	return rows
}

// insertLinks writes link rows into table, recordBatch a statement.
func insertLinks(ins func() *gorm.DB, table string, rows []map[string]any) error {
	if len(rows) == 0 {
		return nil
	}
	return ins().Table(table).CreateInBatches(rows, recordBatch).Error
}
