package gitlab

import (
	"context"
	"encoding/base64"
	"encoding/json"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

func init() {
	register((*gitlab).getWorkItemNotes)
}

// defaultNotesPage is GitLab's page size for get_workitem_notes.
const defaultNotesPage = 100

// getWorkItemNotes is GitLab's get_workitem_notes.
func (g *gitlab) getWorkItemNotes() tools.Definition {
	props := workItemProps()
	props["first"] = withDesc(obj{"type": "integer", "minimum": 1, "maximum": maxPerPage},
		"Number of notes to return after the cursor (forward pagination). Default 100, max 100.")
	props["last"] = withDesc(obj{"type": "integer", "minimum": 1, "maximum": maxPerPage},
		"Number of notes to return before the cursor (backward pagination). Max 100.")
	props["after"] = strProp("Cursor for forward pagination: pageInfo.endCursor of a previous response.", 1, 200)
	props["before"] = strProp("Cursor for backward pagination: pageInfo.startCursor of a previous response.", 1, 200)
	return tools.Definition{
		Name:  "get_workitem_notes",
		Title: "Get work item notes",
		Description: "Get the notes (comments and system notes) of a GitLab work item (issue), oldest first, with " +
			"cursor pagination (first/after forward, last/before backward). Internal notes are included only for " +
			"members with at least the Reporter role.",
		InputSchema: inputSchema(props),
		Annotations: readOnlyTool("Get work item notes"),
		Toolset:     models.ToolsetWorkItems,
		Unlisted:    true, // superseded in GitLab 19.5; callable by name
		Edition:     models.EditionCE,
		Aliases:     []string{"get_work_item_notes"},
		Run:         tools.Typed(g.runGetWorkItemNotes),
	}
}

type getWorkItemNotesArgs struct {
	workItemArgs
	First  *intArg `json:"first"`
	Last   *intArg `json:"last"`
	After  string  `json:"after"`
	Before string  `json:"before"`
}

func (g *gitlab) runGetWorkItemNotes(ctx context.Context, call *tools.Call, args getWorkItemNotesArgs) (*tools.Result, error) {
	u, err := g.viewer(call)
	if err != nil {
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
