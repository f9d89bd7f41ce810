package gitlab

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"gitlab.com/glmcp/glmcp/internal/cursor"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// listMergeRequests is GitLab 19.5's list_merge_requests (GraphQL-backed:
// first/after).
func listMergeRequests(g *gitlab) tools.Definition {
	t := listMRTool{links: g.links, cursors: g.cursors}
	if !noStore(g.store) {
		t.store = &listMRStore{directory{g.store.Projects, g.store.Groups, g.store.Users}, g.store.Users, g.store.Issues, g.store.MergeRequests}
	}
	return tools.Definition{
		Name:  "list_merge_requests",
		Title: "List merge requests",
		Description: "List or search merge requests in a GitLab project or group by author, assignee, reviewer, " +
			"state, milestone, labels, or text. Identify the project or group with exactly one of url, project_id " +
			"or group_id. Returns compact merge request metadata, newest first; use get_merge_request for the full " +
			"detail of a single merge request, or search for full-text search across resource types.",
		InputSchema: argsSchema(t.run, obj{
			"url":               urlProp("GitLab URL of the project or group."),
			"project_id":        projectRefProp("ID or full path of the project."),
			"group_id":          refProp("ID or full path of the group (its projects and subgroups' projects)."),
			"author_username":   strProp("Filter by the username of the merge request author.", 1, 255),
			"assignee_username": strProp("Filter by the username of an assignee.", 1, 255),
			"reviewer_username": strProp("Filter by the username of a reviewer.", 1, 255),
			"state": enumProp("Filter by merge request state. Omit to include merge requests in any state.",
				"opened", "closed", "merged", "locked", "all"),
			"scope": enumProp("Filter relative to the authenticated user: created_by_me sets author_username, "+
				"assigned_to_me sets assignee_username, review_requested sets reviewer_username. An explicit "+
				"username wins for that field.", "created_by_me", "assigned_to_me", "review_requested"),
			"milestone": strProp("Filter by the title of the milestone.", 1, 255),
			"labels":    strProp("Comma-separated list of label names. Only merge requests with all of these labels are returned.", 1, 4096),
			"search":    strProp("Search query matched against merge request title and description.", 1, 255),
			"after":     cursorProp("merge requests", "endCursor", ""),
			"first":     withDesc(obj{"type": "integer", "minimum": 1, "maximum": maxPerPage}, "Number of merge requests to return (forward pagination, default 20, max 100)."),
		}),
		OutputSchema: tools.OutputSchemaOf[mrListJSON](),
		Annotations:  readOnlyTool("List merge requests"),
		Toolset:      models.ToolsetMergeRequests,
		Edition:      models.EditionCE,
		Source:       "app/services/mcp/tools/merge_requests/list_merge_requests_tool.rb",
		Aliases:      []string{"gitlab_merge_request_search"},
		Run:          tools.Typed(t.run),
	}
}

// listMRStore is what list_merge_requests reads: the project or group it
// lists (their family), the users and milestone it filters by, and the
// merge requests.
type listMRStore struct {
	directory
	userByUsername
	milestoneByTitle
	mrLister
}

// milestoneByTitle finds a milestone by title (Issues).
type milestoneByTitle interface {
	FindMilestoneByTitle(ctx context.Context, projectID int64, title string) (*models.Milestone, error)
}

// mrLister lists merge requests (MergeRequests).
type mrLister interface {
	ListMergeRequests(ctx context.Context, q models.MergeRequestQuery) ([]models.MergeRequest, bool, error)
}

// listMRTool is list_merge_requests with what it needs: the store, the
// links its merge requests carry and the cursor signer.
type listMRTool struct {
	store   *listMRStore // nil: no store (a catalog built without one)
	links   links
	cursors *cursor.Signer
}

type listMRArgs struct {
	URL              string `json:"url"`
	ProjectID        refArg `json:"project_id"`
	GroupID          refArg `json:"group_id"`
	AuthorUsername   string `json:"author_username"`
	AssigneeUsername string `json:"assignee_username"`
	ReviewerUsername string `json:"reviewer_username"`
	State            string `json:"state"`
	Scope            string `json:"scope"`
	Milestone        string `json:"milestone"`
	Labels           string `json:"labels"`
	Search           string `json:"search"`
	After            string `json:"after"`
	First            intArg `json:"first"`
}

// mrListItemJSON is one merge request of list_merge_requests.
type mrListItemJSON struct {
	ID              string         `json:"id"`
	IID             string         `json:"iid"`
	Title           string         `json:"title"`
	State           string         `json:"state"`
	Draft           bool           `json:"draft"`
	SourceBranch    string         `json:"sourceBranch"`
	TargetBranch    string         `json:"targetBranch"`
	Author          *plainUserJSON `json:"author"`
	Labels          []string       `json:"labels"`
	WebURL          string         `json:"webUrl"`
	CreatedAt       string         `json:"createdAt"`
	UpdatedAt       string         `json:"updatedAt"`
	ProjectFullPath string         `json:"projectFullPath"`
}

type mrListJSON struct {
	Nodes    []mrListItemJSON `json:"nodes"`
	PageInfo pageInfoJSON     `json:"pageInfo"`
}

func (t listMRTool) run(ctx context.Context, call *tools.Call, args listMRArgs) (*tools.Result, error) {
	if t.store == nil {
		return nil, errNoStore
	}
	u, err := callerOf(call)
	if err != nil {
		return nil, err
	}
	q := models.MergeRequestQuery{Limit: pageSize(args.First), Search: strings.TrimSpace(args.Search), Lockdown: call.Lockdown}
	scope, projects, err := t.scope(ctx, u, args)
	if err != nil {
		return nil, err
	}
	for id := range projects {
		q.ProjectIDs = append(q.ProjectIDs, id)
	}
	filters := args
	filters.URL, filters.ProjectID, filters.GroupID, filters.After, filters.First = "", "", "", "", 0
	pages := newPager(t.cursors, call, "list_merge_requests", scope, filters)
	if q.BeforeID, err = pages.open("after", args.After); err != nil {
		return nil, err
	}
	switch args.State {
	case "", "all":
	case "locked":
		// glmcp merges synchronously: no merge request is ever locked.
		q.ProjectIDs = nil
	default:
		q.State = models.MergeRequestState(args.State)
	}
	// An explicit username wins over scope for its field.
	author, assignee, reviewer := args.AuthorUsername, args.AssigneeUsername, args.ReviewerUsername
	switch args.Scope {
	case "created_by_me":
		author = firstNonEmpty(author, u.Username)
	case "assigned_to_me":
		assignee = firstNonEmpty(assignee, u.Username)
	case "review_requested":
		reviewer = firstNonEmpty(reviewer, u.Username)
	}
	for _, f := range []struct {
		name string
		dst  *int64
	}{{author, &q.AuthorID}, {assignee, &q.AssigneeID}, {reviewer, &q.ReviewerID}} {
		if f.name == "" {
			continue
		}
		usr, err := t.store.FindUserByUsername(ctx, strings.TrimPrefix(f.name, "@"))
		if errors.Is(err, models.ErrNotFound) {
			q.ProjectIDs = nil // GitLab: an unknown username matches nothing
			continue
		}
		if err != nil {
			return nil, err
		}
		*f.dst = usr.ID
	}
	for _, l := range strings.Split(args.Labels, ",") {
		if l = strings.TrimSpace(l); l != "" {
			q.Labels = append(q.Labels, l)
		}
	}
	if m := strings.TrimSpace(args.Milestone); m != "" && len(q.ProjectIDs) > 0 {
		if q.MilestoneID, err = t.milestoneFilter(ctx, q.ProjectIDs, m); err != nil {
			return nil, err
		}
		if q.MilestoneID == 0 {
			q.ProjectIDs = nil
		}
	}
	mrs, more, err := t.store.ListMergeRequests(ctx, q)
	if err != nil {
		return nil, err
	}
	out := mrListJSON{Nodes: make([]mrListItemJSON, 0, len(mrs)), PageInfo: pageInfoJSON{HasNextPage: more, HasPreviousPage: args.After != ""}}
	for k := range mrs {
		mr := &mrs[k]
		p := projects[mr.ProjectID]
		iid := strconv.FormatInt(mr.IID, 10)
		out.Nodes = append(out.Nodes, mrListItemJSON{ID: gid("MergeRequest", mr.ID), IID: iid, Title: mr.Title,
			State: string(mr.State), Draft: mr.Draft, SourceBranch: mr.SourceBranch, TargetBranch: mr.TargetBranch,
			Author: t.links.gqlUser(mr.Author), Labels: labelNames(mr.Labels), WebURL: t.links.projectURL(p) + "/-/merge_requests/" + iid,
			CreatedAt: apiTime(mr.CreatedAt), UpdatedAt: apiTime(mr.UpdatedAt), ProjectFullPath: p.PathWithNamespace})
	}
	if n := len(mrs); n > 0 {
		start, end := pages.mint(mrs[0].ID+1), pages.mint(mrs[n-1].ID)
		out.PageInfo.StartCursor, out.PageInfo.EndCursor = &start, &end
	}
	return jsonResult(out)
}

// scope resolves exactly one of url, project_id and group_id to the
// projects whose merge requests u may read, keyed by id, and a scope name
// binding cursors to it.
func (t listMRTool) scope(ctx context.Context, u *models.User, args listMRArgs) (string, map[int64]*models.Project, error) {
	n := 0
	for _, set := range []bool{args.URL != "", args.ProjectID != "", args.GroupID != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		return "", nil, invalidf("provide exactly one of url, project_id or group_id")
	}
	groupRef := args.GroupID
	if args.URL != "" {
		path, err := parseProjectURL("url", args.URL)
		if err != nil {
			// A group URL has one path segment or a /groups/ prefix.
			path = strings.Trim(strings.TrimPrefix(strings.TrimSpace(args.URL), "/"), "/")
		}
		pa, perr := resolveProject(ctx, t.store, u, "url", refArg(path))
		if perr == nil {
			return projectScope(u, pa)
		}
		if !errors.Is(perr, models.ErrNotFound) {
			return "", nil, perr
		}
		gpath, gerr := parseGroupURL(args.URL)
		if gerr != nil {
			return "", nil, perr
		}
		groupRef = refArg(gpath)
	}
	if args.ProjectID != "" {
		pa, err := resolveProject(ctx, t.store, u, "project_id", args.ProjectID)
		if err != nil {
			return "", nil, err
		}
		return projectScope(u, pa)
	}
	grp, err := resolveGroup(ctx, t.store, u, "group_id", groupRef)
	if err != nil {
		return "", nil, err
	}
	ids, err := t.store.VisibleProjectIDs(ctx, u, grp.FullPath)
	if err != nil {
		return "", nil, err
	}
	ps, err := t.store.LoadProjects(ctx, ids)
	if err != nil {
		return "", nil, err
	}
	out := map[int64]*models.Project{}
	for k := range ps {
		p := &ps[k]
		level, err := memberLevel(ctx, t.store, p.ID, u.ID)
		if err != nil {
			return "", nil, err
		}
		if !access.CanReadCode(u, p, level) {
			continue
		}
		out[p.ID] = p
	}
	return "group:" + strconv.FormatInt(grp.ID, 10), out, nil
}

func projectScope(u *models.User, pa *projectAccess) (string, map[int64]*models.Project, error) {
	if !access.CanReadCode(u, pa.project, pa.level) {
		return "", nil, notFound("Project")
	}
	return "project:" + strconv.FormatInt(pa.project.ID, 10), map[int64]*models.Project{pa.project.ID: pa.project}, nil
}

// parseGroupURL returns the group path of https://host/groups/<path> or
// https://host/<path>.
func parseGroupURL(raw string) (string, error) {
	path, err := parseProjectURL("url", raw)
	if err == nil {
		return strings.TrimPrefix(path, "groups/"), nil
	}
	s := strings.TrimSpace(raw)
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
		if j := strings.Index(s, "/"); j >= 0 {
			s = s[j:]
		} else {
			s = ""
		}
	}
	s = strings.Trim(strings.TrimPrefix(strings.Trim(s, "/"), "groups/"), "/")
	if s == "" {
		return "", invalidf("url: %q is not a GitLab project or group URL", raw)
	}
	return s, nil
}

// milestoneFilter returns the id of the milestone titled title in one of
// the projects (0 when none has it).
func (t listMRTool) milestoneFilter(ctx context.Context, projectIDs []int64, title string) (int64, error) {
	for _, id := range projectIDs {
		m, err := t.store.FindMilestoneByTitle(ctx, id, title)
		if errors.Is(err, models.ErrNotFound) {
			continue
		}
		if err != nil {
			return 0, err
		}
		return m.ID, nil
	}
	return 0, nil
}
