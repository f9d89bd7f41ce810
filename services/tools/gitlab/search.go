package gitlab

import (
	"context"
	"fmt"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// searchScopes are the scopes search accepts: GitLab 19.5's (CE lists
// them per level: instance projects, groups, work_items, merge_requests,
// milestones, users, snippet_titles; group the same but snippet_titles;
// project blobs, work_items, merge_requests, wiki_blobs, commits, notes,
// milestones, users) and issues, which GitLab's API still takes.
var searchScopes = []string{"projects", "groups", "issues", "work_items", "merge_requests", "milestones", "notes",
	"blobs", "wiki_blobs", "commits", "users", "snippet_titles"}

// search is GitLab's search tool (alias gitlab_search): the search API at
// instance, group or project level, chosen by group_id / project_id.
func search(g *gitlab) tools.Definition {
	t := searchTool{projects: directoryOf(g.store), hits: bind(g.store, func(f Families) searchHitsStore { return searchHitsStore{f.Search, f.Issues, f.Notes} }), links: g.links, git: gitSearch{repos: g.repos, links: g.links}}
	return tools.Definition{
		Name:  "search",
		Title: "Search GitLab",
		Description: "Search across GitLab: the whole instance, a group (group_id) or a project (project_id). " +
			"Matches are case-insensitive substrings. Scopes: projects and groups (name, path, description; not " +
			"within a project), work_items / issues (title and description), merge_requests (title and description), " +
			"milestones (title and description), notes (comments), wiki_blobs (wiki pages), users, snippet_titles " +
			"(instance only), and, within a project (project_id), blobs (file paths and contents on the default " +
			"branch; supports filename:*.go, extension:go and path:internal/ filters) and commits (messages on the " +
			"default branch). Only what you may read is searched.",
		InputSchema: argsSchema(t.run, obj{
			"scope":  enumProp("What to search for.", searchScopes...),
			"search": strProp("The term to search for.", 1, 1000),
			"group_id": refProp("Search within this group and its subgroups: ID or URL-encoded path of the group. " +
				"Ignored when project_id is given."),
			"project_id": refProp("Search within this project: ID or URL-encoded path of the project."),
			"state": enumProp("Filter work items and merge requests by state (work items: opened, closed; merge "+
				"requests: opened, closed, merged, locked). Other scopes ignore it.", "opened", "closed", "merged", "locked", "all"),
			"confidential": boolProp("Filter work items by confidentiality. Other scopes ignore it."),
			"fields": enumListProp("Fields to search in work items and merge requests: [\"title\"] searches titles only. Default: title and description.",
				true, "title"),
			"order_by": enumProp("Order results by this attribute. Only created_at is supported.", "created_at"),
			"sort":     enumProp("Sort direction: asc or desc (default desc).", "asc", "desc"),
			"per_page": perPageProp("results"),
			"page":     pageProp(),
		}, "scope", "search"),
		Annotations: readOnlyTool("Search GitLab"),
		Toolset:     models.ToolsetCore,
		Edition:     models.EditionCE,
		Source:      "app/services/mcp/tools/search/search_service.rb",
		Aliases:     []string{"gitlab_search"},
		Run:         tools.Typed(t.run),
	}
}

// searchTool is search with what it needs: the places a search is within
// and the projects of its hits (projectStore, which lockdown reads too),
// the store's searches, and the code search of the project's repository.
type searchTool struct {
	projects projectStore // nil: no store (a catalog built without one)
	hits     *searchHitsStore
	links    links
	git      gitSearcher
}

// searchHitsStore is the store's searches search runs, each applying the
// viewer's read rules in the query, and what renders their hits.
type searchHitsStore struct {
	searchScopeStore
	noteCountsOf
	noteableIIDs
}

// noteCountsOf counts the public user notes of many noteables (Issues).
type noteCountsOf interface {
	CountUserNotesOf(ctx context.Context, typ models.NoteableType, noteableIDs []int64) (map[int64]int64, error)
}

// noteableIIDs maps noteable ids to their iids (Notes).
type noteableIIDs interface {
	NoteableIIDs(ctx context.Context, typ models.NoteableType, ids []int64) (map[int64]int64, error)
}

// gitSearcher searches a project's git repository (the blobs and commits
// scopes, search_git.go).
type gitSearcher interface {
	blobs(ctx context.Context, pa *projectAccess, q models.SearchQuery) ([]any, int64, error)
	commits(ctx context.Context, pa *projectAccess, q models.SearchQuery) ([]any, int64, error)
}

type searchArgs struct {
	Scope        string   `json:"scope"`
	Search       string   `json:"search"`
	GroupID      *refArg  `json:"group_id"`
	ProjectID    *refArg  `json:"project_id"`
	State        string   `json:"state"`
	Confidential *bool    `json:"confidential"`
	Fields       []string `json:"fields"`
	OrderBy      string   `json:"order_by"`
	Sort         string   `json:"sort"`
	PerPage      intArg   `json:"per_page"`
	Page         intArg   `json:"page"`
}

const searchSteps = 3

func (t searchTool) run(ctx context.Context, call *tools.Call, args searchArgs) (*tools.Result, error) {
	if t.projects == nil {
		return nil, errNoStore
	}
	u, err := callerOf(call)
	if err != nil {
		return nil, err
	}
	page, perPage, err := paging(args.Page, args.PerPage)
	if err != nil {
		return nil, err
	}
	q := models.SearchQuery{Viewer: u, Term: strings.TrimSpace(args.Search), Confidential: args.Confidential,
		Ascending: args.Sort == "asc", Limit: perPage, Offset: (page - 1) * perPage, Lockdown: call.Lockdown}
	if args.State != "all" {
		q.State = args.State
	}
	for _, f := range args.Fields {
		q.TitleOnly = q.TitleOnly || f == "title"
	}
	scope := models.SearchScope(args.Scope)
	if scope == models.SearchWorkItems {
		scope = models.SearchIssues
	}
	if scope == models.SearchBlobs {
		q.Term, q.Filename, q.Extension, q.Path = parseBlobFilters(q.Term)
	}
	if q.Term == "" && q.Filename == "" && q.Extension == "" && q.Path == "" {
		return nil, invalidf("search: must not be blank")
	}
	switch {
	case args.ProjectID != nil && (scope == models.SearchProjects || scope == models.SearchGroups):
		return nil, invalidf("scope: %s cannot be searched within a project; use group_id or search the instance", scope)
	case args.ProjectID == nil && (scope == models.SearchBlobs || scope == models.SearchCommits):
		return nil, invalidf("scope: %s is searched within one project: give project_id (glmcp reads the project's git "+
			"repository; searching code across projects needs an index glmcp does not have)", scope)
	case (args.ProjectID != nil || args.GroupID != nil) && scope == models.SearchSnippetTitles:
		return nil, invalidf("scope: snippet_titles is searched across the instance only; omit project_id and group_id")
	}

	call.Progress(0, searchSteps, "Resolving where to search")
	where := "the instance"
	var pa *projectAccess
	switch {
	case args.ProjectID != nil:
		if pa, err = resolveProject(ctx, t.projects, u, "project_id", *args.ProjectID); err != nil {
			return nil, err
		}
		q.ProjectID, where = pa.project.ID, "project "+pa.project.PathWithNamespace
	case args.GroupID != nil:
		grp, err := resolveGroup(ctx, t.projects, u, "group_id", *args.GroupID)
		if err != nil {
			return nil, err
		}
		q.GroupPath, where = grp.FullPath, "group "+grp.FullPath
	}
	call.Progress(1, searchSteps, fmt.Sprintf("Searching %s in %s", scope, where))
	var items []any
	var total int64
	switch scope {
	case models.SearchBlobs:
		items, total, err = t.git.blobs(ctx, pa, q)
	case models.SearchCommits:
		items, total, err = t.git.commits(ctx, pa, q)
	default:
		var project *models.Project
		if pa != nil {
			project = pa.project
		}
		items, total, err = t.searchScope(ctx, scope, q, project)
	}
	if err != nil {
		return nil, err
	}
	found := fmt.Sprint(total)
	var pageInfo any = newRESTPageInfo(page, perPage, total)
	if total > models.SearchCountCap {
		found = fmt.Sprintf("%d+", models.SearchCountCap)
		pageInfo = newUncountedPageInfo(page, perPage, int64((page-1)*perPage+len(items)) < total)
	}
	call.Progress(2, searchSteps, fmt.Sprintf("Found %s result(s); rendering page %d", found, page))
	res, err := jsonResult(listJSON[any]{Items: items, PageInfo: pageInfo})
	if err != nil {
		return nil, err
	}
	call.Progress(searchSteps, searchSteps, "Done")
	return res, nil
}

// searchScope runs one scope's query on the store and renders its REST
// entities.
func (t searchTool) searchScope(ctx context.Context, scope models.SearchScope, q models.SearchQuery, project *models.Project) ([]any, int64, error) {
	items := []any{}
	switch scope {
	case models.SearchProjects:
		ps, total, err := t.hits.SearchProjects(ctx, q)
		if err != nil {
			return nil, 0, err
		}
		for k := range ps {
			items = append(items, t.links.projectSummary(&ps[k]))
		}
		return items, total, nil
	case models.SearchGroups:
		gs, total, err := t.hits.SearchGroups(ctx, q)
		if err != nil {
			return nil, 0, err
		}
		names, err := groupNames(ctx, t.projects, gs)
		if err != nil {
			return nil, 0, err
		}
		for k := range gs {
			items = append(items, t.links.groupSummary(&gs[k], fullName(names, gs[k].FullPath)))
		}
		return items, total, nil
	case models.SearchIssues:
		is, total, err := t.hits.SearchIssues(ctx, q)
		if err != nil {
			return nil, 0, err
		}
		projects, err := t.projectsByID(ctx, project, issueProjectIDs(is))
		if err != nil {
			return nil, 0, err
		}
		ids := make([]int64, len(is))
		for k := range is {
			ids[k] = is[k].ID
		}
		// user_notes_count of a hit counts its public notes: a search
		// lists issues of many projects, whatever the viewer's role.
		notes, err := t.hits.CountUserNotesOf(ctx, models.NoteableIssue, ids)
		if err != nil {
			return nil, 0, err
		}
		if q.Lockdown {
			authors := make([]authored, len(is))
			for k := range is {
				authors[k] = authored{is[k].ProjectID, is[k].AuthorID, &is[k].Description}
			}
			if err := withholdAcross(ctx, t.projects, projects, authors); err != nil {
				return nil, 0, err
			}
		}
		for k := range is {
			items = append(items, t.links.issue(projects[is[k].ProjectID], &is[k], notes[is[k].ID]))
		}
		return items, total, nil
	case models.SearchMergeRequests:
		mrs, total, err := t.hits.SearchMergeRequests(ctx, q)
		if err != nil {
			return nil, 0, err
		}
		ids := make([]int64, len(mrs))
		for k := range mrs {
			ids[k] = mrs[k].ProjectID
		}
		projects, err := t.projectsByID(ctx, project, ids)
		if err != nil {
			return nil, 0, err
		}
		mrIDs := make([]int64, len(mrs))
		for k := range mrs {
			mrIDs[k] = mrs[k].ID
		}
		notes, err := t.hits.CountUserNotesOf(ctx, models.NoteableMergeRequest, mrIDs)
		if err != nil {
			return nil, 0, err
		}
		if q.Lockdown {
			authors := make([]authored, len(mrs))
			for k := range mrs {
				authors[k] = authored{mrs[k].ProjectID, mrs[k].AuthorID, &mrs[k].Description}
			}
			if err := withholdAcross(ctx, t.projects, projects, authors); err != nil {
				return nil, 0, err
			}
		}
		for k := range mrs {
			items = append(items, t.links.mergeRequest(projects[mrs[k].ProjectID], &mrs[k], notes[mrs[k].ID]))
		}
		return items, total, nil
	case models.SearchMilestones:
		ms, total, err := t.hits.SearchMilestones(ctx, q)
		if err != nil {
			return nil, 0, err
		}
		ids := make([]int64, len(ms))
		for k := range ms {
			ids[k] = ms[k].ProjectID
		}
		projects, err := t.projectsByID(ctx, project, ids)
		if err != nil {
			return nil, 0, err
		}
		for k := range ms {
			items = append(items, t.links.milestoneResult(projects[ms[k].ProjectID], &ms[k]))
		}
		return items, total, nil
	case models.SearchNotes:
		return t.searchNotes(ctx, q)
	case models.SearchWikiBlobs:
		pages, total, err := t.hits.SearchWikiPages(ctx, q)
		if err != nil {
			return nil, 0, err
		}
		for _, wp := range pages {
			items = append(items, wikiBlobResult(wp, q.Term))
		}
		return items, total, nil
	case models.SearchUsers:
		us, total, err := t.hits.SearchUsers(ctx, q)
		if err != nil {
			return nil, 0, err
		}
		for k := range us {
			items = append(items, t.links.user(&us[k]))
		}
		return items, total, nil
	case models.SearchSnippetTitles:
		return items, 0, nil // glmcp has no snippets: nothing matches
	}
	return nil, 0, invalidf("scope: %q is not supported", scope)
}

func (t searchTool) searchNotes(ctx context.Context, q models.SearchQuery) ([]any, int64, error) {
	notes, total, err := t.hits.SearchNotes(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	byType := map[models.NoteableType][]int64{}
	for _, n := range notes {
		byType[n.NoteableType] = append(byType[n.NoteableType], n.NoteableID)
	}
	iids := map[models.NoteableType]map[int64]int64{}
	for typ, ids := range byType {
		if iids[typ], err = t.hits.NoteableIIDs(ctx, typ, ids); err != nil {
			return nil, 0, err
		}
	}
	items := make([]any, 0, len(notes))
	for k := range notes {
		n := &notes[k]
		items = append(items, t.links.note(n, iids[n.NoteableType][n.NoteableID]))
	}
	return items, total, nil
}

// projectsByID loads the projects of search hits (known is already loaded).
func (t searchTool) projectsByID(ctx context.Context, known *models.Project, ids []int64) (map[int64]*models.Project, error) {
	out := map[int64]*models.Project{}
	if known != nil {
		out[known.ID] = known
	}
	var missing []int64
	for _, id := range ids {
		if _, ok := out[id]; !ok {
			missing = append(missing, id)
			out[id] = nil
		}
	}
	ps, err := t.projects.LoadProjects(ctx, missing)
	if err != nil {
		return nil, err
	}
	for k := range ps {
		out[ps[k].ID] = &ps[k]
	}
	for id, p := range out {
		if p == nil {
			return nil, fmt.Errorf("project %d of a search hit not found", id)
		}
	}
	return out, nil
}

func issueProjectIDs(is []models.Issue) []int64 {
	ids := make([]int64, len(is))
	for k := range is {
		ids[k] = is[k].ProjectID
	}
	return ids
}

type projectSummaryJSON struct {
	ID                int64  `json:"id"`
	Description       string `json:"description"`
	Name              string `json:"name"`
	NameWithNamespace string `json:"name_with_namespace"`
	Path              string `json:"path"`
	PathWithNamespace string `json:"path_with_namespace"`
	CreatedAt         string `json:"created_at"`
	DefaultBranch     string `json:"default_branch"`
	Visibility        string `json:"visibility"`
	WebURL            string `json:"web_url"`
	NamespaceID       int64  `json:"namespace_id"`
}

func (l links) projectSummary(p *models.Project) *projectSummaryJSON {
	ns := strings.TrimSuffix(p.PathWithNamespace, "/"+p.Path)
	return &projectSummaryJSON{ID: p.ID, Description: p.Description, Name: p.Name,
		NameWithNamespace: strings.ReplaceAll(ns, "/", " / ") + " / " + p.Name, Path: p.Path,
		PathWithNamespace: p.PathWithNamespace, CreatedAt: apiTime(p.CreatedAt), DefaultBranch: p.DefaultBranch,
		Visibility: string(p.Visibility), WebURL: l.projectURL(p), NamespaceID: p.NamespaceID}
}

// parseBlobFilters pulls GitLab's filename:, extension: and path: filters
// out of a blob search term.
func parseBlobFilters(term string) (rest, filename, extension, dir string) {
	var words []string
	for _, w := range strings.Fields(term) {
		switch lw := strings.ToLower(w); {
		case strings.HasPrefix(lw, "filename:") && len(w) > len("filename:"):
			filename = w[len("filename:"):]
		case strings.HasPrefix(lw, "extension:") && len(w) > len("extension:"):
			extension = strings.TrimPrefix(w[len("extension:"):], ".")
		case strings.HasPrefix(lw, "path:") && len(w) > len("path:"):
			dir = w[len("path:"):]
		default:
			words = append(words, w)
		}
	}
	return strings.Join(words, " "), filename, extension, dir
}
