package gitlab

import (
	"context"
	"errors"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// getUser is GitLab 19.5's get_user (GraphQL-backed: user or currentUser):
// a small value, getUserTool, with its needs declared (the pattern for a
// tool that stands alone: its registration function builds the value from g
// and registers the value's run; nothing else of the tool hangs from
// *gitlab).
func getUser(g *gitlab) tools.Definition {
	var t getUserTool
	if !noStore(g.store) {
		t = getUserTool{users: g.store.Users, base: g.base}
	}
	return tools.Definition{
		Name:  "get_user",
		Title: "Get user",
		Description: "Get a single GitLab user. Use me: true to look up the authenticated user, for example to find " +
			"your own user id before setting assignee_ids or reviewer_ids. Provide exactly one of username, id, or " +
			"me. Returns the numeric id, username, name, state, and web URL.",
		InputSchema: argsSchema(t.run, obj{
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
		Run:          tools.Typed(t.run),
	}
}

// getUserStore is what get_user needs from the store.
type getUserStore interface {
	FindUserByID(ctx context.Context, id int64) (*models.User, error)
	FindUserByUsername(ctx context.Context, username string) (*models.User, error)
}

// getUserTool is get_user with what it needs: the users and the instance
// URL its answers link to.
type getUserTool struct {
	users getUserStore // nil: no store (a catalog built without one)
	base  string
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

func (t getUserTool) run(ctx context.Context, call *tools.Call, args getUserArgs) (*tools.Result, error) {
	if t.users == nil {
		return nil, errNoStore
	}
	viewer, err := callerOf(call)
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
		u, err = t.users.FindUserByID(ctx, int64(*args.ID))
	default:
		u, err = t.users.FindUserByUsername(ctx, strings.TrimPrefix(strings.TrimSpace(*args.Username), "@"))
	}
	if errors.Is(err, models.ErrNotFound) {
		return nil, errUserNotFound
	}
	if err != nil {
		return nil, err
	}
	return jsonResult(gqlUserJSON{ID: u.ID, Username: u.Username, Name: u.Name, State: string(u.State),
		WebURL: t.base + "/" + u.Username})
}
