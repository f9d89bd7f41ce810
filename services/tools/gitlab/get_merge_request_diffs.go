package gitlab

import (
	"context"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

func init() {
	register((*gitlab).getMergeRequestDiffs)
}

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

func (g *gitlab) getMergeRequestDiffs() tools.Definition {
	return tools.Definition{
		Name:        "get_merge_request_diffs",
		Title:       "Get merge request diffs",
		Description: "List the changed files of a GitLab merge request with their unified diffs, a page at a time.",
		InputSchema: inputSchema(mrSchema(true, "changed files"), "id", "merge_request_iid"),
		Annotations: readOnlyTool("Get merge request diffs"),
		Toolset:     models.ToolsetMergeRequests,
		Unlisted:    true, // superseded in GitLab 19.5; callable by name
		Edition:     models.EditionCE,
		Run: tools.Typed(func(ctx context.Context, call *tools.Call, args mrArgs) (*tools.Result, error) {
			c, err := g.readableMergeRequest(ctx, call, args)
			if err != nil {
				return nil, err
			}
			page, perPage, err := paging(c.args.Page, c.args.PerPage)
			if err != nil {
				return nil, err
			}
			diffs, total, err := g.store.PageMergeRequestDiffs(ctx, c.mr.ID, perPage, (page-1)*perPage)
			if err != nil {
				return nil, err
			}
			items := make([]diffJSON, 0, len(diffs))
			for _, d := range diffs {
				items = append(items, diffJSON{OldPath: d.OldPath, NewPath: d.NewPath, AMode: d.AMode, BMode: d.BMode,
					NewFile: d.NewFile, RenamedFile: d.RenamedFile, DeletedFile: d.DeletedFile, Diff: d.Diff})
			}
			return jsonResult(listJSON[diffJSON]{Items: items, PageInfo: newRESTPageInfo(page, perPage, total)})
		}),
	}
}
