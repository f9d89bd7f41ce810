package gitlab

import (
	"context"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/tools"
)

type diffJSON struct {
	OldPath       string `json:"old_path"`
	NewPath       string `json:"new_path"`
	AMode         string `json:"a_mode"`
	BMode         string `json:"b_mode"`
	NewFile       bool   `json:"new_file"`
	RenamedFile   bool   `json:"renamed_file"`
	DeletedFile   bool   `json:"deleted_file"`
	GeneratedFile bool   `json:"generated_file"`
	Diff          string `json:"diff"`
}

func diffJSONOf(f *repository.FileDiff) diffJSON {
	return diffJSON{OldPath: f.OldPath, NewPath: f.NewPath, AMode: f.AMode, BMode: f.BMode,
		NewFile: f.NewFile, RenamedFile: f.RenamedFile, DeletedFile: f.DeletedFile, Diff: f.Diff}
}

// getMergeRequestDiffs is GitLab's REST list of a merge request's
// changed files.
func getMergeRequestDiffs(g *gitlab) tools.Definition {
	t := mrDiffsTool{git: mrGitOf(g)}
	return tools.Definition{
		Name:        "get_merge_request_diffs",
		Title:       "Get merge request diffs",
		Description: "List the changed files of a GitLab merge request with their unified diffs, a page at a time.",
		InputSchema: argsSchema(t.run, mrSchema(true, "changed files"), "id", "merge_request_iid"),
		Annotations: readOnlyTool("Get merge request diffs"),
		Toolset:     models.ToolsetMergeRequests,
		Aliases:     []string{"list_merge_request_diffs"},
		Edition:     models.EditionCE,
		Source:      "lib/api/merge_requests.rb",
		Target:      g.target(tools.TargetMergeRequest, access.ReadMergeRequest),
		Run:         tools.Typed(t.run),
	}
}

// mrDiffsTool is get_merge_request_diffs with what it needs: git.
type mrDiffsTool struct {
	git mrGit
}

func (t mrDiffsTool) run(ctx context.Context, call *tools.Call, args mrArgs) (*tools.Result, error) {
	return mrPage(ctx, t.git, call, args, repository.CompareOptions{SkipCommits: true},
		func(_ *projectAccess, cmp *repository.Comparison) []diffJSON {
			items := make([]diffJSON, 0, len(cmp.Files))
			for k := range cmp.Files {
				items = append(items, diffJSONOf(&cmp.Files[k]))
			}
			return items
		})
}
