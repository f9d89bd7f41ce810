package gitlab

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
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

// saveMergeRequestReview is GitLab 19.5's save_merge_request_review: one
// review write per call, by method (the methods live in
// merge_request_review.go, merge_request_diff_notes.go and
// merge_request_approvals.go).
func saveMergeRequestReview(g *gitlab) tools.Definition {
	git := mrGitOf(g)
	t := reviewTool{inTx: g.inTx, review: mrReview{links: g.links, git: git}}
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
		InputSchema: argsSchema(t.run, mrRefProps(obj{
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
		Target: mrRefTargetOf[reviewArgs](g),
		Run:    tools.Typed(t.run),
	}
}

// reviewTool is save_merge_request_review with what it needs: its
// transactions and the review writer (git and links).
type reviewTool struct {
	inTx   InTx
	review mrReview
}

func (t reviewTool) run(ctx context.Context, call *tools.Call, args reviewArgs) (*tools.Result, error) {
	// Which parameters were given, not only their values: each method
	// allows its own.
	keys, ok := call.ArgumentNames()
	if !ok {
		return nil, invalidf("arguments must be an object")
	}
	rules, ok := reviewMethods[args.Method]
	if !ok {
		return nil, invalidf("method must be one of: create_note, reply_discussion, create_diff_note, resolve_discussion, submit_review, post_duo_review, approve, unapprove")
	}
	var missing, extra []string
	for _, r := range rules.required {
		if !slices.Contains(keys, r) {
			missing = append(missing, r)
		}
	}
	for _, k := range keys {
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
	if err := t.review.git.storeMissing(); err != nil {
		return nil, err
	}
	u, err := callerOf(call)
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
	err = t.inTx(ctx, func(tx Families) error {
		st := reviewWriteStore{tx.MergeRequests, tx.Notes, tx.Groups}
		// The merge request the service resolved (its project looked up
		// once), read again in this transaction.
		pa, mr, err := targetMergeRequest(call)
		if err != nil {
			return err
		}
		if mr, err = st.LoadMergeRequest(ctx, pa.project.ID, mr.IID); errors.Is(err, models.ErrNotFound) {
			return notFound("Merge Request")
		} else if err != nil {
			return err
		}
		c := &reviewCall{u: u, pa: pa, mr: mr, args: args}
		switch args.Method {
		case "create_note", "reply_discussion":
			res, err = t.review.note(ctx, st, c)
		case "create_diff_note":
			res, err = t.review.diffNote(ctx, st, c)
		case "resolve_discussion":
			res, err = t.review.resolve(ctx, st, c)
		case "submit_review":
			res, err = t.review.submit(ctx, st, c)
		case "approve":
			res, err = t.review.approve(ctx, st, c)
		case "unapprove":
			res, err = t.review.unapprove(ctx, st, c)
		}
		return err
	})
	return res, err
}
