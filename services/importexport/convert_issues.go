package importexport

import (
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

// convertIssues writes the issues with their notes.
func (c *converter) convertIssues() error {
	return c.a.Issues.each(c.ctx, func(p planned, x *exIssue) { c.a.ck.fixIssue(p, x) }, func(_ planned, rec *exIssue) error {
		x := *rec
		author, err := c.um.user(c.ctx, x.AuthorID)
		if err != nil {
			return err
		}
		assignees, err := c.users(x.IssueAssignees)
		if err != nil {
			return err
		}
		i := models.Issue{IID: x.IID, Title: x.Title, Description: x.Description, State: models.IssueState(x.State),
			Labels: c.labelTitles(x.LabelLinks), Milestone: c.milestoneTitle(x.Milestone), Confidential: x.Confidential,
			AuthorID: author, CreatedAt: orNow(x.CreatedAt), UpdatedAt: orNow(x.UpdatedAt), ClosedAt: x.ClosedAt,
			DueDate: date(x.DueDate), StartDate: date(x.StartDate), Assignees: assignees, WorkItemTypeID: models.TypeIssue}
		// The type: work_item_type, or the issue_type of older exports.
		if typ := x.IssueType; x.WorkItemType != nil || typ != "" {
			if x.WorkItemType != nil {
				typ = x.WorkItemType.BaseType
			}
			if id, ok := workItemTypes[typ]; ok {
				i.WorkItemTypeID = id
			} else {
				c.sum.Skipped["issues: work item type "+truncate(typ, 40)+" unknown, imported as issues"]++
			}
		}
		if i.State == models.IssueClosed && i.ClosedAt == nil {
			t := i.UpdatedAt
			i.ClosedAt = &t
		}
		c.r.Issues = append(c.r.Issues, store.RecordIssue{Issue: i})
		c.sum.Imported[relIssues]++
		if err := c.convertNotes(models.NoteableIssue, x.IID, x.Notes, nil); err != nil {
			return err
		}
		c.sum.Skipped["award_emoji"] += countArray(x.AwardEmoji)
		c.sum.Skipped["resource_state_events"] += countArray(x.ResourceStateEvents)
		c.sum.Skipped["events"] += countArray(x.Events)
		c.sum.Skipped["timelogs"] += countArray(x.Timelogs)
		c.skippedRelations(x.exSkippedIssueRelations)
		return c.flushEvery(len(c.r.Issues))
	})
}
