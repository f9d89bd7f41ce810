package gitlab

import (
	"context"
	"regexp"
	"slices"
	"strings"

	"gitlab.com/glmcp/glmcp/services/repository"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// list_tags is GitLab 19.5's Repositories::Tags::ListTagsService: the
// project by url or project_id, tags most recently updated first (by the
// committer date of the commit a tag points to; ties by name), an optional
// search (^ anchors the start, $ the end, * is a wildcard; a tag named
// exactly the search comes first), and first/after paging whose cursor is
// the last tag's name.

type listTagsArgs struct {
	repoTarget
	Search string `json:"search"`
	After  string `json:"after"`
	First  intArg `json:"first"`
}

type tagCommitJSON struct {
	SHA   string `json:"sha"`
	Title string `json:"title"`
}

type tagItemJSON struct {
	Name   string         `json:"name"`
	Commit *tagCommitJSON `json:"commit"`
}

type tagsMetadataJSON struct {
	HasNextPage bool    `json:"has_next_page"`
	EndCursor   *string `json:"end_cursor"`
}

type listTagsJSON struct {
	Tags     []tagItemJSON    `json:"tags"`
	Metadata tagsMetadataJSON `json:"metadata"`
}

func listTags(g *gitlab) tools.Definition {
	t := listTagsTool{repo: newRepoOpener(g)}
	props := repoProps("GitLab URL of the project.", "ID or full path of the project.")
	props["search"] = strProp("Filter tags by name. Supports ^ to anchor the start, $ to anchor the end, and * as a wildcard.", 0, 255)
	props["after"] = strProp("Cursor for forward pagination. Use metadata.end_cursor from the previous response.", 1, 1024)
	props["first"] = withDesc(obj{"type": "integer", "minimum": 1, "maximum": maxPerPage},
		"Number of tags to return. Default is 20, maximum is 100.")
	return tools.Definition{
		Name:  "list_tags",
		Title: "List tags",
		Description: "List tags in a GitLab project, most recently updated first. Identify the project with exactly one of " +
			"url or project_id. When search is given, a tag whose name matches it exactly is listed first. Returns each " +
			"tag name and its tip commit, not the tag message, commit diff, or file contents. When " +
			"metadata.has_next_page is true, pass metadata.end_cursor as after to fetch the next page.",
		InputSchema:  argsSchema(t.run, props),
		OutputSchema: tools.OutputSchemaOf[listTagsJSON](),
		Annotations:  readOnlyTool("List tags"),
		Toolset:      models.ToolsetRepository,
		Edition:      models.EditionCE,
		Source:       "app/services/mcp/tools/repositories/tags/list_tags_service.rb",
		Target:       g.repoProject("project_id", urlOrID, func(string) error { return notFound("Project") }),
		Run:          tools.Typed(t.run),
	}
}

// listTagsTool is list_tags with what it needs: the project's repository.
type listTagsTool struct {
	repo repoOpener
}

func (t listTagsTool) run(ctx context.Context, call *tools.Call, args listTagsArgs) (*tools.Result, error) {
	ra, err := t.repo.open(ctx, call, args.repoTarget)
	if err != nil {
		return nil, err
	}
	defer ra.Close()
	tags, err := ra.repo.Tags(ctx)
	if err != nil {
		return nil, err
	}
	match := tagMatcher(args.Search)
	kept := tags[:0:0]
	for _, tag := range tags {
		if match(tag.Name) {
			kept = append(kept, tag)
		}
	}
	slices.SortStableFunc(kept, func(a, b repository.Tag) int {
		if args.Search != "" && (a.Name == args.Search) != (b.Name == args.Search) {
			if a.Name == args.Search {
				return -1
			}
			return 1
		}
		if c := b.Commit.Committer.When.Compare(a.Commit.Committer.When); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	if args.After != "" {
		i := slices.IndexFunc(kept, func(tag repository.Tag) bool { return tag.Name == args.After })
		if i < 0 {
			return nil, tools.Errorf("Invalid after cursor: '%s'", clip(args.After, 64))
		}
		kept = kept[i+1:]
	}
	first := pageSize(args.First)
	out := listTagsJSON{Tags: []tagItemJSON{}}
	for _, tag := range kept[:min(first, len(kept))] {
		item := tagItemJSON{Name: tag.Name}
		if tag.Commit.ID != "" {
			item.Commit = &tagCommitJSON{SHA: tag.Commit.ID, Title: tag.Commit.Title}
		}
		out.Tags = append(out.Tags, item)
	}
	if len(kept) > first {
		end := out.Tags[len(out.Tags)-1].Name
		out.Metadata = tagsMetadataJSON{HasNextPage: true, EndCursor: &end}
	}
	return jsonResult(out)
}

// tagMatcher is GitLab's tag search: case-insensitive, a substring unless
// ^ anchors the start or $ the end, * matching any run of characters.
func tagMatcher(search string) func(string) bool {
	if search == "" {
		return func(string) bool { return true }
	}
	pattern := search
	start, end := strings.HasPrefix(pattern, "^"), strings.HasSuffix(pattern, "$")
	pattern = strings.TrimSuffix(strings.TrimPrefix(pattern, "^"), "$")
	parts := strings.Split(pattern, "*")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	expr := "(?i)" + strings.Join(parts, ".*")
	if start {
		expr = "(?i)^" + strings.Join(parts, ".*")
	}
	if end {
		expr += "$"
	}
	return regexp.MustCompile(expr).MatchString
}
