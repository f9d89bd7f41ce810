package gitlab

import (
	"context"
	"errors"
	"regexp"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

func init() {
	register((*gitlab).createWorkItemNote)
}

// createWorkItemNote is GitLab's create_workitem_note.
func (g *gitlab) createWorkItemNote() tools.Definition {
	props := workItemProps()
	props["body"] = strProp("Content of the note, in Markdown (at most 1,048,576 characters). Lines may not start with / "+
		"(quick actions are not allowed).", 1, maxNoteLength)
	props["internal"] = boolProp("Make the note internal: visible only to members with at least the Reporter role. Default false. " +
		"Replies to an internal thread are internal.")
	props["discussion_id"] = strProp("ID of the discussion (thread) to reply to: gid://gitlab/Discussion/<id> or the bare <id> "+
		"(the discussion_id of a note from get_workitem_notes). Omit to start a new thread.", 1, 200)
	return tools.Definition{
		Name:  "create_workitem_note",
		Title: "Create work item note",
		Description: "Create a new note (comment) on a GitLab work item (issue), or reply to one of its threads. " +
			"Needs at least the Reporter role in the project.",
		InputSchema:  inputSchema(props, "body"),
		Annotations:  writeTool("Create work item note"),
		OutputSchema: tools.OutputSchemaOf[noteJSON](),
		Toolset:      models.ToolsetWorkItems,
		Unlisted:     true, // GitLab 19.5: unlisted: true (pending removal); callable by name
		Edition:      models.EditionCE,
		Run:          tools.Typed(g.runCreateWorkItemNote),
	}
}

type createWorkItemNoteArgs struct {
	workItemArgs
	Body         string `json:"body"`
	Internal     bool   `json:"internal"`
	DiscussionID string `json:"discussion_id"`
}

func (g *gitlab) runCreateWorkItemNote(ctx context.Context, call *tools.Call, args createWorkItemNoteArgs) (*tools.Result, error) {
	u, err := g.viewer(call)
	if err != nil {
		return nil, err
	}
	pa, issue, err := g.resolveWorkItem(ctx, u, &args.workItemArgs)
	if err != nil {
		return nil, err
	}
	if !access.CanCreateNote(u, pa.project, pa.level) {
		return nil, forbiddenf("you need at least the Reporter role in project %s to comment on work items", pa.project.PathWithNamespace)
	}
	switch {
	case strings.TrimSpace(args.Body) == "":
		return nil, invalidf("body: must not be blank")
	case quickAction.MatchString(args.Body):
		return nil, invalidf("body: quick actions (lines starting with /) are not allowed in a note")
	}
	n := &models.Note{NoteableType: models.NoteableIssue, NoteableID: issue.ID, ProjectID: pa.project.ID,
		AuthorID: u.ID, Body: args.Body, Internal: args.Internal}
	var res *tools.Result
	err = g.inTx(ctx, func(tx Store) error {
		if args.DiscussionID != "" {
			id := strings.TrimPrefix(strings.TrimSpace(args.DiscussionID), "gid://gitlab/Discussion/")
			start, err := tx.FindDiscussionStart(ctx, id)
			switch {
			case errors.Is(err, models.ErrNotFound):
				return notFound("Discussion")
			case err != nil:
				return err
			case start.NoteableType != models.NoteableIssue || start.NoteableID != issue.ID ||
				!access.CanReadNote(u, start, pa.level):
				return notFound("Discussion")
			case start.Internal:
				n.Internal = true
			case args.Internal:
				return invalidf("internal: a reply to a public thread cannot be internal")
			}
			n.DiscussionID = id
		}
		if err := tx.CreateNote(ctx, n); err != nil {
			return err
		}
		created, err := tx.LoadNote(ctx, n.ID)
		if err != nil {
			return err
		}
		res, err = jsonResult(g.note(created, issue.IID))
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// quickAction matches a line GitLab would run as a quick action.
var quickAction = regexp.MustCompile(`(?m)^\s*/\w+`)
