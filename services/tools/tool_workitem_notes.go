package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
)

// workItemArgs identify a work item as GitLab's work item tools do: a URL,
// or a project (or group) and the work item's iid. glmcp's work items are
// issues; it has no group-level work items (epics).
type workItemArgs struct {
	URL         string  `json:"url"`
	GroupID     *refArg `json:"group_id"`
	ProjectID   *refArg `json:"project_id"`
	WorkItemIID *intArg `json:"work_item_iid"`
}

func workItemProps() obj {
	return obj{
		"url": strProp("GitLab URL of the work item, for example https://gitlab.example.com/group/project/-/work_items/42 "+
			"(/-/issues/42 also works). Provide this, or project_id (or group_id) and work_item_iid.", 1, 2048),
		"group_id":      refProp("ID or path of the group, for group-level work items. Required if url and project_id are missing."),
		"project_id":    refProp("ID or path of the project. Required if url and group_id are missing."),
		"work_item_iid": iidProp("Internal ID of the work item (the issue number). Required if url is missing."),
	}
}

var workItemPath = regexp.MustCompile(`^(groups/)?(.+?)/-/(?:work_items|issues)/(\d+)/?$`)

// resolveWorkItem finds the issue the arguments name and checks u may read
// it; anything missing or hidden is "404 Work Item Not Found" (after the
// project or group checks, which report their own not-found).
func (g *gitlab) resolveWorkItem(ctx context.Context, u *models.User, a *workItemArgs) (*projectAccess, *models.Issue, error) {
	var (
		group   bool
		ref     refArg
		iid     int64
		missing = notFound("Work Item")
	)
	switch {
	case a.URL != "" && (a.GroupID != nil || a.ProjectID != nil || a.WorkItemIID != nil):
		return nil, nil, invalidf("provide either url, or project_id (or group_id) and work_item_iid, not both")
	case a.URL != "":
		path, n, isGroup, err := g.parseWorkItemURL(a.URL)
		if err != nil {
			return nil, nil, err
		}
		ref, iid, group = refArg(path), n, isGroup
	case a.GroupID != nil && a.ProjectID != nil:
		return nil, nil, invalidf("provide project_id or group_id, not both")
	case a.GroupID == nil && a.ProjectID == nil:
		return nil, nil, invalidf("provide url, or project_id (or group_id) and work_item_iid")
	case a.WorkItemIID == nil:
		return nil, nil, invalidf("work_item_iid: required when url is missing")
	case a.GroupID != nil:
		ref, iid, group = *a.GroupID, int64(*a.WorkItemIID), true
	default:
		ref, iid = *a.ProjectID, int64(*a.WorkItemIID)
	}
	field := "project_id"
	if a.URL != "" {
		field = "url"
	}
	if group {
		if a.URL == "" {
			field = "group_id"
		}
		if _, err := resolveGroup(ctx, g.store, u, field, ref); err != nil {
			return nil, nil, err
		}
		return nil, nil, missing // no group-level work items
	}
	pa, err := resolveProject(ctx, g.store, u, field, ref)
	if err != nil {
		return nil, nil, err
	}
	issue, err := g.readableIssue(ctx, g.store, u, pa, iid, missing)
	if err != nil {
		return nil, nil, err
	}
	return pa, issue, nil
}

// parseWorkItemURL returns the project (or group) path and iid of a work
// item URL. As in GitLab, the host is not checked; a relative URL root of
// the public URL ("/gitlab") is stripped.
func (g *gitlab) parseWorkItemURL(raw string) (path string, iid int64, group bool, err error) {
	u, perr := url.Parse(strings.TrimSpace(raw))
	if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", 0, false, invalidf("url: %q is not an http(s) URL", raw)
	}
	p := u.Path
	if base, berr := url.Parse(g.base); berr == nil && base.Path != "" && base.Path != "/" {
		root := strings.TrimRight(base.Path, "/")
		if p == root || strings.HasPrefix(p, root+"/") {
			p = strings.TrimPrefix(p, root)
		}
	}
	m := workItemPath.FindStringSubmatch(strings.TrimPrefix(p, "/"))
	if m == nil {
		return "", 0, false, invalidf("url: invalid work item URL format, expected .../-/work_items/<iid>")
	}
	n, perr := strconv.ParseInt(m[3], 10, 64)
	if perr != nil || n <= 0 {
		return "", 0, false, invalidf("url: invalid work item iid %q", m[3])
	}
	return m[2], n, m[1] != "", nil
}

// quickAction matches a line GitLab would run as a quick action.
var quickAction = regexp.MustCompile(`(?m)^\s*/\w+`)

// createWorkItemNote is GitLab's create_workitem_note.
func (g *gitlab) createWorkItemNote() Definition {
	props := workItemProps()
	props["body"] = strProp("Content of the note, in Markdown (at most 1,048,576 characters). Lines may not start with / "+
		"(quick actions are not allowed).", 1, maxNoteLength)
	props["internal"] = boolProp("Make the note internal: visible only to members with at least the Reporter role. Default false. " +
		"Replies to an internal thread are internal.")
	props["discussion_id"] = strProp("ID of the discussion (thread) to reply to: gid://gitlab/Discussion/<id> or the bare <id> "+
		"(the discussion_id of a note from get_workitem_notes). Omit to start a new thread.", 1, 200)
	return Definition{
		Name:  "create_workitem_note",
		Title: "Create work item note",
		Description: "Create a new note (comment) on a GitLab work item (issue), or reply to one of its threads. " +
			"Needs at least the Reporter role in the project.",
		InputSchema: inputSchema(props, "body"),
		Annotations: writeTool("Create work item note"),
		Toolset:     models.ToolsetWorkItems,
		Edition:     models.EditionCE,
		Run:         g.runCreateWorkItemNote,
	}
}

func (g *gitlab) runCreateWorkItemNote(ctx context.Context, call *Call) (*Result, error) {
	u, err := g.writer(call, "create_workitem_note")
	if err != nil {
		return nil, err
	}
	var args struct {
		workItemArgs
		Body         string `json:"body"`
		Internal     bool   `json:"internal"`
		DiscussionID string `json:"discussion_id"`
	}
	if err := decodeArgs(call.Arguments, &args); err != nil {
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
	var res *Result
	err = g.inTx(ctx, func(tx DomainStore) error {
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

// cursorPageInfo is GraphQL's PageInfo, as GitLab's work item tools return
// it.
type cursorPageInfo struct {
	HasNextPage     bool    `json:"hasNextPage"`
	HasPreviousPage bool    `json:"hasPreviousPage"`
	StartCursor     *string `json:"startCursor"`
	EndCursor       *string `json:"endCursor"`
}

// defaultNotesPage is GitLab's page size for get_workitem_notes.
const defaultNotesPage = 100

// getWorkItemNotes is GitLab's get_workitem_notes.
func (g *gitlab) getWorkItemNotes() Definition {
	props := workItemProps()
	props["first"] = withDesc(obj{"type": "integer", "minimum": 1, "maximum": maxPerPage},
		"Number of notes to return after the cursor (forward pagination). Default 100, max 100.")
	props["last"] = withDesc(obj{"type": "integer", "minimum": 1, "maximum": maxPerPage},
		"Number of notes to return before the cursor (backward pagination). Max 100.")
	props["after"] = strProp("Cursor for forward pagination: pageInfo.endCursor of a previous response.", 1, 200)
	props["before"] = strProp("Cursor for backward pagination: pageInfo.startCursor of a previous response.", 1, 200)
	return Definition{
		Name:  "get_workitem_notes",
		Title: "Get work item notes",
		Description: "Get the notes (comments and system notes) of a GitLab work item (issue), oldest first, with " +
			"cursor pagination (first/after forward, last/before backward). Internal notes are included only for " +
			"members with at least the Reporter role.",
		InputSchema: inputSchema(props),
		Annotations: readOnlyTool("Get work item notes"),
		Toolset:     models.ToolsetWorkItems,
		Edition:     models.EditionCE,
		Aliases:     []string{"get_work_item_notes"},
		Run:         g.runGetWorkItemNotes,
	}
}

func (g *gitlab) runGetWorkItemNotes(ctx context.Context, call *Call) (*Result, error) {
	u, err := g.viewer(call)
	if err != nil {
		return nil, err
	}
	var args struct {
		workItemArgs
		First  *intArg `json:"first"`
		Last   *intArg `json:"last"`
		After  string  `json:"after"`
		Before string  `json:"before"`
	}
	if err := decodeArgs(call.Arguments, &args); err != nil {
		return nil, err
	}
	if args.First != nil && args.Last != nil {
		return nil, invalidf("provide first or last, not both")
	}
	q := models.NotePageQuery{NoteableType: models.NoteableIssue, Limit: defaultNotesPage}
	if q.AfterID, err = decodeCursor("after", args.After); err != nil {
		return nil, err
	}
	if q.BeforeID, err = decodeCursor("before", args.Before); err != nil {
		return nil, err
	}
	switch {
	case args.First != nil:
		q.Limit = int(*args.First)
	case args.Last != nil:
		q.Limit, q.FromEnd = int(*args.Last), true
	case q.BeforeID > 0 && q.AfterID == 0:
		q.FromEnd = true
	}
	pa, issue, err := g.resolveWorkItem(ctx, u, &args.workItemArgs)
	if err != nil {
		return nil, err
	}
	q.NoteableID = issue.ID
	q.IncludeInternal = access.CanReadInternalNote(u, pa.level)
	page, err := g.store.PageNotes(ctx, q)
	if err != nil {
		return nil, err
	}
	items := make([]*noteJSON, 0, len(page.Notes))
	for k := range page.Notes {
		items = append(items, g.note(&page.Notes[k], issue.IID))
	}
	pi := cursorPageInfo{HasNextPage: page.HasNext, HasPreviousPage: page.HasPrevious}
	if n := len(page.Notes); n > 0 {
		start, end := encodeCursor(page.Notes[0].ID), encodeCursor(page.Notes[n-1].ID)
		pi.StartCursor, pi.EndCursor = &start, &end
	}
	return jsonResult(listJSON[*noteJSON]{Items: items, PageInfo: pi})
}

type noteCursor struct {
	ID int64 `json:"id"`
}

// encodeCursor returns the opaque cursor of the note with id.
func encodeCursor(id int64) string {
	b, _ := json.Marshal(noteCursor{ID: id})
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor returns the note id of a cursor ("" is 0).
func decodeCursor(field, s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	var c noteCursor
	if err != nil || json.Unmarshal(b, &c) != nil || c.ID <= 0 {
		return 0, invalidf("%s: %q is not a cursor returned by get_workitem_notes", field, s)
	}
	return c.ID, nil
}
