package gitlab

import (
	"context"
	"errors"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// getUser is GitLab 19.5's get_user (GraphQL-backed: user or currentUser).
func (g *gitlab) getUser() tools.Definition {
	return tools.Definition{
		Name:  "get_user",
		Title: "Get user",
		Description: "Get a single GitLab user. Use me: true to look up the authenticated user, for example to find " +
			"your own user id before setting assignee_ids or reviewer_ids. Provide exactly one of username, id, or " +
			"me. Returns the numeric id, username, name, state, and web URL.",
		InputSchema: argsSchema(g.runGetUser, obj{
			"username": strProp("Username of the user to look up.", 1, 255),
			"id":       withDesc(obj{"type": "integer", "minimum": 1}, "Numeric ID of the user to look up."),
			"me": boolProp("Set to true to look up the authenticated user. Omit username and id when set. " +
				"false behaves as if me was omitted."),
		}),
		OutputSchema: tools.OutputSchemaOf[gqlUserJSON](),
		Annotations:  readOnlyTool("Get user"),
		Toolset:      models.ToolsetCore,
		Edition:      models.EditionCE,
		Source:       "app/services/mcp/tools/users/get_user_tool.rb",
		Run:          tools.Typed(g.runGetUser),
	}
}

type getUserArgs struct {
	Username *string `json:"username"`
	ID       *intArg `json:"id"`
	Me       bool    `json:"me"`
}

// gqlUserJSON is get_user's answer.
type gqlUserJSON struct {
	ID       int64  `json:"id"`
	Username string `json:"username"`
	Name     string `json:"name"`
	State    string `json:"state"`
	WebURL   string `json:"web_url"`
}

var errUserNotFound = &kindError{msg: "User not found or inaccessible", kind: models.ErrNotFound}

func (g *gitlab) runGetUser(ctx context.Context, call *tools.Call, args getUserArgs) (*tools.Result, error) {
	viewer, err := g.viewer(call)
	if err != nil {
		return nil, err
	}
	given := 0
	for _, set := range []bool{args.Username != nil, args.ID != nil, args.Me} {
		if set {
			given++
		}
	}
	if given != 1 {
		return nil, invalidf("Provide exactly one of username, id, or me")
	}
	var u *models.User
	switch {
	case args.Me:
		u = viewer
	case args.ID != nil:
		u, err = g.store.FindUserByID(ctx, int64(*args.ID))
	default:
		u, err = g.store.FindUserByUsername(ctx, strings.TrimPrefix(strings.TrimSpace(*args.Username), "@"))
	}
	if errors.Is(err, models.ErrNotFound) {
		return nil, errUserNotFound
	}
	if err != nil {
		return nil, err
	}
	return jsonResult(gqlUserJSON{ID: u.ID, Username: u.Username, Name: u.Name, State: string(u.State),
		WebURL: g.base + "/" + u.Username})
}
