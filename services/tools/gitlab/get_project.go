package gitlab

import (
	"context"
	"encoding/json"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// getProject is GitLab 19.5's get_project (GraphQL-backed: the project's
// id, full path, default branch, visibility and web URL).
func (g *gitlab) getProject() tools.Definition {
	return tools.Definition{
		Name:  "get_project",
		Title: "Get project",
		Description: "Get metadata for a single GitLab project: numeric ID, full path, default branch, visibility, " +
			"and web URL. Identify the project with exactly one of url or project_id. Use search with scope " +
			"projects to find a project you cannot name yet.",
		InputSchema: argsSchema(g.runGetProject, obj{
			"url":        strProp("GitLab URL of the project.", 1, 2048),
			"project_id": refProp("Project ID or full path. Provide exactly one of url or project_id."),
		}),
		Annotations:  readOnlyTool("Get project"),
		OutputSchema: tools.OutputSchemaOf[projectJSON](),
		Toolset:      models.ToolsetCore,
		Edition:      models.EditionCE,
		Source:       "app/services/mcp/tools/projects/get_project_tool.rb",
		Target: g.namedProject(access.ReadProject, g.getProjectName,
			func(string) error { return errProjectNotFound }, nil),
		Run: tools.Typed(g.runGetProject),
	}
}

type getProjectArgs struct {
	URL       string  `json:"url"`
	ProjectID *refArg `json:"project_id"`
}

// errProjectNotFound is get_project's answer for a project that does not
// exist or that the caller may not see (GitLab's words).
var errProjectNotFound = &kindError{msg: "Project not found: it does not exist or you do not have access to it.",
	kind: models.ErrNotFound}

func (g *gitlab) runGetProject(ctx context.Context, call *tools.Call, args getProjectArgs) (*tools.Result, error) {
	u, err := g.viewer(call)
	if err != nil {
		return nil, err
	}
	pa, err := targetProject(call)
	if err != nil {
		return nil, err
	}
	out, err := projectJSONOf(ctx, g.store, g.links, u, pa.project)
	if err != nil {
		return nil, err
	}
	return jsonResult(out)
}

// getProjectName names get_project's project: exactly one of url (the
// project of a GitLab URL) and project_id.
func (g *gitlab) getProjectName(raw json.RawMessage) (string, refArg, error) {
	var args getProjectArgs
	if err := tools.DecodeArgs(raw, &args); err != nil {
		return "", "", err
	}
	hasURL := strings.TrimSpace(args.URL) != ""
	if hasURL == (args.ProjectID != nil) {
		return "", "", invalidf("Provide exactly one of: url or project_id")
	}
	if !hasURL {
		return "project_id", *args.ProjectID, nil
	}
	path, _, err := g.links.parseProjectURL(args.URL)
	return "url", refArg(path), err
}
