package gitlab

import (
	"context"
	"net/url"
	"strconv"
	"strings"

	"gitlab.com/glmcp/glmcp/internal/cursor"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// listWikiPages is GitLab's list_wiki_pages (GraphQL project.wikiPages).
func listWikiPages(g *gitlab) tools.Definition {
	t := listWikiPagesTool{store: bind(g.store, func(f Families) listWikiPagesStore {
		return listWikiPagesStore{directory{f.Projects, f.Groups, f.Users}, f.Releases}
	}), links: g.links, cursors: g.cursors}
	return tools.Definition{
		Name:  "list_wiki_pages",
		Title: "List wiki pages",
		Description: "List the wiki pages of a GitLab project (title, slug and web URL), in slug order, with cursor " +
			"pagination. Give exactly one of project_id or group_id; group wikis are not available on this instance.",
		InputSchema: argsSchema(t.run, obj{
			"project_id": refProp("ID or path of the project. Required if group_id is not provided."),
			"group_id":   refProp("ID or path of the group. Required if project_id is not provided."),
			"first":      withDesc(obj{"type": "integer", "minimum": 1, "maximum": maxPerPage}, "Number of wiki pages to return after the cursor (forward pagination, max 100). Default 20."),
			"after":      strProp("Cursor for forward pagination. Use metadata.end_cursor from the previous response.", 1, maxCursorLen),
		}),
		Annotations:  readOnlyTool("List wiki pages"),
		OutputSchema: tools.OutputSchemaOf[wikiPagesJSON](),
		Toolset:      models.ToolsetWikis,
		Edition:      models.EditionCE,
		Source:       "app/services/mcp/tools/wikis/list_wiki_pages_tool.rb",
		// The project whose wiki it lists, looked up once (find).
		Target: g.lookupTarget(t.find),
		Run:    tools.Typed(t.run),
	}
}

// listWikiPagesStore is what list_wiki_pages needs from the store: the
// project and group lookups, and the wiki.
type listWikiPagesStore struct {
	directory
	wikiPageLister
}

// wikiPageLister lists a project's wiki pages (Releases).
type wikiPageLister interface {
	ListWikiPages(ctx context.Context, projectID int64, afterSlug string, limit int) ([]models.WikiPage, error)
}

// listWikiPagesTool is list_wiki_pages with what it needs: the projects
// and their wikis, the instance URL its answers link to and the cursor
// signer of its pages.
type listWikiPagesTool struct {
	store   *listWikiPagesStore // nil: no store (a catalog built without one)
	links   links
	cursors *cursor.Signer
}

type listWikiPagesArgs struct {
	ProjectID *refArg `json:"project_id"`
	GroupID   *refArg `json:"group_id"`
	First     *intArg `json:"first"`
	After     string  `json:"after"`
}

type wikiPageJSON struct {
	Title  string `json:"title"`
	Slug   string `json:"slug"`
	WebURL string `json:"webUrl"`
}

// errWikiUnavailable is GitLab's answer for a wiki the caller cannot read
// (a group wiki on GitLab CE, which glmcp matches: it has no group wikis).
var errWikiUnavailable = tools.Errorf("This wiki isn't available. It may be disabled, not available on the current plan, " +
	"or you don't have permission to view it. If you expected access, check the wiki's settings or contact an administrator.")

// find is list_wiki_pages' lookupFunc: the project whose wiki it lists.
// A group named is looked up for its answer (not found, or a group wiki
// this instance does not have) and for the place it names.
func (t listWikiPagesTool) find(ctx context.Context, u *models.User, call *tools.Call) (any, *projectAccess, *models.Group, error) {
	args, err := tools.Args[listWikiPagesArgs](call)
	if err != nil {
		return nil, nil, nil, err
	}
	if (args.ProjectID == nil) == (args.GroupID == nil) {
		return nil, nil, nil, invalidf("Provide exactly one of project_id or group_id.")
	}
	if args.GroupID != nil {
		grp, err := resolveGroup(ctx, t.store, u, "group_id", *args.GroupID)
		if err != nil {
			return nil, nil, nil, err
		}
		return nil, nil, grp, errWikiUnavailable
	}
	pa, err := resolveProject(ctx, t.store, u, "project_id", *args.ProjectID)
	if err != nil {
		return nil, nil, nil, err
	}
	return pa, pa, nil, nil
}

func (t listWikiPagesTool) run(ctx context.Context, call *tools.Call, args listWikiPagesArgs) (*tools.Result, error) {
	if t.store == nil {
		return nil, errNoStore
	}
	if _, err := callerOf(call); err != nil {
		return nil, err
	}
	pa, err := lookedUp[*projectAccess](call)
	if err != nil {
		return nil, err
	}
	limit := defaultPerPage
	if args.First != nil {
		limit = int(*args.First)
	}
	// The list is the project's wiki; the position the last slug.
	pager := newPager(t.cursors, call, "list_wiki_pages", "project:"+strconv.FormatInt(pa.project.ID, 10), nil)
	after, err := pager.openString("after", args.After)
	if err != nil {
		return nil, err
	}
	pages, err := t.store.ListWikiPages(ctx, pa.project.ID, after, limit)
	if err != nil {
		return nil, err
	}
	more := len(pages) > limit
	if more {
		pages = pages[:limit]
	}
	items := make([]wikiPageJSON, 0, len(pages))
	for _, p := range pages {
		items = append(items, wikiPageJSON{Title: p.Title, Slug: p.Slug,
			WebURL: t.links.projectURL(pa.project) + "/-/wikis/" + escapeSlug(p.Slug)})
	}
	// end_cursor is there only when more pages follow (GitLab's "more
	// pages" signal).
	var end *string
	if more {
		c, err := pager.mintString(pages[len(pages)-1].Slug)
		if err != nil {
			return nil, err
		}
		end = &c
	}
	return jsonResult(wikiPagesJSON{Items: items, Metadata: wikiPagesMetadataJSON{EndCursor: end}})
}

// escapeSlug escapes each segment of a wiki slug for a URL path.
func escapeSlug(slug string) string {
	parts := strings.Split(slug, "/")
	for k, p := range parts {
		parts[k] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}

// wikiPagesJSON is list_wiki_pages' answer.
type wikiPagesJSON struct {
	Items    []wikiPageJSON        `json:"items"`
	Metadata wikiPagesMetadataJSON `json:"metadata"`
}

type wikiPagesMetadataJSON struct {
	EndCursor *string `json:"end_cursor"`
}
