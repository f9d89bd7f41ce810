package store

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"gorm.io/gorm"

	"gitlab.com/glmcp/glmcp/models"
)

// LoadProjectRecords reads back every row of project projectID that
// ProjectRecords carries, each relation in iid (or id) order, and the
// users they name (by id).
func (s *Imports) LoadProjectRecords(ctx context.Context, projectID int64) (*ProjectRecords, map[int64]models.User, error) {
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
	all, err := s.st.Groups.ListProjectMembers(ctx, projectID, true, "", 0, 1<<30)
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
	var links []struct {
		Tag   string
		Title string
	}
	if err := db.Table("release_milestones AS rm").Select("r.tag AS tag, m.title AS title").
		Joins("JOIN releases r ON r.id = rm.release_id").Joins("JOIN milestones m ON m.id = rm.milestone_id").
		Where("r.project_id = ?", projectID).Order("r.tag, m.iid").Find(&links).Error; err != nil {
		return fail("release milestones", err)
	}
	for _, l := range links {
		r.ReleaseMilestones = append(r.ReleaseMilestones, RecordReleaseMilestone{Tag: l.Tag, MilestoneTitle: l.Title})
	}
	if err := db.Where("project_id = ?", projectID).Order("id").Find(&r.SourceUsers).Error; err != nil {
		return fail("source users", err)
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
	for k := range r.SourceUsers {
		add(r.SourceUsers[k].PlaceholderUserID)
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
