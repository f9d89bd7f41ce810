package gitlab

import (
	"context"

	"gitlab.com/glmcp/glmcp/internal/cursor"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// defaultNotesPage is GitLab's page size for get_workitem_notes.
const defaultNotesPage = 100

// getWorkItemNotes is GitLab's get_workitem_notes.
func getWorkItemNotes(g *gitlab) tools.Definition {
	wn := getWorkItemNotesTool{store: notePagesOf(g.store), links: g.links, cursors: g.cursors}
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
		InputSchema:  argsSchema(wn.run, props),
		OutputSchema: tools.OutputSchemaOf[listJSON[*noteJSON]](),
		Annotations:  readOnlyTool("Get work item notes"),
		Toolset:      models.ToolsetWorkItems,
		Unlisted:     true, // GitLab 19.5: unlisted: true (pending removal); callable by name
		Edition:      models.EditionCE,
		Source:       "app/services/mcp/tools/work_items/get_work_item_notes_service.rb",
		Aliases:      []string{"get_work_item_notes"},
		Target:       workItemTarget[getWorkItemNotesArgs](g, access.ReadWorkItem),
		Run:          tools.Typed(wn.run),
	}
}

// getWorkItemNotesStore is what get_workitem_notes reads besides its
// target: a page of the work item's notes and, in lockdown, the roles of
// their authors.
type getWorkItemNotesStore interface {
	notePager
}

// getWorkItemNotesTool is get_workitem_notes with what it needs: the
// store, the links of its notes and the cursor signer of its pages.
type getWorkItemNotesTool struct {
	store   getWorkItemNotesStore // nil: no store (a catalog built without one)
	links   links
	cursors *cursor.Signer
}

type getWorkItemNotesArgs struct {
	workItemArgs
	First  *intArg `json:"first"`
	Last   *intArg `json:"last"`
	After  string  `json:"after"`
	Before string  `json:"before"`
}

func (wn getWorkItemNotesTool) run(ctx context.Context, call *tools.Call, args getWorkItemNotesArgs) (*tools.Result, error) {
	if wn.store == nil {
		return nil, errNoStore
	}
	u, err := callerOf(call)
	if err != nil {
		return nil, err
	}
	if args.First != nil && args.Last != nil {
		return nil, invalidf("provide first or last, not both")
	}
	pa, issue, err := targetWorkItem(call)
	if err != nil {
		return nil, err
	}
	q := models.NotePageQuery{NoteableType: models.NoteableIssue, NoteableID: issue.ID, Limit: defaultNotesPage}
	pages := workItemNotesPager(wn.cursors, call, issue)
	if q.AfterID, err = pages.open("after", args.After); err != nil {
		return nil, err
	}
	if q.BeforeID, err = pages.open("before", args.Before); err != nil {
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
	q.IncludeInternal = access.CanReadInternalNote(u, pa.level)
	page, err := wn.store.PageNotes(ctx, q)
	if err != nil {
		return nil, err
	}
	if err := withholdNotes(ctx, wn.store, pa, page.Notes); err != nil {
		return nil, err
	}
	items := make([]*noteJSON, 0, len(page.Notes))
	for k := range page.Notes {
		items = append(items, wn.links.note(&page.Notes[k], issue.IID))
	}
	pi := cursorPageInfo{HasNextPage: page.HasNext, HasPreviousPage: page.HasPrevious}
	if n := len(page.Notes); n > 0 {
		start, end := pages.mint(page.Notes[0].ID), pages.mint(page.Notes[n-1].ID)
		pi.StartCursor, pi.EndCursor = &start, &end
	}
	return jsonResult(listJSON[*noteJSON]{Items: items, PageInfo: pi})
}
