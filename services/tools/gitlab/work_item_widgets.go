package gitlab

import (
	"slices"

	"gitlab.com/glmcp/glmcp/models"
)

// Widget types (GitLab's WorkItemWidgetType values) glmcp stores for a
// work item.
const (
	widgetAssignees       = "ASSIGNEES"
	widgetDescription     = "DESCRIPTION"
	widgetDevelopment     = "DEVELOPMENT"
	widgetHierarchy       = "HIERARCHY"
	widgetLabels          = "LABELS"
	widgetLinkedItems     = "LINKED_ITEMS"
	widgetMilestone       = "MILESTONE"
	widgetNotes           = "NOTES"
	widgetStartAndDueDate = "START_AND_DUE_DATE"
)

// workItemWidgets returns, in byte order, the widgets glmcp keeps for a
// work item of type t: every type has the same fields, and HIERARCHY when
// the type can have a parent or children (models.CanParent).
func workItemWidgets(t models.WorkItemTypeID) []string {
	out := []string{widgetAssignees, widgetDescription, widgetDevelopment, widgetLabels, widgetLinkedItems,
		widgetMilestone, widgetNotes, widgetStartAndDueDate}
	if inHierarchy(t) {
		out = append(out, widgetHierarchy)
	}
	slices.Sort(out)
	return out
}

// inHierarchy reports whether a work item of type t can be a parent or a
// child of some type.
func inHierarchy(t models.WorkItemTypeID) bool {
	for other := range workItemTypeNamesByID {
		if models.CanParent(t, other) || models.CanParent(other, t) {
			return true
		}
	}
	return false
}
