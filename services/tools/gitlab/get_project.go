package gitlab

import (
	"context"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// getProject is GitLab 19.5's get_project (GraphQL-backed: the project's
// id, full path, default branch, visibility and web URL).
func getProject(g *gitlab) tools.Definition {
	t := getProjectTool{store: directoryOf(g.store), links: g.links}
	return tools.Definition{
		Name:  "get_project",
		Title: "Get project",
		Description: "Get metadata for a single GitLab project: numeric ID, full path, default branch, visibility, " +
			"and web URL. Identify the project with exactly one of url or project_id. Use search with scope " +
			"projects to find a project you cannot name yet.",
		InputSchema: argsSchema(t.run, obj{
			"url":        strProp("GitLab URL of the project.", 1, 2048),
			"project_id": refProp("Project ID or full path. Provide exactly one of url or project_id."),
		}),
		Annotations:  readOnlyTool("Get project"),
		OutputSchema: tools.OutputSchemaOf[projectJSON](),
		Toolset:      models.ToolsetCore,
		Edition:      models.EditionCE,
		Source:       "app/services/mcp/tools/projects/get_project_tool.rb",
		Target: g.namedProject(access.ReadProject, t.projectName,
			func(string) error { return errProjectNotFound }, nil),
		Run: tools.Typed(t.run),
	}
}

// getProjectTool is get_project with what it needs: the project's fork
// source and groups (projectJSONOf) and the instance URL.
type getProjectTool struct {
	store projectFinder // nil: no store (a catalog built without one)
	links links
}

type getProjectArgs struct {
	URL       string  `json:"url"`
	ProjectID *refArg `json:"project_id"`
}

// errProjectNotFound is get_project's answer for a project that does not
// exist or that the caller may not see (GitLab's words).
var errProjectNotFound = &kindError{msg: "Project not found: it does not exist or you do not have access to it.",
	kind: models.ErrNotFound}

func (t getProjectTool) run(ctx context.Context, call *tools.Call, _ getProjectArgs) (*tools.Result, error) {
	if t.store == nil {
		return nil, errNoStore
	}
	u, err := callerOf(call)
	if err != nil {
		return nil, err
	}
	pa, err := targetProject(call)
	if err != nil {
		return nil, err
	}
	out, err := projectJSONOf(ctx, t.store, t.links, u, pa.project)
	if err != nil {
		return nil, err
	}
	return jsonResult(out)
}

// projectName names get_project's project: exactly one of url (the
// project of a GitLab URL) and project_id, read from the arguments the
// run decodes.
func (t getProjectTool) projectName(call *tools.Call) (string, refArg, error) {
	args, err := tools.Args[getProjectArgs](call)
	if err != nil {
		return "", "", err
	}
	hasURL := strings.TrimSpace(args.URL) != ""
	if hasURL == (args.ProjectID != nil) {
		return "", "", invalidf("Provide exactly one of: url or project_id")
	}
	if !hasURL {
		return "project_id", *args.ProjectID, nil
	}
	path, _, err := t.links.parseProjectURL(args.URL)
	return "url", refArg(path), err
}
