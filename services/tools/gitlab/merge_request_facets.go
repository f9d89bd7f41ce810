package gitlab

import (
	"context"
	"strconv"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
)

// get_merge_request's answer and its facets but notes and discussions
// (merge_request_notes.go): each reads its own part, from git or the
// store, into the answer.

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

// mrFacetStore is what the facets read from the store.
type mrFacetStore interface {
	MergeRequestPipelines(ctx context.Context, mr *models.MergeRequest, shas []string, limit int) ([]models.Pipeline, int64, error)
	MergeRequestApprovals(ctx context.Context, mrID int64) ([]models.Approval, error)
}

// mrFacetReader reads get_merge_request's facets: the pipelines and
// approvals, the links they carry, and git.
type mrFacetReader struct {
	store mrFacetStore
	links links
	git   mrGit
}

// diffs answers the diffs facet: summary counts, per-file stats unless
// detail is none, and a page of patches when it is full_patch.
func (f mrFacetReader) diffs(ctx context.Context, out *mrDetailJSON, pa *projectAccess, mr *models.MergeRequest, detail string, first intArg, after string, pages pager) error {
	if detail == "" {
		detail = "stats"
	}
	if detail != "full_patch" && (first != 0 || after != "") {
		return invalidf("diffs_first and diffs_after apply only when detail is full_patch")
	}
	// Summary and per-file stats cover every file.
	cmp, err := f.git.compare(ctx, pa.project, mr, repository.CompareOptions{SkipCommits: true})
	if err != nil {
		return err
	}
	sum := &diffSummary{FileCount: len(cmp.Files)}
	var stats []fileStatJSON
	for k := range cmp.Files {
		fd := &cmp.Files[k]
		sum.Additions += fd.Additions
		sum.Deletions += fd.Deletions
		if detail != "none" {
			stats = append(stats, fileStatJSON{Path: fd.NewPath, Additions: fd.Additions, Deletions: fd.Deletions})
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
	offset, err := pages.open("diffs_after", after)
	if err != nil {
		return err
	}
	files := window(cmp.Files, offset, pageSize(first))
	nodes := make([]obj, 0, len(files))
	for k := range files {
		fd := &files[k]
		nodes = append(nodes, obj{"oldPath": fd.OldPath, "newPath": fd.NewPath, "aMode": fd.AMode, "bMode": fd.BMode,
			"newFile": fd.NewFile, "renamedFile": fd.RenamedFile, "deletedFile": fd.DeletedFile, "diff": fd.Diff})
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

// commits answers the commits facet: a page of the merge request's
// commits.
func (f mrFacetReader) commits(ctx context.Context, out *mrDetailJSON, pa *projectAccess, mr *models.MergeRequest, first intArg, after string, pages pager) error {
	offset, err := pages.open("commits_after", after)
	if err != nil {
		return err
	}
	cmp, err := f.git.compare(ctx, pa.project, mr, repository.CompareOptions{SkipDiffs: true})
	if err != nil {
		return err
	}
	commits := window(cmp.Commits, offset, pageSize(first))
	total := int64(len(cmp.Commits))
	nodes := make([]obj, 0, len(commits))
	for k := range commits {
		c := &commits[k]
		nodes = append(nodes, obj{"sha": c.ID, "shortId": shortSHA(c.ID), "title": c.Title, "message": c.Message,
			"authorName": c.Author.Name, "authorEmail": c.Author.Email, "authoredDate": apiTime(c.Author.When),
			"committerName": c.Committer.Name, "committedDate": apiTime(c.Committer.When),
			"webUrl": f.links.projectURL(pa.project) + "/-/commit/" + c.ID})
	}
	out.Commits = &connection{Nodes: nodes, PageInfo: offsetPageInfo(pages, offset, len(commits), total)}
	return nil
}

// pipelines answers the pipelines facet.
func (f mrFacetReader) pipelines(ctx context.Context, out *mrDetailJSON, pa *projectAccess, mr *models.MergeRequest, first intArg, after string, pages pager) error {
	offset, err := pages.open("pipelines_after", after)
	if err != nil {
		return err
	}
	limit := pageSize(first)
	// At most 100 pipelines of a merge request are shown (the store's
	// newest-first list); the cursor pages within them.
	shas, err := f.git.commitSHAs(ctx, pa.project, mr)
	if err != nil {
		return err
	}
	all, total, err := f.store.MergeRequestPipelines(ctx, mr, shas, int(offset)+limit)
	if err != nil {
		return err
	}
	page := all[min(int(offset), len(all)):]
	nodes := make([]obj, 0, len(page))
	for k := range page {
		p := &page[k]
		nodes = append(nodes, f.gqlPipeline(pa.project, p))
	}
	out.Pipelines = &connection{Nodes: nodes, PageInfo: offsetPageInfo(pages, offset, len(page), total)}
	return nil
}

// gqlPipeline is a pipeline as GraphQL shows it.
func (f mrFacetReader) gqlPipeline(proj *models.Project, p *models.Pipeline) obj {
	return obj{"id": gid("Ci::Pipeline", p.ID), "iid": strconv.FormatInt(p.IID, 10), "status": strings.ToUpper(p.Status),
		"ref": p.Ref, "sha": p.SHA, "source": p.Source, "name": p.Name, "createdAt": apiTime(p.CreatedAt),
		"finishedAt": apiTimePtr(p.FinishedAt), "webUrl": f.links.projectURL(proj) + "/-/pipelines/" + strconv.FormatInt(p.ID, 10)}
}

// approvals answers the approvals facet (no approval rules on this
// instance).
func (f mrFacetReader) approvals(ctx context.Context, out *mrDetailJSON, mr *models.MergeRequest) error {
	as, err := f.store.MergeRequestApprovals(ctx, mr.ID)
	if err != nil {
		return err
	}
	by := userNodesJSON{Nodes: make([]*plainUserJSON, 0, len(as))}
	for k := range as {
		by.Nodes = append(by.Nodes, f.links.gqlUser(as[k].User))
	}
	approved, zero := len(as) > 0, 0
	out.Approved, out.ApprovedBy = &approved, &by
	out.ApprovalsRequired, out.ApprovalsLeft = &zero, &zero
	out.ApprovalState = &approvalState{Rules: []any{}}
	return nil
}

// conflicts answers the conflicts facet: the conflicted files of
// the merge request, computed in git, with their conflict markers. A merge
// request without conflicts is an error, as in GitLab.
func (f mrFacetReader) conflicts(ctx context.Context, out *mrDetailJSON, u *models.User, pa *projectAccess, mr *models.MergeRequest) error {
	cs, err := f.git.conflicts(ctx, u, pa, mr)
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
