package gitlab

import (
	"context"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// getSavedViewWorkItems is GitLab's get_saved_view_work_items. Saved views
// (GitLab 18.11, work_item_saved_views) do not exist in glmcp's domain, so
// the tool is unlisted and a call answers that it is not available, as the
// duo_agent_platform tools do; its schema is GitLab's, so a client that
// calls it by name gets GitLab's argument checks first. It needs nothing
// the tools share.
func getSavedViewWorkItems(*gitlab) tools.Definition {
	return tools.Definition{
		Name:        "get_saved_view_work_items",
		Title:       "Get saved view work items",
		Description: "Fetch a saved view and its work items list from a namespace. Not available on glmcp: it has no saved views.",
		InputSchema: argsSchema(runSavedViewWorkItems, obj{
			"url":           urlProp("GitLab URL for the namespace (project or group)."),
			"group_id":      refProp("ID or path of the group. Required if url and project_id are not provided."),
			"project_id":    refProp("ID or path of the project. Required if url and group_id are not provided."),
			"saved_view_id": strProp("The global ID of the saved view (format: gid://gitlab/WorkItems::SavedViews::SavedView/<id>).", 1, 200),
			"after":         strProp("Cursor for forward pagination. Use endCursor from previous response.", 1, maxCursorLen),
			"first":         withDesc(obj{"type": "integer", "minimum": 1, "maximum": maxPerPage}, "Number of work items to return (forward pagination, max 100)."),
		}, "saved_view_id"),
		Annotations: readOnlyTool("Get saved view work items"),
		Toolset:     models.ToolsetWorkItems,
		Edition:     models.EditionCE,
		Source:      "app/services/mcp/tools/work_items/get_saved_view_work_items_service.rb",
		Unlisted:    true,
		Unavailable: true, // glmcp has no saved views
		Run:         tools.Typed(runSavedViewWorkItems),
	}
}

// savedViewWorkItemsArgs are GitLab's arguments, which the schema checks
// (the answer does not read them).
type savedViewWorkItemsArgs struct {
	URL         string  `json:"url"`
	GroupID     *refArg `json:"group_id"`
	ProjectID   *refArg `json:"project_id"`
	SavedViewID string  `json:"saved_view_id"`
	After       string  `json:"after"`
	First       *intArg `json:"first"`
}

func runSavedViewWorkItems(context.Context, *tools.Call, savedViewWorkItemsArgs) (*tools.Result, error) {
	return &tools.Result{IsError: true, Text: "The tool get_saved_view_work_items is not available on this instance: " +
		"glmcp has no saved views. Use list_work_items with the view's filters instead."}, nil
}
