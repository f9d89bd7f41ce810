package gitlab

import (
	"context"
	"errors"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/tools"
)

type addBranchArgs struct {
	repoTarget
	Branch string `json:"branch"`
	Ref    string `json:"ref"`
}

type branchJSON struct {
	Name   string         `json:"name"`
	Commit commitNodeJSON `json:"commit"`
}

type addBranchJSON struct {
	Branch branchJSON `json:"branch"`
	Errors []string   `json:"errors"`
}

// addBranch is GitLab 19.5's add_branch: addBranchTool, which needs only
// the project's repository (its Target resolves the project).
func addBranch(g *gitlab) tools.Definition {
	t := addBranchTool{repo: newRepoOpener(g)}
	props := repoProps("GitLab URL of the project. Provide this, or project_id.", "ID or path of the project. Required if url is not provided.")
	props["branch"] = strProp("Name of the new branch", 1, 255)
	props["ref"] = strProp("Branch name or commit SHA to create the new branch from", 1, 1024)
	return tools.Definition{
		Name:  "add_branch",
		Title: "Add branch",
		Description: "Add a branch to a GitLab project from a source ref.\n\nExamples:\n" +
			"- Use branch and ref to create a new branch from an existing branch or commit SHA",
		InputSchema:  argsSchema(t.run, props, "branch", "ref"),
		OutputSchema: tools.OutputSchemaOf[addBranchJSON](),
		Annotations:  writeTool("Add branch"),
		Toolset:      models.ToolsetRepository,
		Edition:      models.EditionCE,
		Source:       "app/services/mcp/tools/repositories/branches/add_branch_tool.rb",
		Aliases:      []string{"create_branch"},
		Target:       g.repoProject("project_id", urlOrID, func(string) error { return notFound("Project") }),
		Run:          tools.Typed(t.run),
	}
}

// addBranchTool is add_branch with what it needs.
type addBranchTool struct {
	repo repoOpener
}

func (t addBranchTool) run(ctx context.Context, call *tools.Call, args addBranchArgs) (*tools.Result, error) {
	if err := repository.ValidateBranchName(args.Branch); err != nil {
		return nil, invalidf("Branch name is invalid: %s", trimSentinel(err))
	}
	ra, err := t.repo.open(ctx, call, args.repoTarget)
	if err != nil {
		return nil, err
	}
	defer ra.Close()
	if err := canPush(ra.user, ra.pa.project, ra.pa.level, args.Branch); err != nil {
		return nil, err
	}
	if _, err := ra.repo.Commit(ctx, args.Ref); err != nil {
		return nil, invalidf("Invalid reference name: %s", args.Ref)
	}
	b, err := ra.repo.CreateBranch(ctx, args.Branch, args.Ref)
	if err != nil {
		if errors.Is(err, models.ErrConflict) {
			return nil, invalidf("Branch already exists")
		}
		return nil, repoError(err)
	}
	return jsonResult(addBranchJSON{Branch: branchJSON{Name: b.Name, Commit: t.repo.links.commitNode(ra.pa.project, &b.Commit)}, Errors: []string{}})
}
