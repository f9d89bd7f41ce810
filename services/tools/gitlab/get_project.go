package gitlab

import (
	"context"
	"errors"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

func init() { register((*gitlab).getProject) }

// getProject is GitLab 19.5's get_project (GraphQL-backed: the project's
// id, full path, default branch, visibility and web URL).
func (g *gitlab) getProject() tools.Definition {
	return tools.Definition{
		Name:  "get_project",
		Title: "Get project",
		Description: "Get metadata for a single GitLab project: numeric ID, full path, default branch, visibility, " +
			"and web URL. Identify the project with exactly one of url or project_id. Use search with scope " +
			"projects to find a project you cannot name yet.",
		InputSchema: inputSchema(obj{
			"url":        strProp("GitLab URL of the project.", 1, 2048),
			"project_id": refProp("Project ID or full path. Provide exactly one of url or project_id."),
		}),
		Annotations:  readOnlyTool("Get project"),
		OutputSchema: tools.OutputSchemaOf[projectJSON](),
		Toolset:      models.ToolsetCore,
		Edition:      models.EditionCE,
		Run:          tools.Typed(g.runGetProject),
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

type projectJSON struct {
	ID                int64   `json:"id"`
	PathWithNamespace string  `json:"path_with_namespace"`
	DefaultBranch     *string `json:"default_branch"`
	Visibility        string  `json:"visibility"`
	WebURL            string  `json:"web_url"`
	// ForkedFromProject is set for a fork whose source the caller may
	// read (GitLab's project JSON).
	ForkedFromProject *forkedFromJSON `json:"forked_from_project,omitempty"`
}

func (g *gitlab) runGetProject(ctx context.Context, call *tools.Call, args getProjectArgs) (*tools.Result, error) {
	u, err := g.viewer(call)
	if err != nil {
		return nil, err
	}
	hasURL := strings.TrimSpace(args.URL) != ""
	if hasURL == (args.ProjectID != nil) {
		return nil, invalidf("Provide exactly one of: url or project_id")
	}
	field, ref := "project_id", refArg("")
	if hasURL {
		path, _, err := g.parseProjectURL(args.URL)
		if err != nil {
			return nil, err
		}
		field, ref = "url", refArg(path)
	} else {
		ref = *args.ProjectID
	}
	pa, err := resolveProject(ctx, g.store, u, field, ref)
	if errors.Is(err, models.ErrNotFound) {
		return nil, errProjectNotFound
	}
	if err != nil {
		return nil, err
	}
	out, err := g.projectJSONOf(ctx, u, pa.project)
	if err != nil {
		return nil, err
	}
	return jsonResult(out)
}
