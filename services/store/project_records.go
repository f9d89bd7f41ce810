package store

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
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
func (s *Store) InsertProjectRecords(ctx context.Context, projectID int64, r *ProjectRecords) error {
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
	milestones := map[string]int64{}
	var maxMilestone int64
	for k := range r.Milestones {
		m := &r.Milestones[k]
		m.ID, m.ProjectID = 0, projectID
		maxMilestone = max(maxMilestone, m.IID)
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
	issueIDs := map[int64]int64{}
	var maxIssue int64
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
		maxIssue = max(maxIssue, i.IID)
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
	mrIDs := map[int64]int64{}
	var maxMR int64
	for k := range r.MergeRequests {
		m := r.MergeRequests[k].MergeRequest
		m.ID, m.ProjectID = 0, projectID
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
		maxMR = max(maxMR, m.IID)
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
			if err := s.SaveMergeRequestDiff(ctx, mrs[k].ID, d); err != nil {
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

	var maxPipeline int64
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
		maxPipeline = max(maxPipeline, p.IID)
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

	for usage, last := range map[string]int64{usageIssues: maxIssue, usageMergeRequests: maxMR,
		usagePipelines: maxPipeline, usageMilestones: maxMilestone} {
		if last == 0 {
			continue
		}
		err := s.conn(ctx).Exec(`INSERT INTO internal_ids (project_id, usage, last_value) VALUES (?, ?, ?)
ON CONFLICT (project_id, usage) DO UPDATE SET last_value = CASE WHEN internal_ids.last_value > excluded.last_value
THEN internal_ids.last_value ELSE excluded.last_value END`, projectID, usage, last).Error
		if err != nil {
			return fail("iid counters", err)
		}
	}
	return nil
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

// LoadProjectRecords reads back every row of project projectID that
// ProjectRecords carries, each relation in iid (or id) order, and the
// users they name (by id).
func (s *Store) LoadProjectRecords(ctx context.Context, projectID int64) (*ProjectRecords, map[int64]models.User, error) {
	db := s.conn(ctx)
	fail := func(what string, err error) (*ProjectRecords, map[int64]models.User, error) {
		return nil, nil, fmt.Errorf("read the %s of project %d: %w", what, projectID, translate(err))
	}
	r := &ProjectRecords{}
	// Members: direct ones and those of the groups above, at their
	// highest role, as GitLab's export lists them.
	var direct []models.ProjectMember
	if err := db.Where("project_id = ?", projectID).Find(&direct).Error; err != nil {
		return fail("members", err)
	}
	since := map[int64]models.ProjectMember{}
	for _, m := range direct {
		since[m.UserID] = m
	}
	all, err := s.ListProjectMembers(ctx, projectID, true, "", 0, 1<<30)
	if err != nil {
		return nil, nil, err
	}
	for _, m := range all {
		row := models.ProjectMember{ProjectID: projectID, UserID: m.User.ID, AccessLevel: m.AccessLevel}
		if d, ok := since[m.User.ID]; ok {
			row.CreatedAt, row.UpdatedAt = d.CreatedAt, d.UpdatedAt
		}
		r.Members = append(r.Members, row)
	}
	if err := db.Where("project_id = ?", projectID).Order("id").Find(&r.Labels).Error; err != nil {
		return fail("labels", err)
	}
	if err := db.Where("project_id = ?", projectID).Order("iid").Find(&r.Milestones).Error; err != nil {
		return fail("milestones", err)
	}
	milestoneTitle := map[int64]string{}
	for _, m := range r.Milestones {
		milestoneTitle[m.ID] = m.Title
	}
	var issues []models.Issue
	if err := db.Preload("Assignees").Where("project_id = ?", projectID).Order("iid").Find(&issues).Error; err != nil {
		return fail("issues", err)
	}
	issueIID := map[int64]int64{}
	for _, i := range issues {
		sortUsers(i.Assignees)
		if i.MilestoneID != nil {
			i.Milestone = milestoneTitle[*i.MilestoneID]
		}
		issueIID[i.ID] = i.IID
		r.Issues = append(r.Issues, RecordIssue{Issue: i})
	}
	var mrs []models.MergeRequest
	if err := db.Preload("Assignees").Preload("Reviewers").Where("project_id = ?", projectID).Order("iid").Find(&mrs).Error; err != nil {
		return fail("merge requests", err)
	}
	mrIID := map[int64]int64{}
	var mrIDs []int64
	for _, m := range mrs {
		sortUsers(m.Assignees)
		sortUsers(m.Reviewers)
		rm := RecordMergeRequest{MergeRequest: m}
		if m.MilestoneID != nil {
			rm.MilestoneTitle = milestoneTitle[*m.MilestoneID]
		}
		mrIID[m.ID] = m.IID
		mrIDs = append(mrIDs, m.ID)
		r.MergeRequests = append(r.MergeRequests, rm)
	}
	if len(mrIDs) > 0 {
		var diffs []mergeRequestDiffRow
		if err := db.Where("merge_request_id IN ?", mrIDs).Find(&diffs).Error; err != nil {
			return fail("merge request diffs", err)
		}
		kept := map[int64]*models.MergeRequestDiff{}
		for _, row := range diffs {
			var d models.MergeRequestDiff
			if err := json.Unmarshal(row.Diff, &d); err != nil {
				return fail("merge request diffs", err)
			}
			kept[row.MergeRequestID] = &d
		}
		for k := range r.MergeRequests {
			r.MergeRequests[k].Diff = kept[r.MergeRequests[k].ID]
		}
	}
	var notes []models.Note
	if err := db.Where("project_id = ?", projectID).Order("created_at, id").Find(&notes).Error; err != nil {
		return fail("notes", err)
	}
	for _, n := range notes {
		iid := issueIID[n.NoteableID]
		if n.NoteableType == models.NoteableMergeRequest {
			iid = mrIID[n.NoteableID]
		}
		if iid == 0 {
			continue
		}
		r.Notes = append(r.Notes, RecordNote{Note: n, NoteableIID: iid})
	}
	if len(mrIDs) > 0 {
		var approvals []models.Approval
		if err := db.Where("merge_request_id IN ?", mrIDs).Order("id").Find(&approvals).Error; err != nil {
			return fail("approvals", err)
		}
		for _, a := range approvals {
			r.Approvals = append(r.Approvals, RecordApproval{MergeRequestIID: mrIID[a.MergeRequestID], UserID: a.UserID, CreatedAt: a.CreatedAt})
		}
	}
	var pipelines []models.Pipeline
	if err := db.Preload("Jobs", func(q *gorm.DB) *gorm.DB { return q.Order("id") }).Where("project_id = ?", projectID).Order("iid").Find(&pipelines).Error; err != nil {
		return fail("pipelines", err)
	}
	for _, p := range pipelines {
		rp := RecordPipeline{Pipeline: p}
		if p.MergeRequestID != nil {
			rp.MergeRequestIID = mrIID[*p.MergeRequestID]
		}
		r.Pipelines = append(r.Pipelines, rp)
	}
	if err := db.Preload("Links", func(q *gorm.DB) *gorm.DB { return q.Order("id") }).Where("project_id = ?", projectID).Order("released_at, id").Find(&r.Releases).Error; err != nil {
		return fail("releases", err)
	}

	if err := db.Where("project_id = ?", projectID).Order("slug").Find(&r.WikiPages).Error; err != nil {
		return fail("wiki pages", err)
	}

	ids := map[int64]bool{}
	add := func(id *int64) {
		if id != nil && *id > 0 {
			ids[*id] = true
		}
	}
	for k := range r.Members {
		add(&r.Members[k].UserID)
	}
	for k := range r.Issues {
		add(&r.Issues[k].AuthorID)
		for j := range r.Issues[k].Assignees {
			add(&r.Issues[k].Assignees[j].ID)
		}
	}
	for k := range r.MergeRequests {
		m := &r.MergeRequests[k]
		add(&m.AuthorID)
		add(m.MergeUserID)
		for j := range m.Assignees {
			add(&m.Assignees[j].ID)
		}
		for j := range m.Reviewers {
			add(&m.Reviewers[j].ID)
		}
	}
	for k := range r.Notes {
		add(&r.Notes[k].AuthorID)
		add(r.Notes[k].ResolvedByID)
	}
	for k := range r.Approvals {
		add(&r.Approvals[k].UserID)
	}
	for k := range r.Pipelines {
		add(r.Pipelines[k].UserID)
		for j := range r.Pipelines[k].Jobs {
			add(r.Pipelines[k].Jobs[j].UserID)
		}
	}
	for k := range r.Releases {
		add(r.Releases[k].AuthorID)
	}
	users := map[int64]models.User{}
	if len(ids) > 0 {
		list := make([]int64, 0, len(ids))
		for id := range ids {
			list = append(list, id)
		}
		var found []models.User
		if err := db.Where("id IN ?", list).Find(&found).Error; err != nil {
			return fail("users", err)
		}
		for _, u := range found {
			users[u.ID] = u
		}
	}
	return r, users, nil
}

func sortUsers(us []models.User) {
	sort.Slice(us, func(i, j int) bool { return us[i].ID < us[j].ID })
}
