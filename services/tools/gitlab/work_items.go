package gitlab

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"gitlab.com/glmcp/glmcp/internal/cursor"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
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

var workItemPath = regexp.MustCompile(`^(groups/)?(.+?)/-/(?:work_items|issues|epics)/(\d+)/?$`)

// workItemFinder is what findWorkItem reads: the project or group the
// arguments name and the issue there.
type workItemFinder interface {
	projectLookup
	groupLookup
	issueLoader
}

// findWorkItem finds the work item a names that u may read, and where it
// lives when the caller can see that project (pa) or group, whether or not
// the work item is there: the place the tool rules govern. base is the
// instance's public URL, whose path a URL argument may start with.
func findWorkItem(ctx context.Context, st workItemFinder, base string, u *models.User, a *workItemArgs) (*projectAccess, *models.Group, *models.Issue, error) {
	var (
		group   bool
		ref     refArg
		iid     int64
		missing = notFound("Work Item")
	)
	switch {
	case a.URL != "" && (a.GroupID != nil || a.ProjectID != nil || a.WorkItemIID != nil):
		return nil, nil, nil, invalidf("provide either url, or project_id (or group_id) and work_item_iid, not both")
	case a.URL != "":
		path, n, isGroup, err := parseWorkItemURL(base, a.URL)
		if err != nil {
			return nil, nil, nil, err
		}
		ref, iid, group = refArg(path), n, isGroup
	case a.GroupID != nil && a.ProjectID != nil:
		return nil, nil, nil, invalidf("provide project_id or group_id, not both")
	case a.GroupID == nil && a.ProjectID == nil:
		return nil, nil, nil, invalidf("provide url, or project_id (or group_id) and work_item_iid")
	case a.WorkItemIID == nil:
		return nil, nil, nil, invalidf("work_item_iid: required when url is missing")
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
		grp, err := resolveGroup(ctx, st, u, field, ref)
		if err != nil {
			return nil, nil, nil, err
		}
		return nil, grp, nil, missing // no group-level work items
	}
	pa, err := resolveProject(ctx, st, u, field, ref)
	if err != nil {
		return nil, nil, nil, err
	}
	issue, err := readableIssue(ctx, st, u, pa, iid, missing)
	if err != nil {
		return pa, nil, nil, err
	}
	return pa, nil, issue, nil
}

// parseWorkItemURL returns the project (or group) path and iid of a work
// item URL. As in GitLab, the host is not checked; a relative URL root of
// the public URL base ("/gitlab") is stripped.
func parseWorkItemURL(base, raw string) (path string, iid int64, group bool, err error) {
	u, perr := url.Parse(strings.TrimSpace(raw))
	if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", 0, false, invalidf("url: %q is not an http(s) URL", raw)
	}
	p := u.Path
	if bu, berr := url.Parse(base); berr == nil && bu.Path != "" && bu.Path != "/" {
		root := strings.TrimRight(bu.Path, "/")
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

// cursorPageInfo is GraphQL's PageInfo, as GitLab's work item tools return
// it.
type cursorPageInfo struct {
	HasNextPage     bool    `json:"hasNextPage"`
	HasPreviousPage bool    `json:"hasPreviousPage"`
	StartCursor     *string `json:"startCursor"`
	EndCursor       *string `json:"endCursor"`
}

// graphQLState is GitLab's IssueStateEnum value of a work item state.
func graphQLState(s models.IssueState) string {
	if s == models.IssueClosed {
		return "CLOSED"
	}
	return "OPEN"
}

func workItemTypeName(id models.WorkItemTypeID) string { return workItemTypeNamesByID[id] }

var workItemTypeNamesByID = map[models.WorkItemTypeID]string{
	models.TypeIssue: "Issue", models.TypeIncident: "Incident", models.TypeTestCase: "Test Case",
	models.TypeRequirement: "Requirement", models.TypeTask: "Task", models.TypeObjective: "Objective",
	models.TypeKeyResult: "Key Result", models.TypeEpic: "Epic", models.TypeTicket: "Ticket",
}

type workItemTypeRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// namespaceFinder finds the project or group a namespace argument names
// (findNamespace).
type namespaceFinder interface {
	projectLookup
	groupLookup
}

// namespaceArgs name the project or group a work item listing reads, as
// GitLab's work item tools do: exactly one of url, project_id and
// group_id.
type namespaceArgs struct {
	URL       string  `json:"url"`
	GroupID   *refArg `json:"group_id"`
	ProjectID *refArg `json:"project_id"`
}

// findNamespace is the lookupFunc of the tools that read a project's or a
// group's work items (list_work_items, get_work_item_types): the project
// (with u's role) or the group a names, checking u may see it. A URL names
// a project when u can see one at its path, else a group.
// A is the tool's own arguments (embedding namespaceArgs), so the lookup
// and the run share one decode (tools.Args).
func findNamespace[A namesNamespace](st namespaceFinder) lookupFunc {
	return func(ctx context.Context, u *models.User, call *tools.Call) (any, *projectAccess, *models.Group, error) {
		args, err := tools.Args[A](call)
		if err != nil {
			return nil, nil, nil, err
		}
		a := args.namespace()
		pa, grp, err := a.find(ctx, st, u)
		if err != nil {
			return nil, nil, nil, err
		}
		return &workItemScope{pa: pa, group: grp}, pa, grp, nil
	}
}

// namesNamespace is a tool's arguments that name a project or a group
// (they embed namespaceArgs).
type namesNamespace interface{ namespace() namespaceArgs }

func (a namespaceArgs) namespace() namespaceArgs { return a }

func (a *namespaceArgs) find(ctx context.Context, st namespaceFinder, u *models.User) (*projectAccess, *models.Group, error) {
	projectID, groupID := a.ProjectID, a.GroupID
	given := 0
	for _, set := range []bool{a.URL != "", projectID != nil, groupID != nil} {
		if set {
			given++
		}
	}
	if given != 1 {
		return nil, nil, invalidf("Provide exactly one of url, project_id, or group_id")
	}
	if a.URL != "" {
		pu, err := url.Parse(strings.TrimSpace(a.URL))
		if err != nil || pu.Host == "" {
			return nil, nil, invalidf("url: %q is not an http(s) URL", a.URL)
		}
		path, _, _ := strings.Cut(strings.Trim(pu.Path, "/"), "/-/")
		if grp, ok := strings.CutPrefix(path, "groups/"); ok {
			ref := refArg(grp)
			groupID = &ref
		} else {
			ref := refArg(path)
			if pa, err := resolveProject(ctx, st, u, "url", ref); err == nil {
				return pa, nil, nil
			}
			groupID = &ref
		}
	}
	if projectID != nil {
		pa, err := resolveProject(ctx, st, u, "project_id", *projectID)
		if err != nil {
			return nil, nil, err
		}
		return pa, nil, nil
	}
	grp, err := resolveGroup(ctx, st, u, "group_id", *groupID)
	if err != nil {
		return nil, nil, err
	}
	return nil, grp, nil
}

// workItemScope is the project or the group findNamespace found.
type workItemScope struct {
	pa    *projectAccess
	group *models.Group
}

// scope points q at the project or group.
func (s *workItemScope) scope(q *models.WorkItemQuery) {
	if s.pa != nil {
		q.ProjectID = s.pa.project.ID
		return
	}
	q.GroupPath = s.group.FullPath
}

func (l links) workItemURL(p *models.Project, iid int64) string {
	return fmt.Sprintf("%s/-/work_items/%d", l.projectURL(p), iid)
}

// workItemNotesPager binds the cursors of a work item's notes (minted here
// and by get_work_item's notes facet, which continues here).
func workItemNotesPager(cursors *cursor.Signer, call *tools.Call, issue *models.Issue) pager {
	return newPager(cursors, call, "get_workitem_notes", "issue:"+strconv.FormatInt(issue.ID, 10), nil)
}
