package gitlab

import (
	"context"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// getWorkItemTypes is GitLab's get_work_item_types (GraphQL
// namespace.workItemTypes).
func getWorkItemTypes(g *gitlab) tools.Definition {
	wt := getWorkItemTypesTool{store: bind(g.store, func(f Families) getWorkItemTypesStore {
		return getWorkItemTypesStore{f.Projects, f.Groups, f.Issues}
	})}
	return tools.Definition{
		Name:  "get_work_item_types",
		Title: "Get work item types",
		Description: "List the work item types available in a namespace (group or project): the system-defined types " +
			"(Issue, Task, Incident, …; Objective, Key Result, Test Case and Requirement on the EE endpoint). Each type has " +
			"its global ID, name, icon, and the widget types enabled on it, so you can avoid setting fields the type " +
			"does not support. Give exactly one of url, project_id or group_id.",
		InputSchema: argsSchema(wt.run, obj{
			"url":        urlProp("GitLab URL for the namespace (project or group)."),
			"group_id":   refProp("ID or path of the group. Required if url and project_id are not provided."),
			"project_id": refProp("ID or path of the project. Required if url and group_id are not provided."),
		}),
		Annotations:  readOnlyTool("Get work item types"),
		OutputSchema: tools.OutputSchemaOf[workItemTypesJSON](),
		Toolset:      models.ToolsetWorkItems,
		Edition:      models.EditionCE,
		Source:       "app/services/mcp/tools/work_items/get_work_item_types_service.rb",
		// The namespace, looked up once.
		Target: g.lookupTarget(findNamespace[getWorkItemTypesArgs](wt.store)),
		Run:    tools.Typed(wt.run),
	}
}

// getWorkItemTypesStore is what get_work_item_types reads: the namespace
// the arguments name (its lookup target) and the edition's types.
type getWorkItemTypesStore struct {
	projectLookup
	groupLookup
	workItemTypeLister
}

// getWorkItemTypesTool is get_work_item_types with what it needs: the
// store.
type getWorkItemTypesTool struct {
	store *getWorkItemTypesStore // nil: no store (a catalog built without one)
}

// getWorkItemTypesArgs are the namespace findNamespace reads.
type getWorkItemTypesArgs struct {
	namespaceArgs
}

type workItemTypeJSON struct {
	ID                string          `json:"id"`
	Name              string          `json:"name"`
	IconName          string          `json:"iconName"`
	WidgetDefinitions []widgetTypeRef `json:"widgetDefinitions"`
}

type widgetTypeRef struct {
	Type string `json:"type"`
}

func (wt getWorkItemTypesTool) run(ctx context.Context, call *tools.Call, _ getWorkItemTypesArgs) (*tools.Result, error) {
	if wt.store == nil {
		return nil, errNoStore
	}
	if _, err := callerOf(call); err != nil {
		return nil, err
	}
	// The namespace only has to be visible: glmcp's types are the same in
	// every namespace of an edition (no custom types).
	if _, err := lookedUp[*workItemScope](call); err != nil {
		return nil, err
	}
	types, err := wt.store.ListWorkItemTypes(ctx, call.Edition)
	if err != nil {
		return nil, err
	}
	out := make([]workItemTypeJSON, 0, len(types))
	for _, t := range types {
		if t.GroupLevel { // no group-level work items (epics) on glmcp
			continue
		}
		ws := make([]widgetTypeRef, 0, 10)
		for _, w := range workItemWidgets(t.ID) {
			ws = append(ws, widgetTypeRef{Type: w})
		}
		out = append(out, workItemTypeJSON{ID: gid("WorkItems::Type", int64(t.ID)), Name: t.Name, IconName: t.IconName,
			WidgetDefinitions: ws})
	}
	return jsonResult(workItemTypesJSON{WorkItemTypes: out})
}

// workItemTypesJSON is get_work_item_types' answer.
type workItemTypesJSON struct {
	WorkItemTypes []workItemTypeJSON `json:"workItemTypes"`
}
