package gitlab

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"gitlab.com/glmcp/glmcp/internal/cursor"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// workItemNotesFacet is how many notes the notes facet returns by default:
// GitLab's query asks for notes(first: 100).
const workItemNotesFacet = 100

// workItemFacets are get_work_item's include values (GitLab 19.5).
var workItemFacets = []string{"notes", "discussions", "related_merge_requests"}

// workItemNotesFilters are discussions_filter's values, GitLab's
// NotesFilterType in lower case.
var workItemNotesFilters = []string{"all_notes", "only_comments", "only_activity"}

// notesFilters maps discussions_filter's values to the store's.
var notesFilters = map[string]models.NotesFilter{"all_notes": models.AllNotes, "only_comments": models.OnlyComments,
	"only_activity": models.OnlyActivity}

// getWorkItem is GitLab's get_work_item (GraphQL workItem, with the notes
// and development widgets as facets).
func getWorkItem(g *gitlab) tools.Definition {
	t := getWorkItemTool{store: bind(g.store, func(f Families) getWorkItemStore {
		return getWorkItemStore{f.Issues, f.Notes, f.MergeRequests, f.Groups}
	}), links: g.links, cursors: g.cursors}
	props := workItemProps()
	props["include"] = withDesc(obj{"type": "array", "items": obj{"type": "string", "enum": workItemFacets},
		"maxItems": 1}, "Associated data to return with the work item, one facet per call. notes returns the first 100 notes "+
		"and pages with notes_first/notes_after or notes_last/notes_before (pageInfo.endCursor also continues with "+
		"get_workitem_notes' after). discussions returns the threads, 20 by default, paged with discussions_first/"+
		"discussions_after and filtered with discussions_filter. related_merge_requests pages with the parameters below.")
	props["notes_first"] = withDesc(obj{"type": "integer", "minimum": 1, "maximum": maxPerPage},
		"Number of notes to return after the cursor (forward pagination). Default 100, max 100. Applies only when notes is in include.")
	props["notes_after"] = cursorProp("notes", "pageInfo.endCursor", "notes is in include")
	props["notes_last"] = withDesc(obj{"type": "integer", "minimum": 1, "maximum": maxPerPage},
		"Number of notes to return before the cursor (backward pagination). Default 100, max 100. Applies only when notes is in include.")
	props["notes_before"] = cursorProp("notes", "pageInfo.startCursor", "notes is in include")
	props["discussions_first"] = firstProp("discussions", "discussions_", "discussions is in include")
	props["discussions_after"] = cursorProp("discussions", "pageInfo.endCursor", "discussions is in include")
	props["discussions_filter"] = enumProp("Which notes the discussions hold: all_notes (default), only_comments (no system "+
		"notes) or only_activity (system notes only). Applies only when discussions is in include.", workItemNotesFilters...)
	props["related_merge_requests_first"] = withDesc(obj{"type": "integer", "minimum": 1, "maximum": maxPerPage},
		"Number of related merge requests to return. Default 20, max 100. Applies only when related_merge_requests is in include.")
	props["related_merge_requests_after"] = strProp("Cursor for forward pagination of related merge requests. Use endCursor "+
		"from the previous response. Applies only when related_merge_requests is in include.", 1, maxCursorLen)
	props["mr_page_size"] = withDesc(obj{"type": "integer", "minimum": 1, "maximum": maxPerPage},
		"DEPRECATED: use related_merge_requests_first instead.")
	props["mr_pagination_cursor"] = strProp("DEPRECATED: use related_merge_requests_after instead.", 1, maxCursorLen)
	return tools.Definition{
		Name:  "get_work_item",
		Title: "Get work item",
		Description: "Get a single work item (issue, task, incident, …) with its type, dates, assignees, labels, milestone, " +
			"and parent. Optionally include its notes or the merge requests related to it. Identify the work item by url, " +
			"or by work_item_iid plus project_id. Widgets the work item type does not support are omitted.",
		InputSchema:  argsSchema(t.run, props),
		OutputSchema: tools.OutputSchemaOf[workItemDetailJSON](),
		Annotations:  readOnlyTool("Get work item"),
		Toolset:      models.ToolsetWorkItems,
		Edition:      models.EditionCE,
		Source:       "app/services/mcp/tools/work_items/get_work_item_service.rb",
		Target:       workItemTarget[getWorkItemArgs](g, access.ReadWorkItem),
		Run:          tools.Typed(t.run),
	}
}

// getWorkItemStore is what get_work_item reads besides its target: the
// work item's labels, milestone, hierarchy, notes, discussions and
// related merge requests, and the roles lockdown reads.
type getWorkItemStore struct {
	getWorkItemIssueReads
	getWorkItemNoteReads
	getWorkItemMRReads
	projectRolesStore
}

// getWorkItemIssueReads is what get_work_item reads of Issues.
type getWorkItemIssueReads interface {
	issueLoader
	FindLabelsByName(ctx context.Context, projectID int64, names []string) ([]models.Label, error)
	FindMilestone(ctx context.Context, projectID, id int64) (*models.Milestone, error)
	WorkItemHasChildren(ctx context.Context, id int64) (bool, error)
	WorkItemParent(ctx context.Context, id int64) (*models.Issue, error)
}

// getWorkItemNoteReads is what get_work_item reads of Notes.
type getWorkItemNoteReads interface {
	notesPage
	CountNotes(ctx context.Context, typ models.NoteableType, noteableID int64, includeInternal bool) (int64, error)
}

// getWorkItemMRReads is what get_work_item reads of MergeRequests.
type getWorkItemMRReads interface {
	discussionsPage
	RelatedMergeRequests(ctx context.Context, projectID, iid, afterID int64, limit int) ([]models.MergeRequest, bool, error)
}

// getWorkItemTool is get_work_item with what it needs: the store, the
// links its answers carry and the cursor signer of its facets' pages.
type getWorkItemTool struct {
	store   *getWorkItemStore // nil: no store (a catalog built without one)
	links   links
	cursors *cursor.Signer
}

type getWorkItemArgs struct {
	workItemArgs
	Include                   []string `json:"include"`
	RelatedMergeRequestsFirst *intArg  `json:"related_merge_requests_first"`
	RelatedMergeRequestsAfter string   `json:"related_merge_requests_after"`
	MRPageSize                *intArg  `json:"mr_page_size"`
	MRPaginationCursor        string   `json:"mr_pagination_cursor"`
	NotesFirst                intArg   `json:"notes_first"`
	NotesAfter                string   `json:"notes_after"`
	NotesLast                 intArg   `json:"notes_last"`
	NotesBefore               string   `json:"notes_before"`
	DiscussionsFirst          intArg   `json:"discussions_first"`
	DiscussionsAfter          string   `json:"discussions_after"`
	DiscussionsFilter         string   `json:"discussions_filter"`
}

func (t getWorkItemTool) run(ctx context.Context, call *tools.Call, args getWorkItemArgs) (*tools.Result, error) {
	if t.store == nil {
		return nil, errNoStore
	}
	u, err := callerOf(call)
	if err != nil {
		return nil, err
	}
	facet := ""
	if len(args.Include) > 0 {
		facet = args.Include[0]
	}
	// The canonical parameters win over the deprecated aliases.
	first, after := args.RelatedMergeRequestsFirst, args.RelatedMergeRequestsAfter
	if first == nil {
		first = args.MRPageSize
	}
	if after == "" {
		after = args.MRPaginationCursor
	}
	if facet != "related_merge_requests" && (first != nil || after != "") {
		return nil, invalidf("related_merge_requests_first and related_merge_requests_after (mr_page_size, " +
			"mr_pagination_cursor) apply only when include is [\"related_merge_requests\"]")
	}
	// Like the related merge requests', the notes and discussions
	// parameters of a facet not asked for are refused (GitLab ignores
	// them), so a mistyped call does not silently return the base view.
	notes := noteWindow{args.NotesFirst, args.NotesAfter, args.NotesLast, args.NotesBefore, "notes_"}
	if facet != "notes" && (notes.first != 0 || notes.after != "" || notes.last != 0 || notes.before != "") {
		return nil, invalidf("notes_first, notes_after, notes_last and notes_before apply only when include is [\"notes\"]")
	}
	if facet != "discussions" && (args.DiscussionsFirst != 0 || args.DiscussionsAfter != "" || args.DiscussionsFilter != "") {
		return nil, invalidf("discussions_first, discussions_after and discussions_filter apply only when include is [\"discussions\"]")
	}
	if (notes.last != 0 || notes.before != "") && (notes.first != 0 || notes.after != "") {
		return nil, invalidf("Provide notes_first/notes_after or notes_last/notes_before, not both directions")
	}
	pa, issue, err := targetWorkItem(call)
	if err != nil {
		return nil, err
	}
	out, err := t.workItemDetail(ctx, u, pa, issue)
	if err != nil {
		return nil, err
	}
	switch facet {
	case "notes":
		w, err := t.workItemNotesWidget(ctx, call, u, pa, issue, notes)
		if err != nil {
			return nil, err
		}
		out.setWidget(w)
	case "discussions":
		name := args.DiscussionsFilter
		if name == "" {
			name = "all_notes"
		}
		filter, ok := notesFilters[name]
		if !ok { // the input schema's enum refuses it first
			return nil, invalidf("discussions_filter: %q is not one of %s", name, strings.Join(workItemNotesFilters, ", "))
		}
		// Each filter is its own list: a cursor of one does not page another.
		pages := newPager(t.cursors, call, "get_work_item", "issue:"+strconv.FormatInt(issue.ID, 10)+":discussions",
			obj{"discussions_filter": name})
		conn, err := discussionsPageOf(ctx, t.store, t.links, pages, u, pa, models.NoteableIssue, issue.ID, filter,
			args.DiscussionsFirst, args.DiscussionsAfter)
		if err != nil {
			return nil, err
		}
		out.setWidget(obj{"type": widgetNotes, "discussions": conn})
	case "related_merge_requests":
		// The list is the work item's related merge requests.
		pages := newPager(t.cursors, call, "get_work_item", "issue:"+strconv.FormatInt(issue.ID, 10)+":related_merge_requests", nil)
		afterID, err := pages.open("related_merge_requests_after", after)
		if err != nil {
			return nil, err
		}
		limit := defaultPerPage
		if first != nil {
			limit = int(*first)
		}
		w, err := t.relatedMergeRequestsWidget(ctx, pages, u, pa, issue, afterID, limit)
		if err != nil {
			return nil, err
		}
		out.setWidget(w)
	}
	return jsonResult(out)
}

// workItemDetailJSON is GitLab's WorkItem as get_work_item's query reads
// it.
type workItemDetailJSON struct {
	ID           string          `json:"id"`
	IID          string          `json:"iid"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	State        string          `json:"state"`
	Confidential bool            `json:"confidential"`
	CreatedAt    string          `json:"createdAt"`
	UpdatedAt    string          `json:"updatedAt"`
	ClosedAt     *string         `json:"closedAt"`
	WebURL       string          `json:"webUrl"`
	Reference    string          `json:"reference"`
	Author       *plainUserJSON  `json:"author"`
	Namespace    namespaceRef    `json:"namespace"`
	WorkItemType workItemTypeRef `json:"workItemType"`
	Widgets      []obj           `json:"widgets"`
}

type namespaceRef struct {
	ID       string `json:"id"`
	FullPath string `json:"fullPath"`
}

// setWidget replaces the widget of w's type.
func (d *workItemDetailJSON) setWidget(w obj) {
	for k := range d.Widgets {
		if d.Widgets[k]["type"] == w["type"] {
			d.Widgets[k] = w
			return
		}
	}
	d.Widgets = append(d.Widgets, w)
}

// workItemDetail builds the work item with its widgets (the notes and
// development widgets carry only their type; the facets fill them).
func (t getWorkItemTool) workItemDetail(ctx context.Context, u *models.User, pa *projectAccess, i *models.Issue) (*workItemDetailJSON, error) {
	p := pa.project
	w, err := newWithholder(ctx, t.store, pa, []int64{i.AuthorID})
	if err != nil {
		return nil, err
	}
	out := &workItemDetailJSON{ID: gid("WorkItem", i.ID), IID: fmt.Sprint(i.IID), Title: i.Title, Description: w.text(i.AuthorID, i.Description),
		State: graphQLState(i.State), Confidential: i.Confidential, CreatedAt: apiTime(i.CreatedAt), UpdatedAt: apiTime(i.UpdatedAt),
		ClosedAt: apiTimePtr(i.ClosedAt), WebURL: t.links.workItemURL(p, i.IID), Reference: fmt.Sprintf("%s#%d", p.PathWithNamespace, i.IID),
		Author:       t.links.gqlUser(i.Author),
		Namespace:    namespaceRef{ID: gid("Namespaces::ProjectNamespace", p.ID), FullPath: p.PathWithNamespace},
		WorkItemType: workItemTypeRef{ID: gid("WorkItems::Type", int64(i.WorkItemTypeID)), Name: workItemTypeName(i.WorkItemTypeID)}}
	for _, typ := range workItemWidgets(i.WorkItemTypeID) {
		w := obj{"type": typ}
		switch typ {
		case widgetAssignees:
			w["assignees"] = t.links.gqlUsers(i.Assignees)
		case widgetLabels:
			nodes, err := t.labelNodes(ctx, p.ID, i.Labels)
			if err != nil {
				return nil, err
			}
			w["labels"] = obj{"nodes": nodes}
		case widgetMilestone:
			w["milestone"] = nil
			if i.MilestoneID != nil {
				m, err := t.store.FindMilestone(ctx, p.ID, *i.MilestoneID)
				if err != nil && !errors.Is(err, models.ErrNotFound) {
					return nil, err
				}
				if m != nil {
					w["milestone"] = obj{"id": gid("Milestone", m.ID), "title": m.Title, "dueDate": m.DueDate, "startDate": m.StartDate}
				}
			}
		case widgetStartAndDueDate:
			w["dueDate"], w["startDate"] = i.DueDate, i.StartDate
		case widgetHierarchy:
			if err := t.hierarchyWidget(ctx, u, pa, i, w); err != nil {
				return nil, err
			}
		}
		out.Widgets = append(out.Widgets, w)
	}
	return out, nil
}

func (t getWorkItemTool) labelNodes(ctx context.Context, projectID int64, names models.StringList) ([]obj, error) {
	nodes := make([]obj, 0, len(names))
	if len(names) == 0 {
		return nodes, nil
	}
	labels, err := t.store.FindLabelsByName(ctx, projectID, names)
	if err != nil {
		return nil, err
	}
	byName := map[string]models.Label{}
	for _, l := range labels {
		byName[l.Name] = l
	}
	for _, n := range names {
		l, ok := byName[n]
		if !ok {
			continue
		}
		nodes = append(nodes, obj{"id": gid("ProjectLabel", l.ID), "title": l.Name, "color": l.Color, "description": l.Description})
	}
	return nodes, nil
}

// hierarchyWidget fills the hierarchy widget: the parent when u may read
// it, and whether children exist.
func (t getWorkItemTool) hierarchyWidget(ctx context.Context, u *models.User, pa *projectAccess, i *models.Issue, w obj) error {
	children, err := t.store.WorkItemHasChildren(ctx, i.ID)
	if err != nil {
		return err
	}
	parent, err := t.store.WorkItemParent(ctx, i.ID)
	if err != nil {
		return err
	}
	w["hasChildren"], w["hasParent"], w["parent"] = children, parent != nil, nil
	if parent == nil {
		return nil
	}
	full, err := readableIssue(ctx, t.store, u, pa, parent.IID, nil)
	switch {
	case err != nil:
		return err
	case full != nil:
		w["parent"] = obj{"id": gid("WorkItem", full.ID), "iid": fmt.Sprint(full.IID), "title": full.Title,
			"webUrl": t.links.workItemURL(pa.project, full.IID)}
	}
	return nil
}

// workItemNotesWidget is the notes facet: a page of the notes u may read,
// oldest first, the first 100 by default. Its cursors are
// get_workitem_notes' too, so the listing can continue there.
func (t getWorkItemTool) workItemNotesWidget(ctx context.Context, call *tools.Call, u *models.User, pa *projectAccess, i *models.Issue, w noteWindow) (obj, error) {
	internal := access.CanReadInternalNote(u, pa.level)
	pages := workItemNotesPager(t.cursors, call, i)
	q := models.NotePageQuery{NoteableType: models.NoteableIssue, NoteableID: i.ID, IncludeInternal: internal,
		Limit: workItemNotesFacet}
	var err error
	if q.AfterID, err = pages.open(w.prefix+"after", w.after); err != nil {
		return nil, err
	}
	if q.BeforeID, err = pages.open(w.prefix+"before", w.before); err != nil {
		return nil, err
	}
	switch {
	case w.first != 0:
		q.Limit = int(w.first)
	case w.last != 0:
		q.Limit, q.FromEnd = int(w.last), true
	case q.BeforeID > 0:
		q.FromEnd = true
	}
	page, err := t.store.PageNotes(ctx, q)
	if err != nil {
		return nil, err
	}
	if err := withholdNotes(ctx, t.store, pa, page.Notes); err != nil {
		return nil, err
	}
	count, err := t.store.CountNotes(ctx, models.NoteableIssue, i.ID, internal)
	if err != nil {
		return nil, err
	}
	nodes := make([]obj, 0, len(page.Notes))
	for k := range page.Notes {
		n := &page.Notes[k]
		nodes = append(nodes, obj{"id": gid("Note", n.ID), "body": n.Body, "internal": n.Internal, "system": n.System,
			"systemNoteIconName": nil, "createdAt": apiTime(n.CreatedAt), "updatedAt": apiTime(n.UpdatedAt),
			"author": t.links.gqlUser(n.Author), "discussion": obj{"id": "gid://gitlab/Discussion/" + n.DiscussionID}})
	}
	pi := pageInfoJSON{HasNextPage: page.HasNext, HasPreviousPage: page.HasPrevious}
	if n := len(page.Notes); n > 0 {
		start, end := pages.mint(page.Notes[0].ID), pages.mint(page.Notes[n-1].ID)
		pi.StartCursor, pi.EndCursor = &start, &end
	}
	return obj{"type": widgetNotes, "notes": obj{"pageInfo": pi, "count": count, "nodes": nodes}}, nil
}

// relatedMergeRequestsWidget is the development facet: the project's merge
// requests that reference the work item, when u may read merge requests.
func (t getWorkItemTool) relatedMergeRequestsWidget(ctx context.Context, pages pager, u *models.User, pa *projectAccess, i *models.Issue, afterID int64, limit int) (obj, error) {
	nodes := []obj{}
	more := false
	var mrs []models.MergeRequest
	if access.CanReadCode(u, pa.project, pa.level) {
		var err error
		if mrs, more, err = t.store.RelatedMergeRequests(ctx, pa.project.ID, i.IID, afterID, limit); err != nil {
			return nil, err
		}
	}
	for k := range mrs {
		mr := &mrs[k]
		var author obj
		if mr.Author != nil {
			author = obj{"id": gid("User", mr.Author.ID), "name": mr.Author.Name, "username": mr.Author.Username}
		}
		nodes = append(nodes, obj{"id": gid("MergeRequest", mr.ID), "iid": fmt.Sprint(mr.IID), "title": mr.Title,
			"state": string(mr.State), "draft": mr.Draft, "webUrl": fmt.Sprintf("%s/-/merge_requests/%d", t.links.projectURL(pa.project), mr.IID),
			"createdAt": apiTime(mr.CreatedAt), "mergedAt": apiTimePtr(mr.MergedAt), "author": author})
	}
	var end *string
	if n := len(mrs); n > 0 {
		c := pages.mint(mrs[n-1].ID)
		end = &c
	}
	return obj{"type": widgetDevelopment, "relatedMergeRequests": obj{"pageInfo": obj{"hasNextPage": more, "endCursor": end},
		"nodes": nodes}}, nil
}
