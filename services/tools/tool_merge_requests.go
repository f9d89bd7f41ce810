package tools

import (
	"context"
	"errors"
	"strconv"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
)

// mrArgs identify a merge request: GitLab's id + merge_request_iid.
type mrArgs struct {
	ID              refArg `json:"id"`
	MergeRequestIID intArg `json:"merge_request_iid"`
	PerPage         intArg `json:"per_page"`
	Page            intArg `json:"page"`
}

func mrSchema(paged bool, items string) obj {
	props := obj{
		"id":                projectIDProp(),
		"merge_request_iid": iidProp("Internal ID of the merge request (the number after !)."),
	}
	if paged {
		props["per_page"] = perPageProp(items)
		props["page"] = pageProp()
	}
	return props
}

// mrCall is a merge request tool's call resolved: the caller, the
// arguments, the project and the merge request.
type mrCall struct {
	user *models.User
	args mrArgs
	pa   *projectAccess
	mr   *models.MergeRequest
}

// readableMergeRequest resolves a merge request tool's call: a missing or
// hidden merge request (Guests of private projects see none) is "404 Merge
// Request Not Found".
func (g *gitlab) readableMergeRequest(ctx context.Context, call *Call) (*mrCall, error) {
	u, err := g.viewer(call)
	if err != nil {
		return nil, err
	}
	c := &mrCall{user: u}
	if err := decodeArgs(call.Arguments, &c.args); err != nil {
		return nil, err
	}
	c.pa, c.mr, err = g.findReadableMergeRequest(ctx, u, &c.args)
	if err != nil {
		return nil, err
	}
	return c, nil
}

func (g *gitlab) findReadableMergeRequest(ctx context.Context, u *models.User, args *mrArgs) (*projectAccess, *models.MergeRequest, error) {
	pa, err := resolveProject(ctx, g.store, u, "id", args.ID)
	if err != nil {
		return nil, nil, err
	}
	if !access.CanReadCode(u, pa.project, pa.level) {
		return nil, nil, notFound("Merge Request")
	}
	mr, err := g.store.LoadMergeRequest(ctx, pa.project.ID, int64(args.MergeRequestIID))
	if errors.Is(err, models.ErrNotFound) {
		return nil, nil, notFound("Merge Request")
	}
	if err != nil {
		return nil, nil, err
	}
	return pa, mr, nil
}

// paging returns GitLab's page and per_page with their defaults.
func paging(page, perPage intArg) (int, int) {
	p, pp := int(page), int(perPage)
	if p < 1 {
		p = 1
	}
	if pp < 1 {
		pp = defaultPerPage
	}
	return p, min(pp, maxPerPage)
}

func (g *gitlab) getMergeRequest() Definition {
	return Definition{
		Name:  "get_merge_request",
		Title: "Get merge request",
		Description: "Get a single merge request of a GitLab project by its internal ID (the number after !): " +
			"title, description, state, branches, author, assignees, reviewers, merge status and head pipeline.",
		InputSchema: inputSchema(mrSchema(false, ""), "id", "merge_request_iid"),
		Annotations: readOnlyTool("Get merge request"),
		Toolset:     models.ToolsetMergeRequests,
		Edition:     models.EditionCE,
		Run: func(ctx context.Context, call *Call) (*Result, error) {
			c, err := g.readableMergeRequest(ctx, call)
			if err != nil {
				return nil, err
			}
			return g.mergeRequestResult(ctx, g.store, c.user, c.pa, c.mr)
		},
	}
}

// mergeRequestResult renders the single merge request view.
func (g *gitlab) mergeRequestResult(ctx context.Context, st DomainStore, u *models.User, pa *projectAccess, mr *models.MergeRequest) (*Result, error) {
	notes, err := st.CountUserNotes(ctx, models.NoteableMergeRequest, mr.ID, false)
	if err != nil {
		return nil, err
	}
	changes, err := st.CountMergeRequestDiffs(ctx, mr.ID)
	if err != nil {
		return nil, err
	}
	pipelines, err := st.LatestMergeRequestPipelines(ctx, mr, maxPerPage)
	if err != nil {
		return nil, err
	}
	out := g.mergeRequest(pa.project, mr, notes)
	count := strconv.FormatInt(changes, 10)
	out.ChangesCount = &count
	// GitLab's head pipeline: the newest pipeline of the source branch's
	// head commit.
	for k := range pipelines {
		if p := &pipelines[k]; p.SHA == mr.SHA && mr.SHA != "" {
			hp := g.pipeline(pa.project, p)
			hp.StartedAt, hp.FinishedAt = apiTimePtr(p.StartedAt), apiTimePtr(p.FinishedAt)
			out.HeadPipeline = hp
			break
		}
	}
	// Merging an unprotected branch needs the role creating merge requests does.
	out.User = &mergeRequestUserJSON{CanMerge: access.CanCreateMergeRequest(u, pa.project, pa.level)}
	return jsonResult(out)
}

type commitJSON struct {
	ID             string            `json:"id"`
	ShortID        string            `json:"short_id"`
	CreatedAt      string            `json:"created_at"`
	ParentIDs      []string          `json:"parent_ids"`
	Title          string            `json:"title"`
	Message        string            `json:"message"`
	AuthorName     string            `json:"author_name"`
	AuthorEmail    string            `json:"author_email"`
	AuthoredDate   string            `json:"authored_date"`
	CommitterName  string            `json:"committer_name"`
	CommitterEmail string            `json:"committer_email"`
	CommittedDate  string            `json:"committed_date"`
	Trailers       map[string]string `json:"trailers"`
	WebURL         string            `json:"web_url"`
}

func (g *gitlab) getMergeRequestCommits() Definition {
	return Definition{
		Name:        "get_merge_request_commits",
		Title:       "Get merge request commits",
		Description: "List the commits of a GitLab merge request, newest first, a page at a time.",
		InputSchema: inputSchema(mrSchema(true, "commits"), "id", "merge_request_iid"),
		Annotations: readOnlyTool("Get merge request commits"),
		Toolset:     models.ToolsetMergeRequests,
		Edition:     models.EditionCE,
		Run: func(ctx context.Context, call *Call) (*Result, error) {
			c, err := g.readableMergeRequest(ctx, call)
			if err != nil {
				return nil, err
			}
			page, perPage := paging(c.args.Page, c.args.PerPage)
			commits, total, err := g.store.PageMergeRequestCommits(ctx, c.mr.ID, perPage, (page-1)*perPage)
			if err != nil {
				return nil, err
			}
			items := make([]commitJSON, 0, len(commits))
			commitURL := g.projectURL(c.pa.project) + "/-/commit/"
			for _, cm := range commits {
				items = append(items, commitJSON{
					ID: cm.SHA, ShortID: cm.ShortID, CreatedAt: apiTime(cm.CommittedDate), ParentIDs: []string{},
					Title: cm.Title, Message: cm.Message, AuthorName: cm.AuthorName, AuthorEmail: cm.AuthorEmail,
					AuthoredDate: apiTime(cm.AuthoredDate), CommitterName: cm.CommitterName,
					CommitterEmail: cm.CommitterEmail, CommittedDate: apiTime(cm.CommittedDate),
					Trailers: map[string]string{}, WebURL: commitURL + cm.SHA,
				})
			}
			return jsonResult(listJSON[commitJSON]{Items: items, PageInfo: newRESTPageInfo(page, perPage, total)})
		},
	}
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

func (g *gitlab) getMergeRequestDiffs() Definition {
	return Definition{
		Name:        "get_merge_request_diffs",
		Title:       "Get merge request diffs",
		Description: "List the changed files of a GitLab merge request with their unified diffs, a page at a time.",
		InputSchema: inputSchema(mrSchema(true, "changed files"), "id", "merge_request_iid"),
		Annotations: readOnlyTool("Get merge request diffs"),
		Toolset:     models.ToolsetMergeRequests,
		Edition:     models.EditionCE,
		Run: func(ctx context.Context, call *Call) (*Result, error) {
			c, err := g.readableMergeRequest(ctx, call)
			if err != nil {
				return nil, err
			}
			page, perPage := paging(c.args.Page, c.args.PerPage)
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
		},
	}
}

func (g *gitlab) getMergeRequestPipelines() Definition {
	return Definition{
		Name:  "get_merge_request_pipelines",
		Title: "Get merge request pipelines",
		Description: "List the CI/CD pipelines of a GitLab merge request, newest first (at most 100): merge request " +
			"pipelines and branch pipelines that ran on its commits.",
		InputSchema: inputSchema(mrSchema(false, ""), "id", "merge_request_iid"),
		Annotations: readOnlyTool("Get merge request pipelines"),
		Toolset:     models.ToolsetMergeRequests,
		Edition:     models.EditionCE,
		Run: func(ctx context.Context, call *Call) (*Result, error) {
			c, err := g.readableMergeRequest(ctx, call)
			if err != nil {
				return nil, err
			}
			pipelines, total, err := g.store.MergeRequestPipelines(ctx, c.mr, maxPerPage)
			if err != nil {
				return nil, err
			}
			items := make([]*pipelineJSON, 0, len(pipelines))
			for k := range pipelines {
				items = append(items, g.pipeline(c.pa.project, &pipelines[k]))
			}
			return jsonResult(listJSON[*pipelineJSON]{Items: items, PageInfo: newRESTPageInfo(1, maxPerPage, total)})
		},
	}
}
