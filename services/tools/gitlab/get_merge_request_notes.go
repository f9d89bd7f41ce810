package gitlab

import (
	"context"
	"strconv"

	"gitlab.com/glmcp/glmcp/internal/cursor"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// getMergeRequestNotes is GitLab 19.5's get_merge_request_notes
// (GraphQL-backed: first/after, last/before).
func getMergeRequestNotes(g *gitlab) tools.Definition {
	t := mrNotesTool{links: g.links, cursors: g.cursors}
	if !noStore(g.store) {
		t.store = notePagesOf(g.store)
	}
	return tools.Definition{
		Name:  "get_merge_request_notes",
		Title: "Get merge request notes",
		Description: "Get the notes (comments and system notes) for a specific merge request, oldest first. Each note " +
			"carries its discussion ID, so related notes can be grouped into threads. Internal notes are included " +
			"only for members with at least the Reporter role.",
		InputSchema: argsSchema(t.run, mrRefProps(obj{
			"after":  strProp("Cursor for forward pagination. Use endCursor from previous response.", 1, 512),
			"before": strProp("Cursor for backward pagination. Use startCursor from previous response.", 1, 512),
			"first":  withDesc(obj{"type": "integer", "minimum": 1, "maximum": maxPerPage}, "Number of notes to return after the cursor (forward pagination, max 100)"),
			"last":   withDesc(obj{"type": "integer", "minimum": 1, "maximum": maxPerPage}, "Number of notes to return before the cursor (backward pagination, max 100)"),
		})),
		Annotations:  readOnlyTool("Get merge request notes"),
		OutputSchema: tools.OutputSchemaOf[connection](),
		Toolset:      models.ToolsetMergeRequests,
		Aliases:      []string{"list_all_merge_request_notes"},
		Edition:      models.EditionCE,
		Source:       "app/services/mcp/tools/merge_requests/get_merge_request_notes_tool.rb",
		Target:       mrRefTargetOf[mrNotesArgs](g),
		Run:          tools.Typed(t.run),
	}
}

// mrNotesTool is get_merge_request_notes with what it needs: the notes,
// the links they carry and the cursor signer.
type mrNotesTool struct {
	store   notePager // nil: no store (a catalog built without one)
	links   links
	cursors *cursor.Signer
}

type mrNotesArgs struct {
	mrRefArgs
	After  string `json:"after"`
	Before string `json:"before"`
	First  intArg `json:"first"`
	Last   intArg `json:"last"`
}

func (t mrNotesTool) run(ctx context.Context, call *tools.Call, args mrNotesArgs) (*tools.Result, error) {
	if t.store == nil {
		return nil, errNoStore
	}
	u, err := callerOf(call)
	if err != nil {
		return nil, err
	}
	if (args.Last != 0 || args.Before != "") && (args.First != 0 || args.After != "") {
		return nil, invalidf("Provide first/after or last/before, not both directions")
	}
	pa, mr, err := targetMergeRequest(call)
	if err != nil {
		return nil, err
	}
	pages := newPager(t.cursors, call, "get_merge_request_notes", "mr:"+strconv.FormatInt(mr.ID, 10)+":notes", nil)
	conn, err := mrNotesPage(ctx, t.store, t.links, pages, u, pa, mr, noteWindow{args.First, args.After, args.Last, args.Before, ""})
	if err != nil {
		return nil, err
	}
	return jsonResult(conn)
}
