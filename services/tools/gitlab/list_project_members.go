package gitlab

import (
	"context"
	"strconv"
	"strings"

	"gitlab.com/glmcp/glmcp/internal/cursor"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// listProjectMembers is GitLab 19.5's list_project_members (GraphQL-backed:
// first/after over Project.projectMembers).
func listProjectMembers(g *gitlab) tools.Definition {
	t := listProjectMembersTool{store: g.store.Groups, cursors: g.cursors}
	return tools.Definition{
		Name:  "list_project_members",
		Title: "List project members",
		Description: "List the members of a GitLab project with their role and access level. Direct members only, " +
			"unless include_inherited is true.",
		InputSchema: argsSchema(t.run, obj{
			"project_id":        refProp("ID or full path of the project"),
			"include_inherited": boolProp("Include members inherited from parent groups. Defaults to false."),
			"query":             strProp("Filter by name or username.", 0, 255),
			"after":             strProp("Cursor for forward pagination. Use metadata.end_cursor from the previous response.", 1, maxCursorLen),
			"first": withDesc(obj{"type": "integer", "minimum": 1, "maximum": maxPerPage},
				"Number of members to return (forward pagination, default 20, max 100)."),
		}, "project_id"),
		Annotations:  readOnlyTool("List project members"),
		OutputSchema: tools.OutputSchemaOf[projectMembersJSON](),
		Toolset:      models.ToolsetCore,
		Edition:      models.EditionCE,
		Source:       "app/services/mcp/tools/projects/list_project_members_tool.rb",
		Target: g.namedProject(access.ReadProject, argProject("project_id"),
			func(string) error { return errProjectInaccessible }, nil),
		Run: tools.Typed(t.run),
	}
}

// listProjectMembersStore is what list_project_members reads (its
// project is the call's Target).
type listProjectMembersStore interface {
	ListProjectMembers(ctx context.Context, projectID int64, inherited bool, query string, afterUserID int64, limit int) ([]models.Member, error)
}

// listProjectMembersTool is list_project_members with what it needs.
type listProjectMembersTool struct {
	store   listProjectMembersStore // nil: no store (a catalog built without one)
	cursors *cursor.Signer
}

type listProjectMembersArgs struct {
	ProjectID        refArg `json:"project_id"`
	IncludeInherited bool   `json:"include_inherited"`
	Query            string `json:"query"`
	After            string `json:"after"`
	First            intArg `json:"first"`
}

type projectMemberJSON struct {
	ID              int64   `json:"id"`
	Username        string  `json:"username"`
	Name            string  `json:"name"`
	AccessLevel     int     `json:"access_level"`
	AccessLevelName string  `json:"access_level_name"`
	ExpiresAt       *string `json:"expires_at"`
}

type membersMetadataJSON struct {
	HasNextPage bool    `json:"has_next_page"`
	EndCursor   *string `json:"end_cursor"`
}

// humanAccess is GitLab's name of a role ("Developer").
func humanAccess(l models.AccessLevel) string {
	s := l.String()
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func (t listProjectMembersTool) run(ctx context.Context, call *tools.Call, args listProjectMembersArgs) (*tools.Result, error) {
	if t.store == nil {
		return nil, errNoStore
	}
	if _, err := callerOf(call); err != nil {
		return nil, err
	}
	limit := pageSize(args.First)
	pa, err := targetProject(call)
	if err != nil {
		return nil, err
	}
	filters := args
	filters.ProjectID, filters.First, filters.After = "", 0, ""
	pages := newPager(t.cursors, call, "list_project_members", "project:"+strconv.FormatInt(pa.project.ID, 10), filters)
	afterID, err := pages.open("after", args.After)
	if err != nil {
		return nil, err
	}
	ms, err := t.store.ListProjectMembers(ctx, pa.project.ID, args.IncludeInherited, strings.TrimSpace(args.Query), afterID, limit)
	if err != nil {
		return nil, err
	}
	more := len(ms) > limit
	if more {
		ms = ms[:limit]
	}
	items := make([]projectMemberJSON, 0, len(ms))
	for _, m := range ms {
		items = append(items, projectMemberJSON{ID: m.User.ID, Username: m.User.Username, Name: m.User.Name,
			AccessLevel: int(m.AccessLevel), AccessLevelName: humanAccess(m.AccessLevel)})
	}
	meta := membersMetadataJSON{HasNextPage: more}
	if more {
		c := pages.mint(ms[len(ms)-1].User.ID)
		meta.EndCursor = &c
	}
	return jsonResult(projectMembersJSON{Items: items, Metadata: meta})
}

// projectMembersJSON is list_project_members' answer.
type projectMembersJSON struct {
	Items    []projectMemberJSON `json:"items"`
	Metadata membersMetadataJSON `json:"metadata"`
}
