package importexport

import (
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

// convertMergeRequests writes the merge requests with their notes and
// approvals.
func (c *converter) convertMergeRequests() error {
	return c.a.MergeRequests.each(c.ctx, func(p planned, x *exMergeRequest) { c.a.ck.fixMergeRequest(p, x) }, func(_ planned, rec *exMergeRequest) error {
		x := *rec
		author, err := c.um.user(c.ctx, x.AuthorID)
		if err != nil {
			return err
		}
		assignees, err := c.users(x.Assignees)
		if err != nil {
			return err
		}
		reviewers, err := c.users(x.Reviewers)
		if err != nil {
			return err
		}
		state := models.MergeRequestState(x.State)
		if x.State == "locked" {
			state = models.MergeRequestOpened
		}
		m := models.MergeRequest{IID: x.IID, Title: x.Title, Description: x.Description, State: state,
			SourceBranch: x.SourceBranch, TargetBranch: x.TargetBranch, AuthorID: author,
			Labels: c.labelTitles(x.LabelLinks), Draft: x.Draft, MergeStatus: x.MergeStatus, SHA: x.DiffHeadSHA,
			Squash: x.Squash, MergedAt: x.MergedAt, ClosedAt: x.ClosedAt,
			CreatedAt: orNow(x.CreatedAt), UpdatedAt: orNow(x.UpdatedAt), Assignees: assignees, Reviewers: reviewers}
		switch m.MergeStatus {
		case "", models.MergeStatusUnchecked, models.MergeStatusChecking, models.MergeStatusCanBeMerged, models.MergeStatusCannotBeMerged:
		default:
			m.MergeStatus = models.MergeStatusUnchecked
		}
		if x.Diff != nil {
			if m.SHA == "" {
				m.SHA = x.Diff.HeadCommitSHA
			}
			m.DiffBaseSHA = x.Diff.BaseCommitSHA
		}
		if x.MergeCommitSHA != nil {
			m.MergeCommitSHA = *x.MergeCommitSHA
		}
		if x.SquashCommitSHA != nil {
			m.SquashCommitSHA = *x.SquashCommitSHA
		}
		// A commit id that is none (GitLab wrote "HEAD" for some) is
		// unknown: kept empty, never shown as a commit.
		for _, sha := range []*string{&m.SHA, &m.DiffBaseSHA, &m.MergeCommitSHA, &m.SquashCommitSHA} {
			if *sha != "" && !isHexSHA(*sha) {
				c.sum.Skipped["merge_requests: commit ids that are none (such as HEAD), kept as unknown"]++
				*sha = ""
			}
		}
		if m.SHA == "" && x.Diff != nil {
			// Older exports name the head only as the diff's newest commit.
			m.SHA = newestCommit(x.Diff)
		}
		if x.DiscussionLocked != nil {
			m.DiscussionLocked = *x.DiscussionLocked
		}
		if x.AllowMaintainerToPush != nil {
			m.AllowCollaboration = *x.AllowMaintainerToPush
		}
		if force, ok := forceRemoveSourceBranch(&x); ok {
			m.ForceRemoveSourceBranch = force
		}
		if m.MergeUserID, err = c.um.ptr(c.ctx, x.MergeUserID); err != nil {
			return err
		}
		metricsTimes(x.Metrics, &m)
		if m.State == models.MergeRequestMerged && m.MergedAt == nil {
			t := m.UpdatedAt
			m.MergedAt = &t
		}
		if m.State == models.MergeRequestClosed && m.ClosedAt == nil {
			t := m.UpdatedAt
			m.ClosedAt = &t
		}
		c.r.MergeRequests = append(c.r.MergeRequests, store.RecordMergeRequest{MergeRequest: m, MilestoneTitle: c.milestoneTitle(x.Milestone),
			Diff: keptDiff(x.Diff, m.SHA)})
		c.sum.Imported[relMergeRequests]++
		if err := c.convertNotes(models.NoteableMergeRequest, x.IID, x.Notes, x.Diff); err != nil {
			return err
		}
		approved := map[int64]bool{}
		for _, ap := range x.Approvals {
			id, err := c.um.user(c.ctx, ap.UserID)
			if err != nil {
				return err
			}
			if approved[id] {
				continue
			}
			approved[id] = true
			at := m.UpdatedAt
			if ap.CreatedAt != nil {
				at = *ap.CreatedAt
			}
			c.r.Approvals = append(c.r.Approvals, store.RecordApproval{MergeRequestIID: x.IID, UserID: id, CreatedAt: at})
			c.sum.Imported["approvals"]++
		}
		c.sum.Skipped["award_emoji"] += countArray(x.AwardEmoji)
		c.sum.Skipped["resource_state_events"] += countArray(x.ResourceStateEvents)
		c.sum.Skipped["events"] += countArray(x.Events)
		c.sum.Skipped["timelogs"] += countArray(x.Timelogs)
		c.skippedRelations(x.exSkippedIssueRelations)
		return c.flushEvery(len(c.r.MergeRequests))
	})
}

// newestCommit is the head of diff d as its commits name it: the commit
// of relative order 0, or head_commit_sha ("" when neither is a SHA).
func newestCommit(d *exMergeRequestDiff) string {
	if isHexSHA(d.HeadCommitSHA) {
		return d.HeadCommitSHA
	}
	for _, k := range d.Commits {
		if k.RelativeOrder == 0 && isHexSHA(k.SHA) {
			return k.SHA
		}
	}
	return ""
}
