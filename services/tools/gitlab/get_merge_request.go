package gitlab

import (
	"context"

	"gitlab.com/glmcp/glmcp/internal/cursor"
	"strconv"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// mrFacets are get_merge_request's include values (GitLab 19.5).
var mrFacets = []string{"diffs", "commits", "notes", "pipelines", "discussions", "approvals", "conflicts"}

// getMergeRequest is GitLab 19.5's get_merge_request: the merge request and
// at most one facet, each paged with its own cursor.
func getMergeRequest(g *gitlab) tools.Definition {
	git := mrGitOf(g)
	t := getMRTool{links: g.links, cursors: g.cursors, git: git, settler: mergeSettlerOf(g),
		facets: mrFacetReader{links: g.links, git: git}}
	if !noStore(g.store) {
		t.store = &getMRStore{g.store.Issues, g.store.Groups, g.store.Notes, g.store.MergeRequests}
		t.facets.store = g.store.MergeRequests
	}
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
		InputSchema:  argsSchema(t.run, props),
		OutputSchema: tools.OutputSchemaOf[mrDetailJSON](),
		Annotations:  readOnlyTool("Get merge request"),
		Toolset:      models.ToolsetMergeRequests,
		Edition:      models.EditionCE,
		Source:       "app/services/mcp/tools/merge_requests/get_merge_request_tool.rb",
		Target:       mrRefTargetOf[getMRArgs](g),
		Run:          tools.Typed(t.run),
	}
}

// getMRStore is what get_merge_request reads from the store itself,
// beside the merge request the service resolved and its facets'.
type getMRStore struct {
	getMRIssues
	projectRolesStore
	notesPage
	discussionsPage
}

// getMRIssues is what get_merge_request reads of Issues.
type getMRIssues interface {
	CountUserNotes(ctx context.Context, typ models.NoteableType, noteableID int64, includeInternal bool) (int64, error)
	FindMilestone(ctx context.Context, projectID, id int64) (*models.Milestone, error)
}

// getMRTool is get_merge_request with what it needs: the store, the
// links it renders, the cursor signer of its facets, git, the settler
// that finishes a merge a crash left half done, and the facets.
type getMRTool struct {
	store   *getMRStore // nil: no store (a catalog built without one)
	links   links
	cursors *cursor.Signer
	git     mrGit
	settler mergeSettler
	facets  mrFacetReader
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

func (t getMRTool) run(ctx context.Context, call *tools.Call, args getMRArgs) (*tools.Result, error) {
	if t.store == nil {
		return nil, errNoStore
	}
	u, err := callerOf(call)
	if err != nil {
		return nil, err
	}
	pa, mr, _, err := t.settler.settledTarget(ctx, call)
	if err != nil {
		return nil, err
	}
	out, err := t.detail(ctx, pa, mr)
	if err != nil {
		return nil, err
	}
	facet := ""
	if len(args.Include) > 0 {
		facet = args.Include[0]
	}
	if err := checkFacetParams(args, facet); err != nil {
		return nil, err
	}
	// Each facet is its own list.
	pages := newPager(t.cursors, call, "get_merge_request", "mr:"+strconv.FormatInt(mr.ID, 10)+":"+facet, nil)
	switch facet {
	case "diffs":
		err = t.facets.diffs(ctx, out, pa, mr, args.Detail, args.DiffsFirst, args.DiffsAfter, pages)
	case "commits":
		err = t.facets.commits(ctx, out, pa, mr, args.CommitsFirst, args.CommitsAfter, pages)
	case "notes":
		out.Notes, err = mrNotesPage(ctx, t.store, t.links, pages, u, pa, mr,
			noteWindow{args.NotesFirst, args.NotesAfter, args.NotesLast, args.NotesBefore, "notes_"})
	case "pipelines":
		err = t.facets.pipelines(ctx, out, pa, mr, args.PipelinesFirst, args.PipelinesAfter, pages)
	case "discussions":
		out.Discussions, err = discussionsPageOf(ctx, t.store, t.links, pages, u, pa, models.NoteableMergeRequest, mr.ID, models.OnlyComments,
			args.DiscussionsFirst, args.DiscussionsAfter)
	case "approvals":
		err = t.facets.approvals(ctx, out, mr)
	case "conflicts":
		err = t.facets.conflicts(ctx, out, u, pa, mr)
	}
	if err != nil {
		return nil, err
	}
	return jsonResult(out)
}

// checkFacetParams refuses pagination parameters of a facet not included,
// and notes pagination in both directions, as GitLab does.
func checkFacetParams(args getMRArgs, facet string) error {
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

// detail is the merge request without facets.
func (t getMRTool) detail(ctx context.Context, pa *projectAccess, mr *models.MergeRequest) (*mrDetailJSON, error) {
	notes, err := t.store.CountUserNotes(ctx, models.NoteableMergeRequest, mr.ID, false)
	if err != nil {
		return nil, err
	}
	p := pa.project
	w, err := newWithholder(ctx, t.store, pa, []int64{mr.AuthorID})
	if err != nil {
		return nil, err
	}
	iid := strconv.FormatInt(mr.IID, 10)
	out := &mrDetailJSON{ID: gid("MergeRequest", mr.ID), IID: iid, Title: mr.Title, Description: w.text(mr.AuthorID, mr.Description),
		State: string(mr.State), Draft: mr.Draft, SourceBranch: mr.SourceBranch, TargetBranch: mr.TargetBranch,
		MergeStatus: mr.MergeStatus, DetailedMergeStatus: strings.ToUpper(detailedMergeStatus(mr)),
		Conflicts: mr.MergeStatus == models.MergeStatusCannotBeMerged, Squash: mr.Squash,
		ShouldRemoveSourceBranch: mr.ForceRemoveSourceBranch, DiscussionLocked: mr.DiscussionLocked,
		AllowCollaboration: mr.AllowCollaboration, WebURL: t.links.projectURL(p) + "/-/merge_requests/" + iid,
		Reference: "!" + iid, CreatedAt: apiTime(mr.CreatedAt), UpdatedAt: apiTime(mr.UpdatedAt),
		MergedAt: apiTimePtr(mr.MergedAt), ClosedAt: apiTimePtr(mr.ClosedAt), Author: t.links.gqlUser(mr.Author),
		Assignees: t.links.gqlUsers(mr.Assignees), Reviewers: t.links.gqlUsers(mr.Reviewers), Labels: labelNames(mr.Labels),
		UserNotesCount: notes, Project: mrProjectJSON{ID: gid("Project", p.ID), FullPath: p.PathWithNamespace}}
	// An open merge request's head is its source branch's, read from git.
	if sha := t.git.head(ctx, p, mr); sha != "" {
		out.DiffHeadSha = &sha
	}
	if mr.MilestoneID != nil {
		m, err := t.store.FindMilestone(ctx, p.ID, *mr.MilestoneID)
		if err == nil {
			out.Milestone = &milestoneJSON{Title: m.Title}
		}
	}
	return out, nil
}
