package gitlab

import (
	"context"
	"fmt"
	"strings"
	"time"

	"gitlab.com/glmcp/glmcp/internal/cursor"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// workItemTypeEnum is GitLab's IssueTypeEnum, by models type id.
var workItemTypeEnum = map[string]models.WorkItemTypeID{
	"ISSUE": models.TypeIssue, "INCIDENT": models.TypeIncident, "TEST_CASE": models.TypeTestCase,
	"REQUIREMENT": models.TypeRequirement, "TASK": models.TypeTask, "OBJECTIVE": models.TypeObjective,
	"KEY_RESULT": models.TypeKeyResult, "EPIC": models.TypeEpic, "TICKET": models.TypeTicket,
}

var workItemTypeNames = []string{"ISSUE", "INCIDENT", "TEST_CASE", "REQUIREMENT", "TASK", "OBJECTIVE", "KEY_RESULT", "EPIC", "TICKET"}

// listWorkItems is GitLab's list_work_items (GraphQL-backed: first/after).
func listWorkItems(g *gitlab) tools.Definition {
	lw := listWorkItemsTool{store: bind(g.store, func(f Families) listWorkItemsStore {
		return listWorkItemsStore{f.Projects, f.Groups, f.Issues}
	}), links: g.links, cursors: g.cursors}
	names := obj{"type": "array", "items": obj{"type": "string", "minLength": 1}, "maxItems": 100}
	date := func(d string) obj {
		return strProp(d+" (ISO 8601; date-only means start of day, offsets honored).", 1, 64)
	}
	return tools.Definition{
		Name:  "list_work_items",
		Title: "List work items",
		Description: "List or search work items (" + strings.Join(workItemTypeNames, ", ") + ") in a group or project. " +
			"Filter by state, author, assignees, labels, milestone, dates, type, or free text. Group scope includes " +
			"work items of descendant projects and subgroups. Each row carries only compact identifying fields: id, " +
			"iid, title, state, web URL, reference, created and updated timestamps, and work item type. Use " +
			"get_work_item for full details of one work item.",
		InputSchema: argsSchema(lw.run, obj{
			"url":                   strProp("GitLab URL for the project or group.", 1, 2048),
			"group_id":              refProp("ID or path of the group. Required if URL and project_id are not provided."),
			"project_id":            refProp("ID or path of the project. Required if URL and group_id are not provided."),
			"state":                 enumProp("Filter by state. Default is all.", "opened", "closed", "all"),
			"search":                strProp("Free-text search in title and description.", 0, 1000),
			"author_username":       strProp("Username of the author.", 1, 255),
			"assignee_usernames":    withDesc(names, "Usernames of assignees. A work item must match all of them."),
			"label_name":            withDesc(cloneObj(names), "Label names. A work item must have all of them."),
			"milestone_title":       withDesc(cloneObj(names), "Milestone titles. Cannot be combined with milestone_wildcard_id."),
			"milestone_wildcard_id": enumProp("Milestone wildcard. Cannot be combined with milestone_title.", "NONE", "ANY", "STARTED", "UPCOMING"),
			"types":                 enumListProp(`Work item types to include, for example ["ISSUE", "TASK"].`, false, workItemTypeNames...),
			"created_after":         date("Created after this time"),
			"created_before":        date("Created before this time"),
			"updated_after":         date("Updated after this time"),
			"updated_before":        date("Updated before this time"),
			"due_after":             date("Due after this time"),
			"due_before":            date("Due before this time"),
			"sort": enumProp("Sort order. Default is CREATED_DESC.", "CREATED_DESC", "CREATED_ASC", "UPDATED_DESC",
				"UPDATED_ASC", "TITLE_ASC", "TITLE_DESC"),
			"first": withDesc(obj{"type": "integer", "minimum": 1, "maximum": 100},
				"Number of work items to return after the cursor (forward pagination). Default 20, max 100."),
			"after": strProp("Cursor for forward pagination of work items. Use pageInfo.endCursor from a previous response.", 1, maxCursorLen),
		}),
		Annotations:  readOnlyTool("List work items"),
		OutputSchema: tools.OutputSchemaOf[workItemsJSON](),
		Toolset:      models.ToolsetWorkItems,
		Edition:      models.EditionCE,
		Source:       "app/services/mcp/tools/work_items/list_work_items_service.rb",
		// The project or group it lists in, looked up once.
		Target: g.lookupTarget(findNamespace[listWorkItemsArgs](lw.store)),
		Run:    tools.Typed(lw.run),
	}
}

func cloneObj(o obj) obj {
	c := obj{}
	for k, v := range o {
		c[k] = v
	}
	return c
}

// listWorkItemsStore is what list_work_items reads: the project or group
// it lists in (its lookup target), the page of work items and their
// projects' paths.
type listWorkItemsStore struct {
	listWorkItemsProjects
	groupLookup
	workItemLister
}

// listWorkItemsProjects is what list_work_items reads of Projects.
type listWorkItemsProjects interface {
	projectLookup
	LoadProjects(ctx context.Context, ids []int64) ([]models.Project, error)
}

// workItemLister lists work items (Issues).
type workItemLister interface {
	ListWorkItems(ctx context.Context, q models.WorkItemQuery) (*models.WorkItemPage, error)
}

// listWorkItemsTool is list_work_items with what it needs: the store, the
// links of its rows and the cursor signer of its pages.
type listWorkItemsTool struct {
	store   *listWorkItemsStore // nil: no store (a catalog built without one)
	links   links
	cursors *cursor.Signer
}

type listWorkItemsArgs struct {
	namespaceArgs
	State               string   `json:"state"`
	Search              string   `json:"search"`
	AuthorUsername      string   `json:"author_username"`
	AssigneeUsernames   []string `json:"assignee_usernames"`
	LabelName           []string `json:"label_name"`
	MilestoneTitle      []string `json:"milestone_title"`
	MilestoneWildcardID string   `json:"milestone_wildcard_id"`
	Types               []string `json:"types"`
	CreatedAfter        string   `json:"created_after"`
	CreatedBefore       string   `json:"created_before"`
	UpdatedAfter        string   `json:"updated_after"`
	UpdatedBefore       string   `json:"updated_before"`
	DueAfter            string   `json:"due_after"`
	DueBefore           string   `json:"due_before"`
	Sort                string   `json:"sort"`
	First               *intArg  `json:"first"`
	After               string   `json:"after"`
}

// workItemCursor is a list_work_items position.
type workItemCursor struct {
	Sort string `json:"s"`
	Key  string `json:"k"`
	ID   int64  `json:"i"`
}

type workItemRow struct {
	ID           string          `json:"id"`
	IID          string          `json:"iid"`
	Title        string          `json:"title"`
	State        string          `json:"state"`
	WebURL       string          `json:"webUrl"`
	Reference    string          `json:"reference"`
	CreatedAt    time.Time       `json:"createdAt"`
	UpdatedAt    time.Time       `json:"updatedAt"`
	WorkItemType workItemTypeRef `json:"workItemType"`
}

func (lw listWorkItemsTool) run(ctx context.Context, call *tools.Call, args listWorkItemsArgs) (*tools.Result, error) {
	if lw.store == nil {
		return nil, errNoStore
	}
	u, err := callerOf(call)
	if err != nil {
		return nil, err
	}
	q := models.WorkItemQuery{Viewer: u, Search: args.Search, Lockdown: call.Lockdown, AuthorUsername: args.AuthorUsername,
		AssigneeUsernames: args.AssigneeUsernames, LabelNames: args.LabelName, MilestoneTitles: args.MilestoneTitle,
		MilestoneWildcard: args.MilestoneWildcardID, Sort: models.WorkItemSort(args.Sort), Limit: defaultPerPage}
	if len(args.MilestoneTitle) > 0 && args.MilestoneWildcardID != "" {
		return nil, invalidf("milestone_title and milestone_wildcard_id cannot be combined")
	}
	if q.Sort == "" {
		q.Sort = models.SortCreatedDesc
	}
	if args.First != nil {
		q.Limit = int(*args.First)
	}
	switch args.State {
	case "opened", "closed":
		q.State = models.IssueState(args.State)
	}
	for _, t := range args.Types {
		q.Types = append(q.Types, workItemTypeEnum[t])
	}
	for _, d := range []struct {
		field, v string
		dst      **time.Time
	}{
		{"created_after", args.CreatedAfter, &q.CreatedAfter}, {"created_before", args.CreatedBefore, &q.CreatedBefore},
		{"updated_after", args.UpdatedAfter, &q.UpdatedAfter}, {"updated_before", args.UpdatedBefore, &q.UpdatedBefore},
	} {
		if *d.dst, err = parseTimeArg(d.field, d.v); err != nil {
			return nil, err
		}
	}
	for _, d := range []struct {
		field, v string
		dst      **models.Date
	}{{"due_after", args.DueAfter, &q.DueAfter}, {"due_before", args.DueBefore, &q.DueBefore}} {
		t, err := parseTimeArg(d.field, d.v)
		if err != nil {
			return nil, err
		}
		if t != nil {
			*d.dst = &models.Date{Time: time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)}
		}
	}
	ns, err := lookedUp[*workItemScope](call)
	if err != nil {
		return nil, err
	}
	ns.scope(&q)
	filters := args
	filters.URL, filters.ProjectID, filters.GroupID, filters.First, filters.After = "", nil, nil, nil, ""
	pages := newPager(lw.cursors, call, "list_work_items", fmt.Sprintf("project:%d group:%s", q.ProjectID, q.GroupPath), filters)
	if args.After != "" {
		var c workItemCursor
		if err := pages.openJSON("after", args.After, &c); err != nil {
			return nil, err
		}
		if c.Sort != string(q.Sort) {
			return nil, invalidf("after: the cursor was returned for sort %s, not %s", c.Sort, q.Sort)
		}
		q.AfterKey, q.AfterID = c.Key, c.ID
	}
	page, err := lw.store.ListWorkItems(ctx, q)
	if err != nil {
		return nil, err
	}
	projects, err := lw.projectPaths(ctx, page.Items)
	if err != nil {
		return nil, err
	}
	rows := make([]workItemRow, 0, len(page.Items))
	for _, i := range page.Items {
		path := projects[i.ProjectID]
		rows = append(rows, workItemRow{
			ID: fmt.Sprintf("gid://gitlab/WorkItem/%d", i.ID), IID: fmt.Sprint(i.IID), Title: i.Title,
			State: graphQLState(i.State), WebURL: lw.links.base + "/" + path + "/-/work_items/" + fmt.Sprint(i.IID),
			Reference: fmt.Sprintf("%s#%d", path, i.IID), CreatedAt: i.CreatedAt, UpdatedAt: i.UpdatedAt,
			WorkItemType: workItemTypeRef{ID: fmt.Sprintf("gid://gitlab/WorkItems::Type/%d", i.WorkItemTypeID),
				Name: workItemTypeName(i.WorkItemTypeID)},
		})
	}
	pi := endPageInfo{HasNextPage: page.HasNext}
	if page.HasNext {
		c, err := pages.mintJSON(workItemCursor{Sort: string(q.Sort), Key: page.EndKey, ID: page.EndID})
		if err != nil {
			return nil, err
		}
		pi.EndCursor = &c
	}
	return jsonResult(workItemsJSON{PageInfo: pi, WorkItems: rows})
}

func (lw listWorkItemsTool) projectPaths(ctx context.Context, items []models.Issue) (map[int64]string, error) {
	var ids []int64
	for _, i := range items {
		ids = append(ids, i.ProjectID)
	}
	ps, err := lw.store.LoadProjects(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := map[int64]string{}
	for _, p := range ps {
		out[p.ID] = p.PathWithNamespace
	}
	return out, nil
}

// parseTimeArg parses an ISO 8601 time or date ("" is nil).
func parseTimeArg(field, v string) (*time.Time, error) {
	if v == "" {
		return nil, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", models.DateLayout} {
		if t, err := time.Parse(layout, v); err == nil {
			t = t.UTC()
			return &t, nil
		}
	}
	return nil, invalidf("%s: %q is not an ISO 8601 time", field, v)
}

// workItemsJSON is list_work_items' answer.
type workItemsJSON struct {
	PageInfo  endPageInfo   `json:"pageInfo"`
	WorkItems []workItemRow `json:"work_items"`
}
