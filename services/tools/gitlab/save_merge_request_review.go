package gitlab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// reviewMethods are save_merge_request_review's methods with the
// parameters each requires and allows (GitLab's METHOD_PARAMS).
var reviewMethods = map[string]struct{ required, optional []string }{
	"create_note":        {[]string{"body"}, []string{"internal"}},
	"reply_discussion":   {[]string{"body", "discussion_id"}, nil},
	"create_diff_note":   {[]string{"body"}, []string{"old_path", "new_path", "old_line", "new_line"}},
	"resolve_discussion": {[]string{"discussion_id", "resolved"}, nil},
	"submit_review":      {[]string{"comments"}, []string{"verdict", "summary", "summary_internal"}},
	"post_duo_review":    {nil, nil},
	"approve":            {nil, []string{"sha"}},
	"unapprove":          {nil, nil},
}

const maxReviewComments = 20

func (g *gitlab) saveMergeRequestReview() tools.Definition {
	methods := make([]string, 0, len(reviewMethods))
	for m := range reviewMethods {
		methods = append(methods, m)
	}
	sort.Strings(methods)
	body := strProp("Note text (create_note, reply_discussion, create_diff_note; max 1,048,576 characters). Lines that "+
		"begin with \"/\" are rejected to avoid triggering quick actions such as /merge.", 1, maxNoteLength)
	return tools.Definition{
		Name:  "save_merge_request_review",
		Title: "Save merge request review",
		Description: "Write merge request review artifacts as the authenticated user. Exactly one method per call: " +
			"create_note adds a top-level comment; reply_discussion replies within an existing discussion; " +
			"create_diff_note comments on a specific diff line; resolve_discussion resolves or unresolves a discussion; " +
			"submit_review posts multiple diff comments plus an optional summary in one call; post_duo_review asks " +
			"GitLab Duo to review the merge request (not available on glmcp); approve records your approval (pass sha " +
			"to avoid approving stale content); unapprove removes your approval. Identify the merge request by url, " +
			"or by project_id and merge_request_iid. Each parameter below names the methods that use it.",
		InputSchema: inputSchema(mrRefProps(obj{
			"method": enumProp("The write operation to perform. Fill only the parameters listed for the chosen method; "+
				"other parameters are rejected.", methods...),
			"body":          body,
			"discussion_id": strProp("Discussion to act on (reply_discussion, resolve_discussion). Accepts the global ID (gid://gitlab/Discussion/<id>) or the bare <id> returned by get_merge_request with include: [\"discussions\"].", 1, 255),
			"internal":      boolProp("Mark the note as internal, visible only to users who can see internal notes (create_note). Default is false."),
			"resolved":      boolProp("true resolves the discussion, false unresolves it (resolve_discussion)."),
			"old_path":      strProp("File path before the change (create_diff_note). Provide old_path and/or new_path; for a file that was not renamed, use the same path for both.", 1, 4096),
			"new_path":      strProp("File path after the change (create_diff_note).", 1, 4096),
			"old_line":      iidProp("Line number in the old version of the file (create_diff_note). Use for deleted or unchanged lines. Provide old_line and/or new_line."),
			"new_line":      iidProp("Line number in the new version of the file (create_diff_note). Use for added or unchanged lines."),
			"comments": withDesc(obj{"type": "array", "minItems": 1, "maxItems": maxReviewComments, "items": obj{
				"type": "object", "additionalProperties": false, "required": []string{"file", "body"},
				"properties": obj{
					"file":       strProp("Path of the file to comment on, as it appears after the change.", 1, 4096),
					"old_line":   iidProp("Line number in the old version of the file. Provide old_line and/or new_line."),
					"new_line":   iidProp("Line number in the new version of the file."),
					"body":       strProp("Comment text for this line.", 1, maxNoteLength),
					"suggestion": strProp("Replacement code for the commented line, appended as a suggestion block.", 0, maxNoteLength),
				}}}, "Diff comments to post (submit_review; 1-20 entries). Each entry becomes one diff note."),
			"verdict":          strProp("Overall review verdict, prefixed to the summary note (submit_review).", 1, 255),
			"summary":          strProp("Summary note posted after the diff comments (submit_review).", 1, maxNoteLength),
			"summary_internal": boolProp("Mark the summary note as internal (submit_review). Default is false."),
			"sha":              strProp("Head SHA guard (approve). When given and it no longer matches the merge request head, the approval is refused. Pass the full 40-character diffHeadSha returned by get_merge_request.", 1, 64),
		}), "method"),
		Annotations: writeTool("Save merge request review"),
		Toolset:     models.ToolsetMergeRequests,
		Edition:     models.EditionCE,
		Source:      "app/services/mcp/tools/merge_requests/save_merge_request_review_tool.rb",
		// The merge request, its project looked up once: the tool rules and
		// the tool read it.
		Target: g.mrRefTarget(),
		Run:    g.runSaveMergeRequestReview,
	}
}

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

func (g *gitlab) runSaveMergeRequestReview(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var args reviewArgs
	if err := tools.DecodeArgs(call.Arguments, &args); err != nil {
		return nil, err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(call.Arguments, &keys); err != nil {
		return nil, invalidf("arguments must be an object")
	}
	rules, ok := reviewMethods[args.Method]
	if !ok {
		return nil, invalidf("method must be one of: create_note, reply_discussion, create_diff_note, resolve_discussion, submit_review, post_duo_review, approve, unapprove")
	}
	var missing, extra []string
	for _, r := range rules.required {
		if _, ok := keys[r]; !ok {
			missing = append(missing, r)
		}
	}
	for k := range keys {
		if !slices.Contains([]string{"url", "project_id", "merge_request_iid", "method"}, k) &&
			!slices.Contains(rules.required, k) && !slices.Contains(rules.optional, k) {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	if len(missing) > 0 {
		return nil, invalidf("Missing required parameters for %s: %s", args.Method, strings.Join(missing, ", "))
	}
	if len(extra) > 0 {
		return nil, invalidf("Parameters not valid for method '%s': %s", args.Method, strings.Join(extra, ", "))
	}
	u, err := g.viewer(call)
	if err != nil {
		return nil, err
	}
	if args.Method == "post_duo_review" {
		// Resolve first: an outsider still reads "not found".
		if _, _, err := targetMergeRequest(call); err != nil {
			return nil, err
		}
		return nil, invalidf("post_duo_review requires GitLab Duo Code Review, which is not available on this GitLab instance")
	}
	var res *tools.Result
	err = g.inTx(ctx, func(tx Store) error {
		// The merge request the service resolved (its project looked up
		// once), read again in this transaction.
		pa, mr, err := targetMergeRequest(call)
		if err != nil {
			return err
		}
		if mr, err = tx.LoadMergeRequest(ctx, pa.project.ID, mr.IID); errors.Is(err, models.ErrNotFound) {
			return notFound("Merge Request")
		} else if err != nil {
			return err
		}
		c := &reviewCall{u: u, pa: pa, mr: mr, args: args}
		switch args.Method {
		case "create_note", "reply_discussion":
			res, err = g.reviewNote(ctx, tx, c)
		case "create_diff_note":
			res, err = g.reviewDiffNote(ctx, tx, c)
		case "resolve_discussion":
			res, err = g.reviewResolve(ctx, tx, c)
		case "submit_review":
			res, err = g.reviewSubmit(ctx, tx, c)
		case "approve":
			res, err = g.reviewApprove(ctx, tx, c)
		case "unapprove":
			res, err = g.reviewUnapprove(ctx, tx, c)
		}
		return err
	})
	return res, err
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

func (g *gitlab) reviewNote(ctx context.Context, tx Store, c *reviewCall) (*tools.Result, error) {
	if err := checkNoteBody("body", c.args.Body); err != nil {
		return nil, err
	}
	if err := canComment(c); err != nil {
		return nil, err
	}
	n := &models.Note{NoteableType: models.NoteableMergeRequest, NoteableID: c.mr.ID, ProjectID: c.pa.project.ID,
		AuthorID: c.u.ID, Body: c.args.Body, Internal: c.args.Internal}
	if c.args.Method == "reply_discussion" {
		start, err := g.discussionOf(ctx, tx, c)
		if err != nil {
			return nil, err
		}
		n.DiscussionID, n.Internal = start.DiscussionID, start.Internal
	}
	if err := tx.CreateNote(ctx, n); err != nil {
		return nil, err
	}
	return g.noteResult(ctx, tx, c.args.Method, n)
}

// discussionOf returns the first note of the discussion c names, which
// must be a discussion of c's merge request that the user can see.
func (g *gitlab) discussionOf(ctx context.Context, tx Store, c *reviewCall) (*models.Note, error) {
	id := bareDiscussionID(c.args.DiscussionID)
	start, err := tx.FindDiscussionStart(ctx, id)
	if errors.Is(err, models.ErrNotFound) || (err == nil && (start.NoteableType != models.NoteableMergeRequest ||
		start.NoteableID != c.mr.ID || !access.CanReadNote(c.u, start, c.pa.level))) {
		return nil, notFound("Discussion")
	}
	return start, err
}

func (g *gitlab) noteResult(ctx context.Context, tx Store, method string, n *models.Note) (*tools.Result, error) {
	stored, err := tx.LoadNote(ctx, n.ID)
	if err != nil {
		return nil, err
	}
	return jsonResult(obj{"method": method, "note": g.links.gqlNote(stored)})
}

// mrDiff is a merge request's latest diff as positions need it: its
// changed files by new and old path, and its diff refs.
type mrDiff struct {
	files                      map[string]repository.FileDiff
	baseSHA, startSHA, headSHA string
}

// diffFiles reads the merge request's changed files from git.
func (g *gitlab) diffFiles(ctx context.Context, c *reviewCall) (*mrDiff, error) {
	cmp, err := g.compareMergeRequest(ctx, c.pa.project, c.mr, repository.CompareOptions{SkipPatches: true, SkipCommits: true})
	if err != nil {
		return nil, err
	}
	out := &mrDiff{files: map[string]repository.FileDiff{}, baseSHA: cmp.MergeBaseSHA, startSHA: cmp.BaseSHA, headSHA: cmp.HeadSHA}
	for _, f := range cmp.Files {
		out.files["new:"+f.NewPath], out.files["old:"+f.OldPath] = f, f
	}
	return out, nil
}

// diffPosition builds the position of a diff note on the merge request's
// latest diff, checking that the file is part of it.
func diffPosition(c *reviewCall, d *mrDiff, field, oldPath, newPath string, oldLine, newLine intArg) (*models.DiffPosition, error) {
	if oldPath == "" && newPath == "" {
		return nil, invalidf("%s: provide old_path and/or new_path", field)
	}
	if oldLine <= 0 && newLine <= 0 {
		return nil, invalidf("%s: provide old_line and/or new_line", field)
	}
	var f repository.FileDiff
	var ok bool
	if newPath != "" {
		f, ok = d.files["new:"+newPath]
	} else {
		f, ok = d.files["old:"+oldPath]
	}
	if !ok {
		return nil, invalidf("%s: %q is not a file changed by merge request !%d", field, firstNonEmpty(newPath, oldPath), c.mr.IID)
	}
	switch {
	case oldLine > 0 && f.NewFile:
		return nil, invalidf("%s: %q is added by merge request !%d, so it has no old_line", field, f.NewPath, c.mr.IID)
	case newLine > 0 && f.DeletedFile:
		return nil, invalidf("%s: %q is deleted by merge request !%d, so it has no new_line", field, f.OldPath, c.mr.IID)
	}
	pos := &models.DiffPosition{BaseSHA: d.baseSHA, StartSHA: d.startSHA, HeadSHA: d.headSHA,
		OldPath: f.OldPath, NewPath: f.NewPath, PositionType: "text"}
	if oldLine > 0 {
		n := int(oldLine)
		pos.OldLine = &n
	}
	if newLine > 0 {
		n := int(newLine)
		pos.NewLine = &n
	}
	return pos, nil
}

func (g *gitlab) reviewDiffNote(ctx context.Context, tx Store, c *reviewCall) (*tools.Result, error) {
	if err := checkNoteBody("body", c.args.Body); err != nil {
		return nil, err
	}
	if err := canComment(c); err != nil {
		return nil, err
	}
	files, err := g.diffFiles(ctx, c)
	if err != nil {
		return nil, err
	}
	pos, err := diffPosition(c, files, "create_diff_note", c.args.OldPath, c.args.NewPath, c.args.OldLine, c.args.NewLine)
	if err != nil {
		return nil, err
	}
	if err := g.checkDiffLines(ctx, c, "create_diff_note", pos); err != nil {
		return nil, err
	}
	n := &models.Note{NoteableType: models.NoteableMergeRequest, NoteableID: c.mr.ID, ProjectID: c.pa.project.ID,
		AuthorID: c.u.ID, Body: c.args.Body, Type: models.NoteTypeDiff, Position: pos}
	if err := tx.CreateNote(ctx, n); err != nil {
		return nil, err
	}
	return g.noteResult(ctx, tx, "create_diff_note", n)
}

func (g *gitlab) reviewResolve(ctx context.Context, tx Store, c *reviewCall) (*tools.Result, error) {
	start, err := g.discussionOf(ctx, tx, c)
	if err != nil {
		return nil, err
	}
	if !access.CanResolveDiscussion(c.u, c.pa.project, c.mr, c.pa.level) {
		return nil, forbiddenf("you need at least the Developer role in project %s, or to be the merge request's author, to resolve discussions", c.pa.project.PathWithNamespace)
	}
	notes, err := tx.ResolveDiscussion(ctx, c.mr.ID, start.DiscussionID, c.u.ID, *c.args.Resolved)
	if err != nil {
		return nil, err
	}
	if err := withholdNotes(ctx, tx, c.pa, notes); err != nil { // lockdown.go: the thread echoed follows the read tools' rule
		return nil, err
	}
	d := &models.Discussion{ID: start.DiscussionID, Notes: notes}
	return jsonResult(obj{"method": "resolve_discussion", "discussion": g.links.gqlDiscussion(d)})
}

func (g *gitlab) reviewSubmit(ctx context.Context, tx Store, c *reviewCall) (*tools.Result, error) {
	// Every comment is checked before anything is written; the writes share
	// the call's transaction, so a failure leaves no note behind.
	for k, cm := range c.args.Comments {
		field := "comments[" + itoa(k) + "]"
		if err := checkNoteBody(field+" body", cm.Body); err != nil {
			return nil, err
		}
		if cm.OldLine <= 0 && cm.NewLine <= 0 {
			return nil, invalidf("%s: Provide old_line and/or new_line", field)
		}
	}
	if c.args.Summary != "" {
		if err := checkNoteBody("summary", c.args.Summary); err != nil {
			return nil, err
		}
	}
	if err := canComment(c); err != nil {
		return nil, err
	}
	files, err := g.diffFiles(ctx, c)
	if err != nil {
		return nil, err
	}
	notes := make([]*models.Note, 0, len(c.args.Comments))
	for k, cm := range c.args.Comments {
		pos, err := diffPosition(c, files, "comments["+itoa(k)+"]", "", cm.File, cm.OldLine, cm.NewLine)
		if err != nil {
			return nil, err
		}
		if err := g.checkDiffLines(ctx, c, "comments["+itoa(k)+"]", pos); err != nil {
			return nil, err
		}
		body := cm.Body
		if cm.Suggestion != "" {
			body += "\n\n```suggestion:-0+0\n" + cm.Suggestion + "\n```"
		}
		notes = append(notes, &models.Note{NoteableType: models.NoteableMergeRequest, NoteableID: c.mr.ID,
			ProjectID: c.pa.project.ID, AuthorID: c.u.ID, Body: body, Type: models.NoteTypeDiff, Position: pos})
	}
	if c.args.Summary != "" || c.args.Verdict != "" {
		summary := strings.TrimSpace(strings.Join([]string{boldVerdict(c.args.Verdict), c.args.Summary}, "\n\n"))
		notes = append(notes, &models.Note{NoteableType: models.NoteableMergeRequest, NoteableID: c.mr.ID,
			ProjectID: c.pa.project.ID, AuthorID: c.u.ID, Body: summary, Internal: c.args.SummaryInternal})
	}
	out := obj{"method": "submit_review", "comments_created": len(c.args.Comments)}
	created := make([]*gqlNoteJSON, 0, len(notes))
	for _, n := range notes {
		if err := tx.CreateNote(ctx, n); err != nil {
			return nil, err
		}
		stored, err := tx.LoadNote(ctx, n.ID)
		if err != nil {
			return nil, err
		}
		created = append(created, g.links.gqlNote(stored))
	}
	out["notes"] = created[:len(c.args.Comments)]
	if len(created) > len(c.args.Comments) {
		out["summary"] = created[len(created)-1]
	}
	return jsonResult(out)
}

func boldVerdict(v string) string {
	if strings.TrimSpace(v) == "" {
		return ""
	}
	return "**" + strings.TrimSpace(v) + "**"
}

func (g *gitlab) approvalResult(c *reviewCall, status string) (*tools.Result, error) {
	iid := itoa(int(c.mr.IID))
	return jsonResult(obj{"method": c.args.Method, "status": status,
		"merge_request_url": g.links.projectURL(c.pa.project) + "/-/merge_requests/" + iid, "diff_head_sha": c.mr.SHA})
}

func (g *gitlab) reviewApprove(ctx context.Context, tx Store, c *reviewCall) (*tools.Result, error) {
	if !access.CanApproveMergeRequest(c.u, c.pa.project, c.pa.level) {
		return nil, forbiddenf("You are not allowed to approve this merge request.")
	}
	as, err := tx.MergeRequestApprovals(ctx, c.mr.ID)
	if err != nil {
		return nil, err
	}
	// Idempotency before the sha guard, as GitLab: a retry with a stale sha
	// reports the standing approval.
	if slices.ContainsFunc(as, func(a models.Approval) bool { return a.UserID == c.u.ID }) {
		return g.approvalResult(c, "already_approved")
	}
	if c.mr.State == models.MergeRequestMerged {
		return nil, invalidf("Cannot approve: the merge request is already merged.")
	}
	if c.args.SHA != "" && c.args.SHA != c.mr.SHA {
		return nil, invalidf("SHA does not match HEAD of source branch: %s", c.mr.SHA)
	}
	created, err := tx.ApproveMergeRequest(ctx, c.mr.ID, c.u.ID)
	if err != nil {
		return nil, err
	}
	if !created {
		return g.approvalResult(c, "already_approved")
	}
	return g.approvalResult(c, "approved")
}

func (g *gitlab) reviewUnapprove(ctx context.Context, tx Store, c *reviewCall) (*tools.Result, error) {
	if !access.CanApproveMergeRequest(c.u, c.pa.project, c.pa.level) {
		return nil, forbiddenf("You are not allowed to unapprove this merge request.")
	}
	if c.mr.State == models.MergeRequestMerged {
		return nil, invalidf("Cannot unapprove: the merge request is already merged.")
	}
	removed, err := tx.UnapproveMergeRequest(ctx, c.mr.ID, c.u.ID)
	if err != nil {
		return nil, err
	}
	if !removed {
		return g.approvalResult(c, "not_approved")
	}
	return g.approvalResult(c, "unapproved")
}

// checkDiffLines refuses a position on a line its file does not have: an
// old line past the end of the file at the merge base, a new line past its
// end at the head (a binary file has no lines to check).
func (g *gitlab) checkDiffLines(ctx context.Context, c *reviewCall, field string, pos *models.DiffPosition) error {
	repo, err := g.openMRRepository(ctx, c.pa.project)
	if err != nil {
		return err
	}
	defer repo.Close()
	for _, side := range []struct {
		line      *int
		rev, path string
		where     string
	}{{pos.OldLine, pos.BaseSHA, pos.OldPath, "in the merge base of"}, {pos.NewLine, pos.HeadSHA, pos.NewPath, "at the head of"}} {
		if side.line == nil || side.rev == "" { // no merge base: nothing to read the old side at
			continue
		}
		b, err := repo.Blob(ctx, side.rev, side.path, repository.BlobOptions{FromLine: *side.line, Lines: 1, MaxBytes: 64 << 10})
		if errors.Is(err, models.ErrInvalidInput) { // a binary file above the bound
			continue
		}
		if err != nil && !errors.Is(err, models.ErrNotFound) {
			return fmt.Errorf("%s: read %s at %.12s: %w", field, side.path, side.rev, err)
		}
		// A line cut at MaxBytes (longer than it) is one the file has:
		// Blob keeps none of it, so ToLine is below FromLine.
		if err != nil || !b.Binary && !b.Truncated && b.ToLine < b.FromLine {
			return invalidf("%s: %q has no line %d %s merge request !%d", field, side.path, *side.line, side.where, c.mr.IID)
		}
	}
	return nil
}
