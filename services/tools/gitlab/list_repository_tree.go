package gitlab

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"gitlab.com/glmcp/glmcp/internal/cursor"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// treePageSize is GitLab's page of list_repository_tree.
const treePageSize = 100

type listRepositoryTreeArgs struct {
	repoTarget
	Path      string `json:"path"`
	Ref       string `json:"ref"`
	Recursive bool   `json:"recursive"`
	After     string `json:"after"`
}

type treeEntryJSON struct {
	ID       string `json:"id"`
	Sha      string `json:"sha"`
	Name     string `json:"name"`
	Type     string `json:"type"`
	Path     string `json:"path"`
	FlatPath string `json:"flatPath"`
	Mode     string `json:"mode"`
}

type treeJSON struct {
	Entries  []treeEntryJSON   `json:"entries"`
	PageInfo graphPageInfoJSON `json:"pageInfo"`
}

func listRepositoryTree(g *gitlab) tools.Definition {
	t := listRepositoryTreeTool{repo: newRepoOpener(g), cursors: g.cursors}
	props := repoProps("GitLab URL of the project. Provide exactly one of url or project_id.",
		"Project ID or full path. Provide exactly one of url or project_id.")
	props["path"] = strProp("Path of the directory to list, relative to the repository root. Defaults to the root.", 0, 4096)
	props["ref"] = strProp("Branch name, tag name, or commit SHA. Defaults to HEAD, the default branch.", 0, 1024)
	props["recursive"] = boolProp("When true, lists entries of all subdirectories recursively. Defaults to false.")
	props["after"] = strProp("Cursor for forward pagination. Use endCursor from the previous response.", 0, 8192)
	return tools.Definition{
		Name:  "list_repository_tree",
		Title: "List repository tree",
		Description: "List files and directories in a GitLab repository at a given path and ref. " +
			"Identify the project with exactly one of url or project_id. Returns entry metadata only, " +
			"never file contents; use get_repository_file to read a file. Each call returns up to 100 " +
			"entries; when pageInfo.hasNextPage is true, pass pageInfo.endCursor as after to fetch the next page.",
		InputSchema:  argsSchema(t.run, props),
		OutputSchema: tools.OutputSchemaOf[treeJSON](),
		Annotations:  readOnlyTool("List repository tree"),
		Toolset:      models.ToolsetRepository,
		Edition:      models.EditionCE,
		Source:       "app/services/mcp/tools/repositories/list_repository_tree_tool.rb",
		Target: g.repoProject("project_id", urlOrID, func(string) error {
			return &kindError{msg: "Project not found: it does not exist or you do not have access to it.", kind: models.ErrNotFound}
		}),
		Run: tools.Typed(t.run),
	}
}

// listRepositoryTreeTool is list_repository_tree with what it needs: the
// project's repository and the signer of its cursors.
type listRepositoryTreeTool struct {
	repo    repoOpener
	cursors *cursor.Signer
}

func (t listRepositoryTreeTool) run(ctx context.Context, call *tools.Call, args listRepositoryTreeArgs) (*tools.Result, error) {
	ra, err := t.repo.open(ctx, call, args.repoTarget)
	if err != nil {
		return nil, err
	}
	defer ra.Close()
	filters := args
	filters.repoTarget, filters.After = repoTarget{}, ""
	pages := newPager(t.cursors, call, "list_repository_tree", "project:"+strconv.FormatInt(ra.pa.project.ID, 10), filters)
	after, err := pages.openString("after", args.After)
	if err != nil {
		return nil, err
	}
	path := strings.TrimLeft(args.Path, "/")
	branches, err := ra.repo.Branches(ctx)
	if err != nil {
		return nil, err
	}
	if len(branches) == 0 { // an empty repository
		return jsonResult(treeJSON{Entries: []treeEntryJSON{}})
	}
	page, err := ra.repo.Tree(ctx, args.Ref, path, repository.TreeOptions{Recursive: args.Recursive, After: after, Limit: treePageSize})
	if err != nil {
		if errors.Is(err, models.ErrInvalidInput) && !strings.Contains(err.Error(), "is a file") {
			return nil, repoError(err)
		}
		if _, cerr := ra.repo.Commit(ctx, args.Ref); args.Ref != "" && cerr != nil {
			return nil, refNotFound(args.Ref)
		}
		if errors.Is(err, models.ErrNotFound) || errors.Is(err, models.ErrInvalidInput) {
			ref := args.Ref
			if ref == "" {
				ref = "HEAD"
			}
			return nil, &kindError{msg: fmt.Sprintf("Path '%s' not found at ref '%s': it does not exist "+
				"or is a file, not a directory. Provide a directory path relative to the repository root, "+
				"or use get_repository_file to read a file.", args.Path, ref), kind: models.ErrNotFound}
		}
		return nil, repoError(err)
	}
	// GitLab lists a page's trees, then its blobs, then its submodules.
	out := treeJSON{Entries: make([]treeEntryJSON, 0, len(page.Entries))}
	for _, kind := range []string{"tree", "blob", "commit"} {
		for _, e := range page.Entries {
			if e.Type == kind {
				out.Entries = append(out.Entries, treeEntryJSON{ID: e.ID, Sha: e.ID, Name: e.Name, Type: e.Type,
					Path: e.Path, FlatPath: e.Path, Mode: e.Mode})
			}
		}
	}
	if page.Next != "" {
		c, err := pages.mintString(page.Next)
		if err != nil {
			return nil, err
		}
		out.PageInfo = graphPageInfoJSON{HasNextPage: true, EndCursor: &c}
	}
	return jsonResult(out)
}
