package gitlab

import (
	"context"
	"errors"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// save_merge_request_review's writes, one method per review method: its
// notes and discussions here, diff notes and submit_review in
// merge_request_diff_notes.go, approvals in merge_request_approvals.go.

type reviewComment struct {
	File       string `json:"file"`
	OldLine    intArg `json:"old_line"`
	NewLine    intArg `json:"new_line"`
	Body       string `json:"body"`
	Suggestion string `json:"suggestion"`
}

type reviewArgs struct {
	mrRefArgs
	Method          string          `json:"method"`
	Body            string          `json:"body"`
	DiscussionID    string          `json:"discussion_id"`
	Internal        bool            `json:"internal"`
	Resolved        *bool           `json:"resolved"`
	OldPath         string          `json:"old_path"`
	NewPath         string          `json:"new_path"`
	OldLine         intArg          `json:"old_line"`
	NewLine         intArg          `json:"new_line"`
	Comments        []reviewComment `json:"comments"`
	Verdict         string          `json:"verdict"`
	Summary         string          `json:"summary"`
	SummaryInternal bool            `json:"summary_internal"`
	SHA             string          `json:"sha"`
}

// reviewCall is one save_merge_request_review call, resolved.
type reviewCall struct {
	u    *models.User
	pa   *projectAccess
	mr   *models.MergeRequest
	args reviewArgs
}

// mrReview writes merge request reviews: the links its answers carry, and
// git for the diff notes' positions.
type mrReview struct {
	links links
	git   mrGit
}

// reviewWriteStore is what a review reads and writes, in the call's
// transaction.
type reviewWriteStore struct {
	reviewMRs
	reviewNotes
	projectRolesStore // lockdown of the thread resolve_discussion echoes
}

// reviewMRs is what save_merge_request_review reads and writes of
// MergeRequests.
type reviewMRs interface {
	mrLoader
	ResolveDiscussion(ctx context.Context, mrID int64, id string, userID int64, resolved bool) ([]models.Note, error)
	MergeRequestApprovals(ctx context.Context, mrID int64) ([]models.Approval, error)
	ApproveMergeRequest(ctx context.Context, mrID, userID int64) (bool, error)
	UnapproveMergeRequest(ctx context.Context, mrID, userID int64) (bool, error)
}

// reviewNotes is what save_merge_request_review reads and writes of Notes.
type reviewNotes interface {
	CreateNote(ctx context.Context, n *models.Note) error
	LoadNote(ctx context.Context, id int64) (*models.Note, error)
	FindDiscussionStart(ctx context.Context, id string) (*models.Note, error)
}

// checkNoteBody refuses quick-action lines, as GitLab does.
func checkNoteBody(field, body string) error {
	if strings.TrimSpace(body) == "" {
		return invalidf("%s must not be blank", field)
	}
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), "/") {
			return invalidf("%s: lines starting with \"/\" are not allowed (they would trigger quick actions such as /merge)", field)
		}
	}
	return nil
}

// canComment checks that c's user may comment on the merge request.
func canComment(c *reviewCall) error {
	if !access.CanCreateNote(c.u, c.pa.project, c.pa.level) {
		return forbiddenf("you cannot comment in project %s", c.pa.project.PathWithNamespace)
	}
	if c.mr.DiscussionLocked && !access.CanCommentOnLocked(c.u, c.pa.level) {
		return forbiddenf("the discussion of merge request !%d is locked", c.mr.IID)
	}
	return nil
}

func (r mrReview) note(ctx context.Context, st reviewWriteStore, c *reviewCall) (*tools.Result, error) {
	if err := checkNoteBody("body", c.args.Body); err != nil {
		return nil, err
	}
	if err := canComment(c); err != nil {
		return nil, err
	}
	n := &models.Note{NoteableType: models.NoteableMergeRequest, NoteableID: c.mr.ID, ProjectID: c.pa.project.ID,
		AuthorID: c.u.ID, Body: c.args.Body, Internal: c.args.Internal}
	if c.args.Method == "reply_discussion" {
		start, err := r.discussionOf(ctx, st, c)
		if err != nil {
			return nil, err
		}
		n.DiscussionID, n.Internal = start.DiscussionID, start.Internal
	}
	if err := st.CreateNote(ctx, n); err != nil {
		return nil, err
	}
	return r.noteResult(ctx, st, c.args.Method, n)
}

// discussionOf returns the first note of the discussion c names, which
// must be a discussion of c's merge request that the user can see.
func (r mrReview) discussionOf(ctx context.Context, st reviewWriteStore, c *reviewCall) (*models.Note, error) {
	id := bareDiscussionID(c.args.DiscussionID)
	start, err := st.FindDiscussionStart(ctx, id)
	if errors.Is(err, models.ErrNotFound) || (err == nil && (start.NoteableType != models.NoteableMergeRequest ||
		start.NoteableID != c.mr.ID || !access.CanReadNote(c.u, start, c.pa.level))) {
		return nil, notFound("Discussion")
	}
	return start, err
}

func (r mrReview) noteResult(ctx context.Context, st reviewWriteStore, method string, n *models.Note) (*tools.Result, error) {
	stored, err := st.LoadNote(ctx, n.ID)
	if err != nil {
		return nil, err
	}
	return jsonResult(obj{"method": method, "note": r.links.gqlNote(stored)})
}

func (r mrReview) resolve(ctx context.Context, st reviewWriteStore, c *reviewCall) (*tools.Result, error) {
	start, err := r.discussionOf(ctx, st, c)
	if err != nil {
		return nil, err
	}
	if !access.CanResolveDiscussion(c.u, c.pa.project, c.mr, c.pa.level) {
		return nil, forbiddenf("you need at least the Developer role in project %s, or to be the merge request's author, to resolve discussions", c.pa.project.PathWithNamespace)
	}
	notes, err := st.ResolveDiscussion(ctx, c.mr.ID, start.DiscussionID, c.u.ID, *c.args.Resolved)
	if err != nil {
		return nil, err
	}
	if err := withholdNotes(ctx, st, c.pa, notes); err != nil { // lockdown.go: the thread echoed follows the read tools' rule
		return nil, err
	}
	d := &models.Discussion{ID: start.DiscussionID, Notes: notes}
	return jsonResult(obj{"method": "resolve_discussion", "discussion": r.links.gqlDiscussion(d)})
}
