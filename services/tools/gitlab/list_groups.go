package gitlab

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"gitlab.com/glmcp/glmcp/internal/cursor"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// listGroups is GitLab 19.5's list_groups (GraphQL-backed: first/after
// over Query.groups).
func listGroups(g *gitlab) tools.Definition {
	t := listGroupsTool{store: g.store.Groups, links: g.links, cursors: g.cursors}
	return tools.Definition{
		Name:  "list_groups",
		Title: "List groups",
		Description: "List GitLab groups. Without group_id, lists top-level groups where you are a member. With " +
			"group_id, lists the direct subgroups of that group, regardless of membership. Set include_subgroups to " +
			"true to recurse into all descendant subgroups (with no group_id, this lists your groups at any depth). " +
			"Archived groups and groups pending deletion are excluded. Useful for discovering group IDs and full " +
			"paths for other tools.",
		InputSchema: argsSchema(t.run, obj{
			"group_id": refProp("ID or full path of a parent group to list subgroups of. Omit to list top-level " +
				"groups where you are a member."),
			"search":            strProp("Search groups by name or full path.", 0, 1000),
			"visibility":        enumProp("Filter by visibility level.", visibilityLevels...),
			"include_subgroups": boolProp("Include all descendant subgroups recursively instead of direct children only."),
			"first":             firstProp("groups", "", ""),
			"after":             strProp("Cursor for forward pagination of groups. Use pageInfo.endCursor from a previous response.", 1, maxCursorLen),
		}),
		Annotations:  readOnlyTool("List groups"),
		OutputSchema: tools.OutputSchemaOf[groupsJSON](),
		Toolset:      models.ToolsetCore,
		Edition:      models.EditionCE,
		Source:       "app/services/mcp/tools/groups/list_groups_tool.rb",
		Run:          tools.Typed(t.run),
	}
}

// listGroupsStore is what list_groups reads: the page of groups, the
// parent group named and the groups of their full names.
type listGroupsStore interface {
	ListGroups(ctx context.Context, q models.GroupQuery) ([]models.Group, error)
	groupLookup
}

// listGroupsTool is list_groups with what it needs.
type listGroupsTool struct {
	store   listGroupsStore // nil: no store (a catalog built without one)
	links   links
	cursors *cursor.Signer
}

type listGroupsArgs struct {
	GroupID          *refArg `json:"group_id"`
	Search           string  `json:"search"`
	Visibility       string  `json:"visibility"`
	IncludeSubgroups bool    `json:"include_subgroups"`
	First            intArg  `json:"first"`
	After            string  `json:"after"`
}

// groupNodeJSON is a node of GitLab's groups connection (numeric ids, as
// GitLab's tool unwraps them).
type groupNodeJSON struct {
	ID          int64            `json:"id"`
	Name        string           `json:"name"`
	FullName    string           `json:"fullName"`
	FullPath    string           `json:"fullPath"`
	Description string           `json:"description"`
	Visibility  string           `json:"visibility"`
	WebURL      string           `json:"webUrl"`
	Parent      *groupParentJSON `json:"parent"`
}

type groupParentJSON struct {
	ID       int64  `json:"id"`
	FullPath string `json:"fullPath"`
}

func (t listGroupsTool) run(ctx context.Context, call *tools.Call, args listGroupsArgs) (*tools.Result, error) {
	if t.store == nil {
		return nil, errNoStore
	}
	u, err := callerOf(call)
	if err != nil {
		return nil, err
	}
	q := models.GroupQuery{Viewer: u, IncludeSubgroups: args.IncludeSubgroups, Search: strings.TrimSpace(args.Search),
		Visibility: models.Visibility(args.Visibility), Limit: pageSize(args.First)}
	if args.GroupID != nil {
		parent, err := resolveGroup(ctx, t.store, u, "group_id", *args.GroupID)
		if errors.Is(err, models.ErrNotFound) {
			return nil, errGroupNotFound
		}
		if err != nil {
			return nil, err
		}
		q.ParentID = parent.ID
	}
	filters := args
	filters.GroupID, filters.First, filters.After = nil, 0, ""
	pages := newPager(t.cursors, call, "list_groups", "parent:"+strconv.FormatInt(q.ParentID, 10), filters)
	if q.AfterID, err = pages.open("after", args.After); err != nil {
		return nil, err
	}
	gs, err := t.store.ListGroups(ctx, q)
	if err != nil {
		return nil, err
	}
	more := len(gs) > q.Limit
	if more {
		gs = gs[:q.Limit]
	}
	names, err := groupNames(ctx, t.store, gs)
	if err != nil {
		return nil, err
	}
	nodes := make([]groupNodeJSON, 0, len(gs))
	for k := range gs {
		grp := &gs[k]
		n := groupNodeJSON{ID: grp.ID, Name: grp.Name, FullPath: grp.FullPath, Description: grp.Description,
			Visibility: string(grp.Visibility), WebURL: t.links.groupURL(grp)}
		n.FullName = fullName(names, grp.FullPath)
		if grp.ParentID != nil {
			parentPath := grp.FullPath[:strings.LastIndex(grp.FullPath, "/")]
			n.Parent = &groupParentJSON{ID: *grp.ParentID, FullPath: parentPath}
		}
		nodes = append(nodes, n)
	}
	return jsonResult(groupsJSON{Nodes: nodes,
		PageInfo: idPageInfo(pages, more, func() int64 { return gs[len(gs)-1].ID })})
}

// groupsJSON is list_groups' answer.
type groupsJSON struct {
	Nodes    []groupNodeJSON `json:"nodes"`
	PageInfo endPageInfo     `json:"pageInfo"`
}
