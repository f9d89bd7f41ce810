package gitlab

import (
	"context"
	"slices"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// Approvals: save_merge_request_review's approve and unapprove.

func (r mrReview) approvalResult(c *reviewCall, status string) (*tools.Result, error) {
	iid := itoa(int(c.mr.IID))
	return jsonResult(obj{"method": c.args.Method, "status": status,
		"merge_request_url": r.links.projectURL(c.pa.project) + "/-/merge_requests/" + iid, "diff_head_sha": c.mr.SHA})
}

func (r mrReview) approve(ctx context.Context, st reviewWriteStore, c *reviewCall) (*tools.Result, error) {
	if !access.CanApproveMergeRequest(c.u, c.pa.project, c.pa.level) {
		return nil, forbiddenf("You are not allowed to approve this merge request.")
	}
	as, err := st.MergeRequestApprovals(ctx, c.mr.ID)
	if err != nil {
		return nil, err
	}
	// Idempotency before the sha guard, as GitLab: a retry with a stale sha
	// reports the standing approval.
	if slices.ContainsFunc(as, func(a models.Approval) bool { return a.UserID == c.u.ID }) {
		return r.approvalResult(c, "already_approved")
	}
	if c.mr.State == models.MergeRequestMerged {
		return nil, invalidf("Cannot approve: the merge request is already merged.")
	}
	if c.args.SHA != "" && c.args.SHA != c.mr.SHA {
		return nil, invalidf("SHA does not match HEAD of source branch: %s", c.mr.SHA)
	}
	created, err := st.ApproveMergeRequest(ctx, c.mr.ID, c.u.ID)
	if err != nil {
		return nil, err
	}
	if !created {
		return r.approvalResult(c, "already_approved")
	}
	return r.approvalResult(c, "approved")
}

func (r mrReview) unapprove(ctx context.Context, st reviewWriteStore, c *reviewCall) (*tools.Result, error) {
	if !access.CanApproveMergeRequest(c.u, c.pa.project, c.pa.level) {
		return nil, forbiddenf("You are not allowed to unapprove this merge request.")
	}
	if c.mr.State == models.MergeRequestMerged {
		return nil, invalidf("Cannot unapprove: the merge request is already merged.")
	}
	removed, err := st.UnapproveMergeRequest(ctx, c.mr.ID, c.u.ID)
	if err != nil {
		return nil, err
	}
	if !removed {
		return r.approvalResult(c, "not_approved")
	}
	return r.approvalResult(c, "unapproved")
}
