package gitlab

import (
	"context"
	"strconv"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// mrFacets are get_merge_request's include values (GitLab 19.5).
var mrFacets = []string{"diffs", "commits", "notes", "pipelines", "discussions", "approvals", "conflicts"}

// getMergeRequest is GitLab 19.5's get_merge_request: the merge request and
// at most one facet, each paged with its own cursor.
func (g *gitlab) getMergeRequest() tools.Definition {
	props := mrRefProps(obj{
		"include": withDesc(obj{"type": "array", "items": obj{"type": "string", "enum": mrFacets}, "maxItems": 1, "uniqueItems": true},
			"Associated facets to fetch inline, one per call. diffs returns aggregate change stats and a per-file "+
				"breakdown by default; set detail=full_patch for raw per-file patch text or detail=none for summary "+
				"counts only. conflicts returns raw conflict file content, only when the merge request cannot be "+
				"merged and the caller can push to the source branch. diffs, notes, commits, pipelines and discussions "+
				"support pagination (diffs_*, notes_*, commits_*, pipelines_*, discussions_*); for the newest notes, "+
				"use notes_last without notes_first or notes_after. approvals returns approved and approvedBy; "+
				"approvalsRequired and approvalsLeft are 0 (no approval rules on this instance)."),
		"detail": enumProp("Level of diff detail, applies only when diffs is in include. none: summary counts only; "+
			"stats: per-file additions and deletions (default); full_patch: per-file patch text (raw diff), plus the per-file stats.",
			"none", "stats", "full_patch"),
		"diffs_first":       firstProp("files", "diffs_", "diffs is in include and detail is full_patch"),
		"diffs_after":       cursorProp("files", "pageInfo.endCursor", "diffs is in include and detail is full_patch"),
		"notes_first":       firstProp("notes", "notes_", "notes is in include"),
		"notes_after":       cursorProp("notes", "pageInfo.endCursor", "notes is in include"),
		"notes_last":        lastProp("notes", "notes is in include"),
		"notes_before":      cursorProp("notes", "pageInfo.startCursor", "notes is in include"),
		"commits_first":     firstProp("commits", "commits_", "commits is in include"),
		"commits_after":     cursorProp("commits", "pageInfo.endCursor", "commits is in include"),
		"pipelines_first":   firstProp("pipelines", "pipelines_", "pipelines is in include"),
		"pipelines_after":   cursorProp("pipelines", "pageInfo.endCursor", "pipelines is in include"),
		"discussions_first": firstProp("discussions", "discussions_", "discussions is in include"),
		"discussions_after": cursorProp("discussions", "pageInfo.endCursor", "discussions is in include"),
	})
	return tools.Definition{
		Name:  "get_merge_request",
		Title: "Get merge request",
		Description: "Get a merge request and optionally its diffs, commits, notes, pipelines, discussions, approvals, " +
			"or conflicts. By default only the base merge request metadata is returned; request associated data " +
			"through the `include` parameter so nothing extra is fetched unless asked for.",
		InputSchema:  argsSchema(g.runGetMergeRequest, props),
		OutputSchema: tools.OutputSchemaOf[mrDetailJSON](),
		Annotations:  readOnlyTool("Get merge request"),
		Toolset:      models.ToolsetMergeRequests,
		Edition:      models.EditionCE,
		Source:       "app/services/mcp/tools/merge_requests/get_merge_request_tool.rb",
		Target:       mrRefTargetOf[getMRArgs](g),
		Run:          tools.Typed(g.runGetMergeRequest),
	}
}

type getMRArgs struct {
	mrRefArgs
	Include          []string `json:"include"`
	Detail           string   `json:"detail"`
	DiffsFirst       intArg   `json:"diffs_first"`
	DiffsAfter       string   `json:"diffs_after"`
	NotesFirst       intArg   `json:"notes_first"`
	NotesAfter       string   `json:"notes_after"`
	NotesLast        intArg   `json:"notes_last"`
	NotesBefore      string   `json:"notes_before"`
	CommitsFirst     intArg   `json:"commits_first"`
	CommitsAfter     string   `json:"commits_after"`
	PipelinesFirst   intArg   `json:"pipelines_first"`
	PipelinesAfter   string   `json:"pipelines_after"`
	DiscussionsFirst intArg   `json:"discussions_first"`
	DiscussionsAfter string   `json:"discussions_after"`
}

// mrDetailJSON is get_merge_request's merge request (GitLab's GraphQL
// MergeRequest fields the tool selects).
type mrDetailJSON struct {
	ID                       string         `json:"id"`
	IID                      string         `json:"iid"`
	Title                    string         `json:"title"`
	Description              string         `json:"description"`
	State                    string         `json:"state"`
	Draft                    bool           `json:"draft"`
	SourceBranch             string         `json:"sourceBranch"`
	TargetBranch             string         `json:"targetBranch"`
	DiffHeadSha              *string        `json:"diffHeadSha"`
	MergeStatus              string         `json:"mergeStatus"`
	DetailedMergeStatus      string         `json:"detailedMergeStatus"`
	Conflicts                bool           `json:"conflicts"`
	Squash                   bool           `json:"squash"`
	ShouldRemoveSourceBranch bool           `json:"shouldRemoveSourceBranch"`
	DiscussionLocked         bool           `json:"discussionLocked"`
	AllowCollaboration       bool           `json:"allowCollaboration"`
	WebURL                   string         `json:"webUrl"`
	Reference                string         `json:"reference"`
	CreatedAt                string         `json:"createdAt"`
	UpdatedAt                string         `json:"updatedAt"`
	MergedAt                 *string        `json:"mergedAt"`
	ClosedAt                 *string        `json:"closedAt"`
	Author                   *plainUserJSON `json:"author"`
	Assignees                userNodesJSON  `json:"assignees"`
	Reviewers                userNodesJSON  `json:"reviewers"`
	Labels                   []string       `json:"labels"`
	Milestone                *milestoneJSON `json:"milestone"`
	UserNotesCount           int64          `json:"userNotesCount"`
	Project                  mrProjectJSON  `json:"project"`
	DiffStatsSummary         *diffSummary   `json:"diffStatsSummary,omitempty"`
	DiffStats                []fileStatJSON `json:"diffStats,omitempty"`
	Diffs                    *connection    `json:"diffs,omitempty"`
	Commits                  *connection    `json:"commits,omitempty"`
	Notes                    *connection    `json:"notes,omitempty"`
	Pipelines                *connection    `json:"pipelines,omitempty"`
	Discussions              *connection    `json:"discussions,omitempty"`
	Approved                 *bool          `json:"approved,omitempty"`
	ApprovedBy               *userNodesJSON `json:"approvedBy,omitempty"`
	ApprovalsRequired        *int           `json:"approvalsRequired,omitempty"`
	ApprovalsLeft            *int           `json:"approvalsLeft,omitempty"`
	ApprovalState            *approvalState `json:"approvalState,omitempty"`
	ConflictStatus           *string        `json:"conflictStatus,omitempty"`
	ConflictFiles            []conflictFile `json:"conflictFiles,omitempty"`
}

// conflictFile is one file of the conflicts facet (GitLab's
// MergeRequest.conflictFiles).
type conflictFile struct {
	OurPath   string `json:"ourPath"`
	TheirPath string `json:"theirPath"`
	Content   string `json:"content"`
}

type mrProjectJSON struct {
	ID       string `json:"id"`
	FullPath string `json:"fullPath"`
}

type approvalState struct {
	Rules []any `json:"rules"`
}

func (g *gitlab) runGetMergeRequest(ctx context.Context, call *tools.Call, args getMRArgs) (*tools.Result, error) {
	u, err := g.viewer(call)
	if err != nil {
		return nil, err
	}
	pa, mr, err := g.settledTargetMergeRequest(ctx, call)
	if err != nil {
		return nil, err
	}
	out, err := g.mrDetail(ctx, pa, mr)
	if err != nil {
		return nil, err
	}
	facet := ""
	if len(args.Include) > 0 {
		facet = args.Include[0]
	}
	if err := g.checkFacetParams(args, facet); err != nil {
		return nil, err
	}
	// Each facet is its own list.
	pages := newPager(g.cursors, call, "get_merge_request", "mr:"+strconv.FormatInt(mr.ID, 10)+":"+facet, nil)
	switch facet {
	case "diffs":
		err = g.mrDiffsFacet(ctx, out, pa, mr, args, pages)
	case "commits":
		err = g.mrCommitsFacet(ctx, out, pa, mr, args, pages)
	case "notes":
		out.Notes, err = g.mrNotes(ctx, pages, u, pa, mr, noteWindow{args.NotesFirst, args.NotesAfter, args.NotesLast, args.NotesBefore, "notes_"})
	case "pipelines":
		err = g.mrPipelinesFacet(ctx, out, pa, mr, args, pages)
	case "discussions":
		out.Discussions, err = g.mrDiscussions(ctx, pages, u, pa, mr, args.DiscussionsFirst, args.DiscussionsAfter)
	case "approvals":
		err = g.mrApprovalsFacet(ctx, out, mr)
	case "conflicts":
		err = g.mrConflictsFacet(ctx, out, u, pa, mr)
	}
	if err != nil {
		return nil, err
	}
	return jsonResult(out)
}

// checkFacetParams refuses pagination parameters of a facet not included,
// and notes pagination in both directions, as GitLab does.
func (g *gitlab) checkFacetParams(args getMRArgs, facet string) error {
	given := map[string]bool{
		"diffs":       args.DiffsFirst != 0 || args.DiffsAfter != "",
		"notes":       args.NotesFirst != 0 || args.NotesAfter != "" || args.NotesLast != 0 || args.NotesBefore != "",
		"commits":     args.CommitsFirst != 0 || args.CommitsAfter != "",
		"pipelines":   args.PipelinesFirst != 0 || args.PipelinesAfter != "",
		"discussions": args.DiscussionsFirst != 0 || args.DiscussionsAfter != "",
	}
	for f, set := range given {
		if set && f != facet {
			return invalidf("%s_* parameters apply only when include is [\"%s\"]", f, f)
		}
	}
	if args.Detail != "" && facet != "diffs" {
		return invalidf("detail applies only when include is [\"diffs\"]")
	}
	if (args.NotesLast != 0 || args.NotesBefore != "") && (args.NotesFirst != 0 || args.NotesAfter != "") {
		return invalidf("Provide notes_first/notes_after or notes_last/notes_before, not both directions")
	}
	return nil
}

func (g *gitlab) mrDetail(ctx context.Context, pa *projectAccess, mr *models.MergeRequest) (*mrDetailJSON, error) {
	notes, err := g.store.CountUserNotes(ctx, models.NoteableMergeRequest, mr.ID, false)
	if err != nil {
		return nil, err
	}
	p := pa.project
	w, err := newWithholder(ctx, g.store, pa, []int64{mr.AuthorID})
	if err != nil {
		return nil, err
	}
	iid := strconv.FormatInt(mr.IID, 10)
	out := &mrDetailJSON{ID: gid("MergeRequest", mr.ID), IID: iid, Title: mr.Title, Description: w.text(mr.AuthorID, mr.Description),
		State: string(mr.State), Draft: mr.Draft, SourceBranch: mr.SourceBranch, TargetBranch: mr.TargetBranch,
		MergeStatus: mr.MergeStatus, DetailedMergeStatus: strings.ToUpper(detailedMergeStatus(mr)),
		Conflicts: mr.MergeStatus == models.MergeStatusCannotBeMerged, Squash: mr.Squash,
		ShouldRemoveSourceBranch: mr.ForceRemoveSourceBranch, DiscussionLocked: mr.DiscussionLocked,
		AllowCollaboration: mr.AllowCollaboration, WebURL: g.links.projectURL(p) + "/-/merge_requests/" + iid,
		Reference: "!" + iid, CreatedAt: apiTime(mr.CreatedAt), UpdatedAt: apiTime(mr.UpdatedAt),
		MergedAt: apiTimePtr(mr.MergedAt), ClosedAt: apiTimePtr(mr.ClosedAt), Author: g.links.gqlUser(mr.Author),
		Assignees: g.links.gqlUsers(mr.Assignees), Reviewers: g.links.gqlUsers(mr.Reviewers), Labels: labelNames(mr.Labels),
		UserNotesCount: notes, Project: mrProjectJSON{ID: gid("Project", p.ID), FullPath: p.PathWithNamespace}}
	// An open merge request's head is its source branch's, read from git.
	if sha := g.mrHead(ctx, pa, mr); sha != "" {
		out.DiffHeadSha = &sha
	}
	if mr.MilestoneID != nil {
		m, err := g.store.FindMilestone(ctx, p.ID, *mr.MilestoneID)
		if err == nil {
			out.Milestone = &milestoneJSON{Title: m.Title}
		}
	}
	return out, nil
}

func (g *gitlab) mrDiffsFacet(ctx context.Context, out *mrDetailJSON, pa *projectAccess, mr *models.MergeRequest, args getMRArgs, pages pager) error {
	detail := args.Detail
	if detail == "" {
		detail = "stats"
	}
	if detail != "full_patch" && (args.DiffsFirst != 0 || args.DiffsAfter != "") {
		return invalidf("diffs_first and diffs_after apply only when detail is full_patch")
	}
	// Summary and per-file stats cover every file.
	cmp, err := g.compareMergeRequest(ctx, pa.project, mr, repository.CompareOptions{SkipCommits: true})
	if err != nil {
		return err
	}
	sum := &diffSummary{FileCount: len(cmp.Files)}
	var stats []fileStatJSON
	for k := range cmp.Files {
		f := &cmp.Files[k]
		sum.Additions += f.Additions
		sum.Deletions += f.Deletions
		if detail != "none" {
			stats = append(stats, fileStatJSON{Path: f.NewPath, Additions: f.Additions, Deletions: f.Deletions})
		}
	}
	sum.Changes = sum.Additions + sum.Deletions
	out.DiffStatsSummary = sum
	if detail != "none" {
		if stats == nil {
			stats = []fileStatJSON{}
		}
		out.DiffStats = stats
	}
	if detail != "full_patch" {
		return nil
	}
	offset, err := pages.open("diffs_after", args.DiffsAfter)
	if err != nil {
		return err
	}
	files := window(cmp.Files, offset, pageSize(args.DiffsFirst))
	nodes := make([]obj, 0, len(files))
	for k := range files {
		f := &files[k]
		nodes = append(nodes, obj{"oldPath": f.OldPath, "newPath": f.NewPath, "aMode": f.AMode, "bMode": f.BMode,
			"newFile": f.NewFile, "renamedFile": f.RenamedFile, "deletedFile": f.DeletedFile, "diff": f.Diff})
	}
	out.Diffs = &connection{Nodes: nodes, PageInfo: offsetPageInfo(pages, offset, len(files), int64(len(cmp.Files)))}
	return nil
}

// window returns at most n items of all from offset.
func window[T any](all []T, offset int64, n int) []T {
	from := min(int(max(offset, 0)), len(all))
	return all[from:min(from+n, len(all))]
}

// offsetPageInfo is the page info of an offset-paged facet: n items from
// offset of total.
func offsetPageInfo(pages pager, offset int64, n int, total int64) pageInfoJSON {
	pi := pageInfoJSON{HasPreviousPage: offset > 0, HasNextPage: offset+int64(n) < total}
	if n > 0 {
		start, end := pages.mint(offset), pages.mint(offset+int64(n))
		pi.StartCursor, pi.EndCursor = &start, &end
	}
	return pi
}

func (g *gitlab) mrCommitsFacet(ctx context.Context, out *mrDetailJSON, pa *projectAccess, mr *models.MergeRequest, args getMRArgs, pages pager) error {
	offset, err := pages.open("commits_after", args.CommitsAfter)
	if err != nil {
		return err
	}
	cmp, err := g.compareMergeRequest(ctx, pa.project, mr, repository.CompareOptions{SkipDiffs: true})
	if err != nil {
		return err
	}
	commits := window(cmp.Commits, offset, pageSize(args.CommitsFirst))
	total := int64(len(cmp.Commits))
	nodes := make([]obj, 0, len(commits))
	for k := range commits {
		c := &commits[k]
		nodes = append(nodes, obj{"sha": c.ID, "shortId": shortSHA(c.ID), "title": c.Title, "message": c.Message,
			"authorName": c.Author.Name, "authorEmail": c.Author.Email, "authoredDate": apiTime(c.Author.When),
			"committerName": c.Committer.Name, "committedDate": apiTime(c.Committer.When),
			"webUrl": g.links.projectURL(pa.project) + "/-/commit/" + c.ID})
	}
	out.Commits = &connection{Nodes: nodes, PageInfo: offsetPageInfo(pages, offset, len(commits), total)}
	return nil
}

func (g *gitlab) mrPipelinesFacet(ctx context.Context, out *mrDetailJSON, pa *projectAccess, mr *models.MergeRequest, args getMRArgs, pages pager) error {
	offset, err := pages.open("pipelines_after", args.PipelinesAfter)
	if err != nil {
		return err
	}
	limit := pageSize(args.PipelinesFirst)
	// At most 100 pipelines of a merge request are shown (the store's
	// newest-first list); the cursor pages within them.
	shas, err := g.mrCommitSHAs(ctx, pa.project, mr)
	if err != nil {
		return err
	}
	all, total, err := g.store.MergeRequestPipelines(ctx, mr, shas, int(offset)+limit)
	if err != nil {
		return err
	}
	page := all[min(int(offset), len(all)):]
	nodes := make([]obj, 0, len(page))
	for k := range page {
		p := &page[k]
		nodes = append(nodes, g.gqlPipeline(pa.project, p))
	}
	out.Pipelines = &connection{Nodes: nodes, PageInfo: offsetPageInfo(pages, offset, len(page), total)}
	return nil
}

// gqlPipeline is a pipeline as GraphQL shows it.
func (g *gitlab) gqlPipeline(proj *models.Project, p *models.Pipeline) obj {
	return obj{"id": gid("Ci::Pipeline", p.ID), "iid": strconv.FormatInt(p.IID, 10), "status": strings.ToUpper(p.Status),
		"ref": p.Ref, "sha": p.SHA, "source": p.Source, "name": p.Name, "createdAt": apiTime(p.CreatedAt),
		"finishedAt": apiTimePtr(p.FinishedAt), "webUrl": g.links.projectURL(proj) + "/-/pipelines/" + strconv.FormatInt(p.ID, 10)}
}

func (g *gitlab) mrApprovalsFacet(ctx context.Context, out *mrDetailJSON, mr *models.MergeRequest) error {
	as, err := g.store.MergeRequestApprovals(ctx, mr.ID)
	if err != nil {
		return err
	}
	by := userNodesJSON{Nodes: make([]*plainUserJSON, 0, len(as))}
	for k := range as {
		by.Nodes = append(by.Nodes, g.links.gqlUser(as[k].User))
	}
	approved, zero := len(as) > 0, 0
	out.Approved, out.ApprovedBy = &approved, &by
	out.ApprovalsRequired, out.ApprovalsLeft = &zero, &zero
	out.ApprovalState = &approvalState{Rules: []any{}}
	return nil
}

// mrConflictsFacet answers the conflicts facet: the conflicted files of
// the merge request, computed in git, with their conflict markers. A merge
// request without conflicts is an error, as in GitLab.
func (g *gitlab) mrConflictsFacet(ctx context.Context, out *mrDetailJSON, u *models.User, pa *projectAccess, mr *models.MergeRequest) error {
	cs, err := g.mrConflicts(ctx, u, pa, mr)
	if err != nil {
		return err
	}
	if len(cs) == 0 {
		return invalidf("Merge request does not have conflicts")
	}
	status := "CONFLICTS"
	out.ConflictStatus, out.Conflicts = &status, true
	for _, c := range cs {
		out.ConflictFiles = append(out.ConflictFiles, conflictFile{OurPath: c.OurPath, TheirPath: c.TheirPath, Content: conflictContent(c)})
	}
	return nil
}

// mrDiscussions pages a merge request's discussions by their first note
// (comments only, as GitLab's merge request discussions).
func (g *gitlab) mrDiscussions(ctx context.Context, pages pager, u *models.User, pa *projectAccess, mr *models.MergeRequest, first intArg, after string) (*connection, error) {
	return g.discussionsPage(ctx, pages, u, pa, models.NoteableMergeRequest, mr.ID, models.OnlyComments, first, after)
}
