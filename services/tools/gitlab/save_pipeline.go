package gitlab

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// savePipeline is GitLab 19.5's save_pipeline: run a pipeline for a ref,
// or retry, cancel or rename one.
func savePipeline(g *gitlab) tools.Definition {
	t := savePipelineTool{inTx: g.inTx, links: g.links, repos: g.repos}
	return tools.Definition{
		Name:  "save_pipeline",
		Title: "Save pipeline",
		Description: "Run, retry, cancel, or rename a CI/CD pipeline in a GitLab project. Omit pipeline_id and pass " +
			"ref to run a new pipeline, and identify the project with exactly one of url or project_id. Pass " +
			"pipeline_id with action to retry, cancel, or update an existing pipeline; update renames it and requires " +
			"name. glmcp has no runners: a new pipeline stays created, retried jobs stay pending.",
		InputSchema: argsSchema(t.run, obj{
			"url":         urlProp("GitLab URL of the project. Used only when creating a pipeline."),
			"project_id":  projectRefProp("ID or full path of the project. Required with pipeline_id; or use url when creating."),
			"pipeline_id": iidProp("ID of an existing pipeline to target. When set, requires action. Omit to create a new pipeline."),
			"action":      enumProp("Lifecycle action to perform on pipeline_id. Required when pipeline_id is set.", "retry", "cancel", "update"),
			"ref":         strProp("Branch or tag name. Required to create a pipeline (when pipeline_id is absent).", 1, 255),
			"name":        strProp("New pipeline name. Required for action: \"update\".", 1, 255),
			"variables": withDesc(obj{"type": "array", "maxItems": 200, "items": obj{
				"type": "object", "additionalProperties": false, "required": []string{"key", "value"},
				"properties": obj{
					"key":           strProp("Name of the variable.", 1, 255),
					"value":         strProp("Value of the variable.", 0, 10000),
					"variable_type": enumProp("Type of the variable. Defaults to env_var.", "env_var", "file"),
				}}}, "Pipeline variables to create the pipeline with."),
			"inputs": withDesc(obj{"type": "object"}, "Pipeline input parameters as key-value pairs."),
		}),
		Annotations: destructiveTool("Save pipeline"),
		Toolset:     models.ToolsetCI,
		Edition:     models.EditionCE,
		Source:      "app/services/mcp/tools/pipelines/save_pipeline_tool.rb",
		// The project, looked up once: the tool rules and the tool read it.
		Target: g.namedProject(access.ReadProject, savePipelineProject, nil, nil),
		Run:    tools.Typed(t.run),
	}
}

// savePipelineProject names save_pipeline's project: url or project_id
// (exactly one) to create a pipeline, project_id with pipeline_id.
func savePipelineProject(call *tools.Call) (string, refArg, error) {
	args, err := tools.Args[savePipelineArgs](call)
	if err != nil {
		return "", "", err
	}
	if args.PipelineID != 0 {
		return "project_id", args.ProjectID, nil
	}
	switch {
	case args.URL != "" && args.ProjectID != "":
		return "", "", invalidf("provide exactly one of url or project_id, not both")
	case args.URL != "":
		path, err := parseProjectURL("url", args.URL)
		return "url", refArg(path), err
	case args.ProjectID != "":
		return "project_id", args.ProjectID, nil
	}
	return "", "", invalidf("provide exactly one of url or project_id")
}

// savePipelineStore is what save_pipeline writes with, in its
// transaction.
type savePipelineStore interface {
	pipelineLoadStore
	CreatePipeline(ctx context.Context, p *models.Pipeline) error
	RetryPipeline(ctx context.Context, id, userID int64) (*models.Pipeline, error)
	CancelPipeline(ctx context.Context, id int64) (*models.Pipeline, error)
	RenamePipeline(ctx context.Context, id int64, name string) (*models.Pipeline, error)
}

// savePipelineTool is save_pipeline with what it needs: the store's
// transactions (its Target, resolved before it runs, fails without a
// store), the instance URL its answers link to and the repositories a new
// pipeline's ref is read from.
type savePipelineTool struct {
	inTx  InTx
	links links
	repos Repositories
}

type pipelineVariableArg struct {
	Key          string `json:"key"`
	Value        string `json:"value"`
	VariableType string `json:"variable_type"`
}

type savePipelineArgs struct {
	URL        string                     `json:"url"`
	ProjectID  refArg                     `json:"project_id"`
	PipelineID intArg                     `json:"pipeline_id"`
	Action     string                     `json:"action"`
	Ref        string                     `json:"ref"`
	Name       string                     `json:"name"`
	Variables  []pipelineVariableArg      `json:"variables"`
	Inputs     map[string]json.RawMessage `json:"inputs"`
}

func (t savePipelineTool) run(ctx context.Context, call *tools.Call, args savePipelineArgs) (*tools.Result, error) {
	u, err := callerOf(call)
	if err != nil {
		return nil, err
	}
	if args.PipelineID == 0 {
		if args.Action != "" || args.Name != "" {
			return nil, invalidf("action and name apply only with pipeline_id")
		}
		return t.createPipeline(ctx, call, u, args)
	}
	switch {
	case args.Action == "":
		return nil, invalidf("action is required when pipeline_id is set (retry, cancel or update)")
	case args.Ref != "" || args.Variables != nil || args.Inputs != nil || args.URL != "":
		return nil, invalidf("ref, variables, inputs and url apply only when creating a pipeline (without pipeline_id)")
	case args.ProjectID == "":
		return nil, invalidf("project_id is required with pipeline_id")
	case args.Action == "update" && strings.TrimSpace(args.Name) == "":
		return nil, invalidf("Provide name to rename the pipeline")
	case args.Action != "update" && args.Name != "":
		return nil, invalidf("name applies only to action update")
	}
	var res *tools.Result
	err = t.inTx(ctx, func(tx Families) error {
		st := savePipelineStore(tx.CI)
		pa, err := targetProject(call)
		if err != nil {
			return err
		}
		if !access.CanReadCode(u, pa.project, pa.level) {
			return notFound("Pipeline")
		}
		p, err := st.LoadPipeline(ctx, pa.project.ID, int64(args.PipelineID))
		if errors.Is(err, models.ErrNotFound) {
			return notFound("Pipeline")
		}
		if err != nil {
			return err
		}
		if !access.CanUpdatePipeline(u, pa.project, pa.level) {
			// Readable but not changeable reads as GitLab's uniform message.
			return notFound("Pipeline")
		}
		var changed *models.Pipeline
		switch args.Action {
		case "retry":
			changed, err = st.RetryPipeline(ctx, p.ID, u.ID)
		case "cancel":
			changed, err = st.CancelPipeline(ctx, p.ID)
		case "update":
			changed, err = st.RenamePipeline(ctx, p.ID, strings.TrimSpace(args.Name))
		}
		if err != nil {
			return err
		}
		res, err = t.pipelineActionResult(args.Action, pa.project, changed)
		return err
	})
	return res, err
}

func (t savePipelineTool) pipelineActionResult(action string, proj *models.Project, p *models.Pipeline) (*tools.Result, error) {
	return jsonResult(obj{"action": action, "id": p.ID, "iid": p.IID, "name": nilIfEmpty(p.Name), "status": p.Status,
		"ref": p.Ref, "sha": p.SHA, "web_url": t.links.pipelineURL(proj, p.ID)})
}

func (t savePipelineTool) createPipeline(ctx context.Context, call *tools.Call, u *models.User, args savePipelineArgs) (*tools.Result, error) {
	ref := strings.TrimSpace(args.Ref)
	if ref == "" {
		return nil, invalidf("ref is required to create a pipeline")
	}
	pa, err := targetProject(call)
	if err != nil {
		return nil, err
	}
	if !access.CanUpdatePipeline(u, pa.project, pa.level) {
		if !access.CanReadCode(u, pa.project, pa.level) {
			return nil, notFound("Project")
		}
		return nil, forbiddenf("you need at least the Developer role in project %s to run pipelines", pa.project.PathWithNamespace)
	}
	vars := make([]models.PipelineVariable, 0, len(args.Variables))
	seen := map[string]bool{}
	for _, v := range args.Variables {
		if !validVariableKey(v.Key) { // GitLab's Ci::PipelineVariable key format
			return nil, invalidf("variables: key %q can contain only letters, digits and '_'", v.Key)
		}
		if seen[v.Key] {
			return nil, invalidf("variables: key %q given twice", v.Key)
		}
		seen[v.Key] = true
		vars = append(vars, models.PipelineVariable{Key: v.Key, Value: v.Value, VariableType: v.VariableType})
	}
	if len(args.Inputs) > 0 {
		return nil, invalidf("inputs: this project's CI configuration declares no inputs")
	}
	sha, err := t.branchOrTagHead(ctx, pa.project, ref)
	if err != nil {
		return nil, err
	}
	var res *tools.Result
	err = t.inTx(ctx, func(tx Families) error {
		st := savePipelineStore(tx.CI)
		uid := u.ID
		p := &models.Pipeline{ProjectID: pa.project.ID, Ref: ref, SHA: sha, Status: models.StatusCreated,
			Source: "api", UserID: &uid, Variables: vars}
		if err := st.CreatePipeline(ctx, p); err != nil {
			return err
		}
		res, err = t.pipelineActionResult("create", pa.project, p)
		return err
	})
	if errors.Is(err, models.ErrConflict) {
		return nil, conflictf("a pipeline could not be created: %v", err)
	}
	return res, err
}

// branchOrTagHead returns the commit branch or tag ref of project p
// points at, read from git; anything else is GitLab's validation error.
func (t savePipelineTool) branchOrTagHead(ctx context.Context, p *models.Project, ref string) (string, error) {
	// Only a name: the lookups below resolve revisions, and "main~1" or
	// "main^{tree}" would resolve under refs/heads/ without being a branch.
	if repository.ValidateBranchName(ref) != nil {
		return "", invalidf("ref: %q is not a branch or tag of project %s", ref, p.PathWithNamespace)
	}
	repo, err := openProjectRepository(ctx, t.repos, p)
	if err != nil {
		return "", err
	}
	defer repo.Close()
	for _, full := range []string{"refs/heads/" + ref, "refs/tags/" + ref} {
		c, err := repo.Commit(ctx, full)
		if err == nil {
			return c.ID, nil
		}
		if !errors.Is(err, models.ErrNotFound) && !errors.Is(err, models.ErrInvalidInput) {
			return "", err
		}
	}
	return "", invalidf("ref: %q is not a branch or tag of project %s", ref, p.PathWithNamespace)
}

// validVariableKey reports whether key is a CI variable name GitLab
// accepts: one or more ASCII letters, digits and "_".
func validVariableKey(key string) bool {
	for i := 0; i < len(key); i++ {
		if c := key[i]; !(c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return key != ""
}
