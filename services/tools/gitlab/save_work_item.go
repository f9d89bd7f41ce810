package gitlab

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// saveWorkItem is GitLab's save_work_item (GraphQL workItemCreate or
// workItemUpdate; aliases create_work_item and update_work_item).
func saveWorkItem(g *gitlab) tools.Definition {
	sw := saveWorkItemTool{store: bind(g.store, func(f Families) saveWorkItemStore {
		return saveWorkItemStore{f.Projects, f.Groups, f.Issues}
	}), links: g.links, inTx: g.inTx}
	strs := func(desc string) obj {
		return withDesc(obj{"type": "array", "items": obj{"type": "string", "minLength": 1, "maxLength": maxTitleLength},
			"maxItems": 100}, desc)
	}
	return tools.Definition{
		Name:  "save_work_item",
		Title: "Save work item",
		Description: "Create or update a GitLab work item, such as an issue, task or incident. Omit work_item_iid to create " +
			"a new work item; provide work_item_iid or a work item URL to update an existing one. Send only the fields you " +
			"intend to set, and omit the rest. Needs at least the Reporter role in the project.",
		InputSchema: argsSchema(sw.run, obj{
			"url": urlProp("GitLab URL for the project, group, or work item. Provide exactly one of url, project_id, or group_id."),
			"group_id": refProp("ID or path of the group. Required if url and project_id are not provided (group-level work " +
				"items are not available on this instance)."),
			"project_id":    refProp("ID or path of the project. Required if url and group_id are not provided."),
			"work_item_iid": withDesc(obj{"type": "integer", "minimum": 0}, "Positive internal ID of the work item to update. Omit (or 0) to create a new work item."),
			"title":         strProp("Title (at most 255 characters). Required on create.", 1, maxTitleLength),
			"type_name": strProp("Work item type name, for example \"Issue\", \"Task\", \"Incident\". Required on create. "+
				"Valid types depend on the endpoint (get_work_item_types lists them); invalid values return the list of valid ones.", 1, 100),
			"description": strProp("Description in GitLab Flavored Markdown (max 1048576 characters). Lines beginning with \"/\" "+
				"are rejected to avoid triggering quick actions. Use add_labels, assignee_ids, and the other fields instead.", 0, maxDescriptionLength),
			"assignee_ids": withDesc(obj{"type": "array", "items": obj{"type": "integer", "minimum": 1}, "maxItems": 100},
				"User IDs to assign to the work item (project members); replaces the assignees. An empty array unassigns everyone."),
			"label_ids":        strs("Label IDs or global IDs. Create only; on update use add_label_ids/remove_label_ids."),
			"labels":           strs("Names of the project labels to set. Create only; on update use add_labels/remove_labels."),
			"add_label_ids":    strs("Update only. Label IDs or global IDs to add."),
			"add_labels":       strs("Update only. Names of the labels to add."),
			"remove_label_ids": strs("Update only. Label IDs or global IDs to remove."),
			"remove_labels":    strs("Update only. Names of the labels to remove."),
			"milestone_id":     strProp("ID or global ID of the project milestone to assign. Wins over milestone when both are given.", 1, 200),
			"milestone":        strProp("Title of the project milestone to assign.", 1, maxTitleLength),
			"confidential":     boolProp("Sets the work item confidentiality."),
			"start_date":       strProp("Start date, YYYY-MM-DD (\"\" clears it).", 0, 10),
			"due_date":         strProp("Due date, YYYY-MM-DD (\"\" clears it).", 0, 10),
			"state":            enumProp("Update only. closed closes the work item, opened reopens it.", "opened", "closed"),
			"parent_id":        strProp("Global ID or numeric ID of the parent work item (hierarchy): a work item of the same project whose type may hold this one (a Task under an Issue, Incident or Ticket). \"\" removes the parent (update only).", 0, 200),
			"todo_action":      enumProp("Update only. add adds a to-do for the current user, mark_as_done marks to-dos as done. Not available on this instance.", "add", "mark_as_done"),
			"todo_id":          strProp("Update only. Global ID or numeric ID of the to-do; omit to update all to-dos on the work item.", 1, 200),
		}),
		OutputSchema: tools.OutputSchemaOf[savedWorkItemJSON](),
		Annotations:  writeTool("Save work item"),
		Toolset:      models.ToolsetWorkItems,
		Edition:      models.EditionCE,
		Source:       "app/services/mcp/tools/work_items/save_work_item_service.rb",
		Aliases:      []string{"create_work_item", "update_work_item"},
		// The project or group to create in, or the work item to update,
		// looked up once (findSaveWorkItemTarget): the tool rules and the
		// tool read it.
		Target: g.lookupTarget(sw.findSaveWorkItemTarget),
		Run:    tools.Typed(sw.run),
	}
}

// saveWorkItemStore is what save_work_item reads outside its
// transaction: the project, group or work item it acts on (its lookup
// target) and the work item types.
type saveWorkItemStore struct {
	projectLookup
	groupLookup
	saveWorkItemIssues
}

// saveWorkItemIssues is what save_work_item reads of Issues first.
type saveWorkItemIssues interface {
	issueLoader
	workItemTypeLister
}

// saveWorkItemWriteStore is what save_work_item reads and writes in its
// transaction.
type saveWorkItemWriteStore struct {
	saveWorkItemWrites
	userByID
	roleReader
}

// saveWorkItemWrites is what save_work_item reads and writes of Issues in
// its transaction.
type saveWorkItemWrites interface {
	labelFinder
	milestoneFinder
	parentFinder
	CreateWorkItem(ctx context.Context, i *models.Issue, parentID *int64) error
	UpdateWorkItem(ctx context.Context, id int64, u models.WorkItemUpdate) (*models.Issue, error)
}

// saveWorkItemTool is save_work_item with what it needs: the store to
// look up and its transactions to write in, and the links of its answer.
type saveWorkItemTool struct {
	store *saveWorkItemStore // nil: no store (a catalog built without one)
	links links
	inTx  InTx
}

// saveWorkItemTarget is where save_work_item acts: the project it creates
// in, or the work item it updates with its project.
type saveWorkItemTarget struct {
	pa    *projectAccess
	issue *models.Issue
}

// findSaveWorkItemTarget is save_work_item's lookupFunc: the lookups
// createWorkItem and updateWorkItem made themselves, in their words.
func (sw saveWorkItemTool) findSaveWorkItemTarget(ctx context.Context, u *models.User, call *tools.Call) (any, *projectAccess, *models.Group, error) {
	args, err := tools.Args[saveWorkItemArgs](call)
	if err != nil {
		return nil, nil, nil, err
	}
	if args.update() {
		ref := workItemArgs{URL: args.URL, GroupID: args.GroupID, ProjectID: args.ProjectID, WorkItemIID: args.WorkItemIID}
		if ref.URL != "" {
			ref.WorkItemIID = nil // the URL names the work item
		}
		pa, grp, issue, err := findWorkItem(ctx, sw.store, sw.links.base, u, &ref)
		return &saveWorkItemTarget{pa: pa, issue: issue}, pa, grp, err
	}
	ref, field, group := refArg(""), "project_id", false
	switch {
	case args.URL != "":
		path, isGroup, err := parseNamespaceURL(sw.links.base, args.URL)
		if err != nil {
			return nil, nil, nil, err
		}
		ref, field, group = refArg(path), "url", isGroup
	case args.ProjectID != nil:
		ref = *args.ProjectID
	case args.GroupID != nil:
		ref, field, group = *args.GroupID, "group_id", true
	default:
		return nil, nil, nil, invalidf("Must provide either project_id or group_id")
	}
	if group {
		grp, err := resolveGroup(ctx, sw.store, u, field, ref)
		if err != nil {
			return nil, nil, nil, err
		}
		return nil, nil, grp, invalidf("group-level work items (epics) are not available on this instance: create the work item in a project (project_id)")
	}
	pa, err := resolveProject(ctx, sw.store, u, field, ref)
	if err != nil {
		return nil, nil, nil, err
	}
	return &saveWorkItemTarget{pa: pa}, pa, nil, nil
}

// update reports whether the arguments update a work item (an iid, or a
// work item URL) rather than create one.
func (a *saveWorkItemArgs) update() bool {
	return (a.WorkItemIID != nil && *a.WorkItemIID > 0) || updateIntentURL.MatchString(a.URL)
}

type saveWorkItemArgs struct {
	URL            string    `json:"url"`
	GroupID        *refArg   `json:"group_id"`
	ProjectID      *refArg   `json:"project_id"`
	WorkItemIID    *intArg   `json:"work_item_iid"`
	Title          *string   `json:"title"`
	TypeName       *string   `json:"type_name"`
	Description    *string   `json:"description"`
	AssigneeIDs    *[]intArg `json:"assignee_ids"`
	LabelIDs       *[]string `json:"label_ids"`
	Labels         *[]string `json:"labels"`
	AddLabelIDs    *[]string `json:"add_label_ids"`
	AddLabels      *[]string `json:"add_labels"`
	RemoveLabelIDs *[]string `json:"remove_label_ids"`
	RemoveLabels   *[]string `json:"remove_labels"`
	MilestoneID    *string   `json:"milestone_id"`
	Milestone      *string   `json:"milestone"`
	Confidential   *bool     `json:"confidential"`
	StartDate      *string   `json:"start_date"`
	DueDate        *string   `json:"due_date"`
	State          *string   `json:"state"`
	ParentID       *string   `json:"parent_id"`
	TodoAction     *string   `json:"todo_action"`
	TodoID         *string   `json:"todo_id"`
}

// updateIntentURL: a work item URL means update, so an unrecognized item
// URL fails instead of creating a duplicate (GitLab's UPDATE_INTENT_URL).
var updateIntentURL = regexp.MustCompile(`/-/(?:work_items|issues|epics)/\d+(?:[/?#]|$)`)

// savedWorkItemJSON is save_work_item's answer (GitLab's format_work_item).
type savedWorkItemJSON struct {
	ID           string `json:"id"`
	IID          string `json:"iid"`
	Type         string `json:"type"`
	Title        string `json:"title"`
	State        string `json:"state"`
	Confidential bool   `json:"confidential"`
	WebURL       string `json:"web_url"`
}

func (sw saveWorkItemTool) run(ctx context.Context, call *tools.Call, args saveWorkItemArgs) (*tools.Result, error) {
	if sw.store == nil {
		return nil, errNoStore
	}
	u, err := callerOf(call)
	if err != nil {
		return nil, err
	}
	var given []string
	for _, id := range []struct {
		name string
		set  bool
	}{{"url", args.URL != ""}, {"project_id", args.ProjectID != nil}, {"group_id", args.GroupID != nil}} {
		if id.set {
			given = append(given, id.name)
		}
	}
	if len(given) > 1 {
		return nil, invalidf("Provide exactly one of url, project_id, or group_id (got %s)", strings.Join(given, ", "))
	}
	update := args.update()
	if err := args.checkParams(update); err != nil {
		return nil, err
	}
	start, err := parseDateArg("start_date", args.StartDate)
	if err != nil {
		return nil, err
	}
	due, err := parseDateArg("due_date", args.DueDate)
	if err != nil {
		return nil, err
	}
	var saved *models.Issue
	var pa *projectAccess
	if update {
		pa, saved, err = sw.updateWorkItem(ctx, call, u, args, start, due)
	} else {
		pa, saved, err = sw.createWorkItem(ctx, call, u, args, start, due)
	}
	if err != nil {
		return nil, err
	}
	return jsonResult(savedWorkItemJSON{ID: gid("WorkItem", saved.ID), IID: fmt.Sprint(saved.IID),
		Type: workItemTypeName(saved.WorkItemTypeID), Title: saved.Title, State: graphQLState(saved.State),
		Confidential: saved.Confidential, WebURL: sw.links.workItemURL(pa.project, saved.IID)})
}

// checkParams refuses what GitLab refuses before it resolves anything:
// create-only parameters on update and the reverse, a missing title or
// type on create, quick actions in the description; and what glmcp does
// not have (to-dos).
func (a *saveWorkItemArgs) checkParams(update bool) error {
	if update {
		for _, p := range []struct {
			name string
			set  bool
		}{{"type_name", a.TypeName != nil}, {"label_ids", a.LabelIDs != nil}, {"labels", a.Labels != nil}} {
			if p.set {
				return invalidf("%s can only be used when creating (omit work_item_iid)", p.name)
			}
		}
		if a.TodoID != nil && a.TodoAction == nil {
			return invalidf("todo_action is required when todo_id is provided")
		}
		if a.TodoAction != nil {
			return invalidf("todo_action: to-dos are not available on this instance")
		}
	} else {
		switch {
		case a.Title == nil || strings.TrimSpace(*a.Title) == "":
			return invalidf("title is required when creating a work item")
		case a.TypeName == nil || strings.TrimSpace(*a.TypeName) == "":
			return invalidf("type_name is required when creating a work item")
		}
		for _, p := range []struct {
			name string
			set  bool
		}{{"state", a.State != nil}, {"add_label_ids", a.AddLabelIDs != nil}, {"add_labels", a.AddLabels != nil},
			{"remove_label_ids", a.RemoveLabelIDs != nil}, {"remove_labels", a.RemoveLabels != nil},
			{"todo_action", a.TodoAction != nil}, {"todo_id", a.TodoID != nil}} {
			if p.set {
				return invalidf("%s can only be used when updating (provide work_item_iid)", p.name)
			}
		}
	}
	if a.Description != nil && quickAction.MatchString(*a.Description) {
		return invalidf("Quick actions (commands starting with /) are not allowed in description")
	}
	if a.Title != nil && utf8.RuneCountInString(strings.TrimSpace(*a.Title)) > maxTitleLength {
		return invalidf("title: is too long (at most %d characters)", maxTitleLength)
	}
	return nil
}

// createWorkItem creates the work item in the project the arguments name.
func (sw saveWorkItemTool) createWorkItem(ctx context.Context, call *tools.Call, u *models.User, args saveWorkItemArgs, start, due *models.Date) (*projectAccess, *models.Issue, error) {
	t, err := lookedUp[*saveWorkItemTarget](call)
	if err != nil {
		return nil, nil, err
	}
	pa := t.pa
	if !access.CanCreateWorkItem(u, pa.project, pa.level) {
		return nil, nil, forbiddenf("you need at least the Reporter role in project %s to create work items", pa.project.PathWithNamespace)
	}
	typ, err := sw.workItemTypeByName(ctx, call.Edition, *args.TypeName)
	if err != nil {
		return nil, nil, err
	}
	title, err := checkTitle(*args.Title)
	if err != nil {
		return nil, nil, err
	}
	if err := datesOrdered(start, due); err != nil {
		return nil, nil, err
	}
	i := &models.Issue{ProjectID: pa.project.ID, Title: title, State: models.IssueOpened, WorkItemTypeID: typ,
		AuthorID: u.ID, StartDate: start, DueDate: due}
	if args.Description != nil {
		i.Description = *args.Description
	}
	if args.Confidential != nil {
		i.Confidential = *args.Confidential
	}
	var saved *models.Issue
	err = sw.inTx(ctx, func(tx Families) error {
		st := saveWorkItemWriteStore{tx.Issues, tx.Users, tx.Groups}
		labels, err := resolveLabels(ctx, st, pa.project, "label_ids", listArg(args.LabelIDs), listArg(args.Labels))
		if err != nil {
			return err
		}
		i.Labels = models.StringList(labels)
		if args.MilestoneID != nil || args.Milestone != nil {
			id, err := resolveMilestone(ctx, st, pa.project, args.MilestoneID, args.Milestone)
			if err != nil {
				return err
			}
			i.MilestoneID = &id
		}
		if args.AssigneeIDs != nil {
			if i.Assignees, err = projectUsers(ctx, st, pa.project, "assignee_ids", *args.AssigneeIDs); err != nil {
				return err
			}
		}
		var parentID *int64
		if args.ParentID != nil && strings.TrimSpace(*args.ParentID) != "" {
			parent, err := resolveParentItem(ctx, st, u, pa, *args.ParentID, typ)
			if err != nil {
				return err
			}
			parentID = &parent.ID
		}
		if err := st.CreateWorkItem(ctx, i, parentID); err != nil {
			return err
		}
		saved, err = st.LoadIssue(ctx, pa.project.ID, i.IID)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return pa, saved, nil
}

// updateWorkItem applies the arguments to the work item they name.
func (sw saveWorkItemTool) updateWorkItem(ctx context.Context, call *tools.Call, u *models.User, args saveWorkItemArgs, start, due *models.Date) (*projectAccess, *models.Issue, error) {
	t, err := lookedUp[*saveWorkItemTarget](call)
	if err != nil {
		return nil, nil, err
	}
	pa, issue := t.pa, t.issue
	if !access.CanUpdateWorkItem(u, pa.project, issue, pa.level) {
		return nil, nil, forbiddenf("you need at least the Reporter role in project %s to update work items", pa.project.PathWithNamespace)
	}
	var upd models.WorkItemUpdate
	if args.Title != nil {
		title, err := checkTitle(*args.Title)
		if err != nil {
			return nil, nil, err
		}
		upd.Title = &title
	}
	upd.Description, upd.Confidential = args.Description, args.Confidential
	if args.State != nil {
		st := models.IssueState(*args.State)
		upd.State = &st
	}
	if args.StartDate != nil {
		upd.SetStartDate, upd.StartDate = true, start
	} else {
		start = issue.StartDate
	}
	if args.DueDate != nil {
		upd.SetDueDate, upd.DueDate = true, due
	} else {
		due = issue.DueDate
	}
	if err := datesOrdered(start, due); err != nil {
		return nil, nil, err
	}
	var saved *models.Issue
	err = sw.inTx(ctx, func(tx Families) error {
		st := saveWorkItemWriteStore{tx.Issues, tx.Users, tx.Groups}
		var err error
		if upd.AddLabels, err = resolveLabels(ctx, st, pa.project, "add_label_ids", listArg(args.AddLabelIDs), listArg(args.AddLabels)); err != nil {
			return err
		}
		if upd.RemoveLabels, err = resolveLabels(ctx, st, pa.project, "remove_label_ids", listArg(args.RemoveLabelIDs), listArg(args.RemoveLabels)); err != nil {
			return err
		}
		if args.MilestoneID != nil || args.Milestone != nil {
			id, err := resolveMilestone(ctx, st, pa.project, args.MilestoneID, args.Milestone)
			if err != nil {
				return err
			}
			upd.SetMilestone, upd.MilestoneID = true, &id
		}
		if args.AssigneeIDs != nil {
			users, err := projectUsers(ctx, st, pa.project, "assignee_ids", *args.AssigneeIDs)
			if err != nil {
				return err
			}
			ids := userIDs(users)
			upd.AssigneeIDs = &ids
		}
		if args.ParentID != nil {
			upd.SetParent = true
			if strings.TrimSpace(*args.ParentID) != "" {
				parent, err := resolveParentItem(ctx, st, u, pa, *args.ParentID, issue.WorkItemTypeID)
				if err != nil {
					return err
				}
				if parent.ID == issue.ID {
					return invalidf("parent_id: a work item cannot be its own parent")
				}
				upd.ParentID = &parent.ID
			}
		}
		if _, err := st.UpdateWorkItem(ctx, issue.ID, upd); err != nil {
			return err
		}
		saved, err = st.LoadIssue(ctx, pa.project.ID, issue.IID)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return pa, saved, nil
}

// workItemTypeByName finds a project-level type of the edition by name,
// case-insensitively, or lists the valid ones.
func (sw saveWorkItemTool) workItemTypeByName(ctx context.Context, edition models.Edition, name string) (models.WorkItemTypeID, error) {
	types, err := sw.store.ListWorkItemTypes(ctx, edition)
	if err != nil {
		return 0, err
	}
	var valid []string
	for _, t := range types {
		if t.GroupLevel {
			continue
		}
		if strings.EqualFold(t.Name, strings.TrimSpace(name)) {
			return t.ID, nil
		}
		valid = append(valid, t.Name)
	}
	return 0, invalidf("Work item type '%s' not found. Valid types: %s", name, strings.Join(valid, ", "))
}

func datesOrdered(start, due *models.Date) error {
	if start != nil && due != nil && start.After(due.Time) {
		return invalidf("start_date %s is after due_date %s", start, due)
	}
	return nil
}

func userIDs(us []models.User) []int64 {
	out := make([]int64, 0, len(us))
	for _, u := range us {
		out = append(out, u.ID)
	}
	return out
}

// listArg is the slice p points to (nil when absent).
func listArg[T any](p *[]T) []T {
	if p == nil {
		return nil
	}
	return *p
}
