package gitlab

import (
	"context"
	"errors"
	"strings"
	"time"

	"gitlab.com/glmcp/glmcp/internal/cursor"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// minAccessLevels are GitLab's AccessLevelEnum values list_projects takes,
// lower-cased, with the role each stands for (planner is GitLab's 15,
// between Guest and Reporter; glmcp grants no such role, so it selects
// what reporter selects).
var minAccessLevels = map[string]models.AccessLevel{
	"guest": models.Guest, "planner": 15, "reporter": models.Reporter, "developer": models.Developer,
	"maintainer": models.Maintainer, "owner": models.Owner,
}

// listProjects is GitLab 19.5's list_projects (GraphQL-backed:
// first/after over Query.projects, or Group.projects with its subgroups).
func listProjects(g *gitlab) tools.Definition {
	t := listProjectsTool{store: bind(g.store, func(f Families) listProjectsStore { return listProjectsStore{f.Projects, f.Groups} }), links: g.links, cursors: g.cursors}
	return tools.Definition{
		Name:  "list_projects",
		Title: "List projects",
		Description: "List GitLab projects. Without group_id, defaults to projects you have at least guest access to; " +
			"pass min_access_level to raise the threshold. With group_id, lists every project in that group and its " +
			"subgroups regardless of access level; adding min_access_level or visibility narrows the listing to that " +
			"group only, not its subgroups. When group_id is given, the response includes subgroupsIncluded so you " +
			"know which case applied.",
		InputSchema: argsSchema(t.run, obj{
			"group_id": refProp("ID or full path of a group."),
			"min_access_level": enumProp("Minimum access level a project must grant you to be included.",
				"guest", "planner", "reporter", "developer", "maintainer", "owner"),
			"search":     strProp("Search projects by name, path, or description.", 0, 1000),
			"visibility": enumProp("Filter by visibility level.", visibilityLevels...),
			"archived": enumProp("Filter by archived state: only returns archived projects, include returns both, "+
				"exclude returns only non-archived projects (default).", "only", "include", "exclude"),
			"first": firstProp("projects", "", ""),
			"after": strProp("Cursor for forward pagination of projects. Use pageInfo.endCursor from a previous response.", 1, maxCursorLen),
		}),
		OutputSchema: tools.OutputSchemaOf[projectsConnectionJSON](),
		Annotations:  readOnlyTool("List projects"),
		Toolset:      models.ToolsetCore,
		Edition:      models.EditionCE,
		Source:       "app/services/mcp/tools/projects/list_projects_tool.rb",
		Run:          tools.Typed(t.run),
	}
}

// listProjectsStore is what list_projects reads: the page of projects,
// the group named and the groups of the projects' full names.
type listProjectsStore struct {
	projectLister
	groupLookup
}

// projectLister lists projects (Projects).
type projectLister interface {
	ListProjects(ctx context.Context, q models.ProjectQuery) ([]models.Project, error)
}

// listProjectsTool is list_projects with what it needs.
type listProjectsTool struct {
	store   *listProjectsStore // nil: no store (a catalog built without one)
	links   links
	cursors *cursor.Signer
}

type listProjectsArgs struct {
	GroupID        *refArg `json:"group_id"`
	MinAccessLevel string  `json:"min_access_level"`
	Search         string  `json:"search"`
	Visibility     string  `json:"visibility"`
	Archived       string  `json:"archived"`
	First          intArg  `json:"first"`
	After          string  `json:"after"`
}

// projectNodeJSON is a node of GitLab's projects connection, with the
// numeric id GitLab's tool unwraps from the global id.
type projectNodeJSON struct {
	ID                int64     `json:"id"`
	Name              string    `json:"name"`
	NameWithNamespace string    `json:"nameWithNamespace"`
	FullPath          string    `json:"fullPath"`
	Description       string    `json:"description"`
	Visibility        string    `json:"visibility"`
	Archived          bool      `json:"archived"`
	WebURL            string    `json:"webUrl"`
	CreatedAt         time.Time `json:"createdAt"`
}

type projectsConnectionJSON struct {
	Nodes             []projectNodeJSON `json:"nodes"`
	PageInfo          endPageInfo       `json:"pageInfo"`
	SubgroupsIncluded *bool             `json:"subgroupsIncluded,omitempty"`
}

func (t listProjectsTool) run(ctx context.Context, call *tools.Call, args listProjectsArgs) (*tools.Result, error) {
	if t.store == nil {
		return nil, errNoStore
	}
	u, err := callerOf(call)
	if err != nil {
		return nil, err
	}
	q := models.ProjectQuery{Viewer: u, MinAccess: minAccessLevels[args.MinAccessLevel], Search: strings.TrimSpace(args.Search),
		Visibility: models.Visibility(args.Visibility), Archived: args.Archived, Limit: pageSize(args.First)}
	if args.GroupID != nil {
		grp, err := resolveGroup(ctx, t.store, u, "group_id", *args.GroupID)
		if errors.Is(err, models.ErrNotFound) {
			return nil, errGroupNotFound
		}
		if err != nil {
			return nil, err
		}
		q.GroupPath = grp.FullPath
	}
	filters := args
	filters.GroupID, filters.First, filters.After = nil, 0, ""
	pages := newPager(t.cursors, call, "list_projects", "group:"+q.GroupPath, filters)
	if q.AfterID, err = pages.open("after", args.After); err != nil {
		return nil, err
	}
	ps, err := t.store.ListProjects(ctx, q)
	if err != nil {
		return nil, err
	}
	out := projectsConnectionJSON{Nodes: []projectNodeJSON{}}
	more := len(ps) > q.Limit
	if more {
		ps = ps[:q.Limit]
	}
	spaces := make([]string, len(ps))
	for k := range ps {
		spaces[k] = strings.TrimSuffix(ps[k].PathWithNamespace, "/"+ps[k].Path)
	}
	groups, err := namespaces(ctx, t.store, map[string]*models.Group{}, spaces)
	if err != nil {
		return nil, err
	}
	for k := range ps {
		p := &ps[k]
		out.Nodes = append(out.Nodes, projectNodeJSON{ID: p.ID, Name: p.Name, FullPath: p.PathWithNamespace,
			NameWithNamespace: fullName(groups, spaces[k]) + " / " + p.Name, Description: p.Description,
			Visibility: string(p.Visibility), Archived: p.Archived, WebURL: t.links.projectURL(p), CreatedAt: p.CreatedAt.UTC()})
	}
	out.PageInfo = idPageInfo(pages, more, func() int64 { return ps[len(ps)-1].ID })
	if args.GroupID != nil {
		sub := q.SubgroupsIncluded()
		out.SubgroupsIncluded = &sub
	}
	return jsonResult(out)
}
