package gitlab

import (
	"context"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// getMergeRequestCommits is GitLab's REST list of a merge request's
// commits.
func getMergeRequestCommits(g *gitlab) tools.Definition {
	t := mrCommitsTool{git: mrGitOf(g), links: g.links}
	return tools.Definition{
		Name:        "get_merge_request_commits",
		Title:       "Get merge request commits",
		Description: "List the commits of a GitLab merge request, newest first, a page at a time.",
		InputSchema: argsSchema(t.run, mrSchema(true, "commits"), "id", "merge_request_iid"),
		Annotations: readOnlyTool("Get merge request commits"),
		Toolset:     models.ToolsetMergeRequests,
		Edition:     models.EditionCE,
		Source:      "lib/api/merge_requests.rb",
		Target:      g.target(tools.TargetMergeRequest, access.ReadMergeRequest),
		Run:         tools.Typed(t.run),
	}
}

// mrCommitsTool is get_merge_request_commits with what it needs: git and
// the links its commits carry.
type mrCommitsTool struct {
	git   mrGit
	links links
}

func (t mrCommitsTool) run(ctx context.Context, call *tools.Call, args mrArgs) (*tools.Result, error) {
	return mrPage(ctx, t.git, call, args, repository.CompareOptions{SkipDiffs: true},
		func(pa *projectAccess, cmp *repository.Comparison) []commitJSON {
			items := make([]commitJSON, 0, len(cmp.Commits))
			for k := range cmp.Commits {
				items = append(items, t.links.commitJSONOf(pa.project, &cmp.Commits[k]))
			}
			return items
		})
}
