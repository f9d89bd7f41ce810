package gitlab

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/tools"
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

// mrLocateStore is what finding a merge request by its project and iid
// reads: the project (with the caller's role) and the merge request.
type mrLocateStore interface {
	projectLookup
	mrLoader
}

// readableMergeRequest finds the merge request args name that u may
// read, for a reader that touches one beside a tool's own target (the
// resources' patches).
func readableMergeRequest(ctx context.Context, st mrLocateStore, u *models.User, args *mrArgs) (*projectAccess, *models.MergeRequest, error) {
	pa, mr, err := findMergeRequest(ctx, st, u, args)
	if err != nil {
		return nil, nil, err
	}
	if !access.CanOnMergeRequest(access.ReadMergeRequest, u, pa.project, mr, pa.level) {
		return nil, nil, notFound("Merge Request")
	}
	return pa, mr, nil
}

// findMergeRequest finds the merge request args name: its project as u
// sees it (pa, also when the merge request is missing or hidden) and the
// merge request, which the caller checks u may read. A project whose code
// u may not read has no merge request for u.
func findMergeRequest(ctx context.Context, st mrLocateStore, u *models.User, args *mrArgs) (*projectAccess, *models.MergeRequest, error) {
	pa, err := resolveProject(ctx, st, u, "id", args.ID)
	if err != nil {
		return nil, nil, err
	}
	if !access.CanReadCode(u, pa.project, pa.level) {
		return pa, nil, notFound("Merge Request")
	}
	mr, err := st.LoadMergeRequest(ctx, pa.project.ID, int64(args.MergeRequestIID))
	if errors.Is(err, models.ErrNotFound) {
		return pa, nil, notFound("Merge Request")
	}
	if err != nil {
		return pa, nil, err
	}
	return pa, mr, nil
}

// mrPage is the body of the REST list tools of a merge request's git data
// (get_merge_request_commits, get_merge_request_diffs): take the merge
// request the service resolved (the Definition's Target: kind
// tools.TargetMergeRequest, ability access.ReadMergeRequest; a missing or
// hidden one is "404 Merge Request Not Found"), check the page, compare
// it in git with opt, and render page page of what list makes of the
// comparison.
func mrPage[T any](ctx context.Context, git mrGit, call *tools.Call, args mrArgs, opt repository.CompareOptions,
	list func(pa *projectAccess, cmp *repository.Comparison) []T) (*tools.Result, error) {
	if err := git.storeMissing(); err != nil {
		return nil, err
	}
	if _, err := callerOf(call); err != nil {
		return nil, err
	}
	pa, mr, err := targetMergeRequest(call)
	if err != nil {
		return nil, err
	}
	page, perPage, err := paging(args.Page, args.PerPage)
	if err != nil {
		return nil, err
	}
	cmp, err := git.compare(ctx, pa.project, mr, opt)
	if err != nil {
		return nil, err
	}
	all := list(pa, cmp)
	from := min((page-1)*perPage, len(all))
	to := min(from+perPage, len(all))
	return jsonResult(listJSON[T]{Items: all[from:to:to], PageInfo: newRESTPageInfo(page, perPage, int64(len(all)))})
}

// maxOffset is GitLab's cap on offset pagination (the plan limit
// offset_pagination_limit, 50,000 by default): a page that starts past
// it is refused, as GitLab refuses page × per_page > 50,000.
const maxOffset = 50_000

// paging returns GitLab's page and per_page with their defaults, or a
// validation error naming page when page × per_page passes maxOffset (so
// no offset can overflow).
func paging(page, perPage intArg) (int, int, error) {
	p, pp := int64(page), int64(perPage)
	if p < 1 {
		p = 1
	}
	if pp < 1 {
		pp = defaultPerPage
	}
	pp = min(pp, maxPerPage)
	if p > maxOffset || p*pp > maxOffset {
		return 0, 0, invalidf("page: offset pagination has a maximum allowed offset of %d (page × per_page); "+
			"page %d with per_page %d is past it. Narrow the query instead", maxOffset, p, pp)
	}
	return int(p), int(pp), nil
}

// mrWriter opens merge requests and renders the single merge request
// view a write answers with (save_merge_request).
type mrWriter struct {
	inTx  InTx
	links links
	git   mrGit
}

// mrResultStore is what the single merge request view reads.
type mrResultStore interface {
	CountUserNotes(ctx context.Context, typ models.NoteableType, noteableID int64, includeInternal bool) (int64, error)
	LatestMergeRequestPipelines(ctx context.Context, mr *models.MergeRequest, shas []string, limit int) ([]models.Pipeline, error)
	FindMilestone(ctx context.Context, projectID, id int64) (*models.Milestone, error)
	projectRolesStore // lockdown: the description's author's role
}

// result renders the single merge request view.
func (w mrWriter) result(ctx context.Context, st mrResultStore, u *models.User, pa *projectAccess, mr *models.MergeRequest) (*tools.Result, error) {
	mr, err := withheldMergeRequest(ctx, st, pa, mr) // lockdown.go: the answer follows the read tools' rule
	if err != nil {
		return nil, err
	}
	notes, err := st.CountUserNotes(ctx, models.NoteableMergeRequest, mr.ID, false)
	if err != nil {
		return nil, err
	}
	// The file list of its diff, and its live head, from git.
	// (A merge request whose branch is gone has no changes count.)
	var count *string
	cmp, err := w.git.compare(ctx, pa.project, mr, repository.CompareOptions{SkipPatches: true, SkipCommits: true})
	switch {
	case err == nil:
		n := strconv.Itoa(len(cmp.Files))
		count = &n
		if mr.State == models.MergeRequestOpened {
			mr.SHA = cmp.HeadSHA
		}
	case !errors.Is(err, models.ErrNotFound):
		return nil, err
	}
	pipelines, err := st.LatestMergeRequestPipelines(ctx, mr, nil, maxPerPage)
	if err != nil {
		return nil, err
	}
	out := w.links.mergeRequest(pa.project, mr, notes)
	if mr.MilestoneID != nil {
		if m, err := st.FindMilestone(ctx, pa.project.ID, *mr.MilestoneID); err == nil {
			out.Milestone = &milestoneJSON{Title: m.Title}
		}
	}
	out.ChangesCount = count
	// GitLab's head pipeline: the newest pipeline of the source branch's
	// head commit.
	for k := range pipelines {
		if p := &pipelines[k]; p.SHA == mr.SHA && mr.SHA != "" {
			hp := w.links.pipeline(pa.project, p)
			hp.StartedAt, hp.FinishedAt = apiTimePtr(p.StartedAt), apiTimePtr(p.FinishedAt)
			out.HeadPipeline = hp
			break
		}
	}
	// Merging an unprotected branch needs the role creating merge requests does.
	out.User = &mergeRequestUserJSON{CanMerge: access.CanCreateMergeRequest(u, pa.project, pa.level)}
	return jsonResult(out)
}

// milestoneStore finds a project's milestones.
type milestoneStore interface {
	FindMilestone(ctx context.Context, projectID, id int64) (*models.Milestone, error)
	FindMilestoneByTitle(ctx context.Context, projectID int64, title string) (*models.Milestone, error)
}

// milestoneArg resolves milestone (a title) or milestone_id to a
// milestone of project p; nil clears (milestone_id 0 or nothing given).
func milestoneArg(ctx context.Context, st milestoneStore, p *models.Project, title *string, id *intArg) (*int64, error) {
	var m *models.Milestone
	var err error
	switch {
	case title != nil:
		m, err = st.FindMilestoneByTitle(ctx, p.ID, strings.TrimSpace(*title))
		if errors.Is(err, models.ErrNotFound) {
			return nil, invalidf("milestone: no milestone titled %q in project %s", *title, p.PathWithNamespace)
		}
	case id != nil && *id > 0:
		m, err = st.FindMilestone(ctx, p.ID, int64(*id))
		if errors.Is(err, models.ErrNotFound) {
			return nil, invalidf("milestone_id: milestone %d not found in project %s", *id, p.PathWithNamespace)
		}
	default:
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &m.ID, nil
}

// newMRSpec is a merge request to open: save_merge_request (or its alias
// create_merge_request) without merge_request_iid.
type newMRSpec struct {
	Title, SourceBranch, TargetBranch string
	TargetProjectID                   *intArg
	AssigneeIDs, ReviewerIDs          []intArg
	Description                       string
	Labels                            []string
	MilestoneID                       *int64
	Squash, RemoveSourceBranch        bool
}

// mrOpenStore is what opening a merge request reads and writes, in its
// transaction: the members and labels it checks (their families), the
// merge request, and what its view shows.
type mrOpenStore struct {
	userByID
	memberRoles
	mrResultIssues
	mrOpenMRs
}

// mrOpenMRs is what opening a merge request reads and writes of
// MergeRequests.
type mrOpenMRs interface {
	FindOpenMergeRequest(ctx context.Context, projectID int64, source, target string) (*models.MergeRequest, error)
	CreateMergeRequest(ctx context.Context, mr *models.MergeRequest) error
	mrLoader
	LatestMergeRequestPipelines(ctx context.Context, mr *models.MergeRequest, shas []string, limit int) ([]models.Pipeline, error)
}

// open checks and creates a merge request in pa's project as u, in one
// transaction, and renders it.
func (w mrWriter) open(ctx context.Context, u *models.User, pa *projectAccess, spec newMRSpec) (*tools.Result, error) {
	p := pa.project
	if !access.CanCreateMergeRequest(u, p, pa.level) {
		return nil, forbiddenf("you need at least the Developer role in project %s to create merge requests", p.PathWithNamespace)
	}
	title, err := checkTitle(spec.Title)
	if err != nil {
		return nil, err
	}
	source, target := strings.TrimSpace(spec.SourceBranch), strings.TrimSpace(spec.TargetBranch)
	switch {
	case source == "" || target == "":
		return nil, invalidf("source_branch and target_branch must not be blank")
	case source == target:
		return nil, invalidf("source_branch and target_branch must be different (both are %q)", source)
	case spec.TargetProjectID != nil && int64(*spec.TargetProjectID) != p.ID:
		return nil, invalidf("target_project_id: merge requests into another project (forks) are not supported; omit it or pass %d", p.ID)
	}
	labels := spec.Labels
	// Both branches must exist in git (GitLab's rule); the merge request
	// records the head and merge base it was opened on.
	if err := w.git.checkBranches(ctx, p, [2]string{"source_branch", source}, [2]string{"target_branch", target}); err != nil {
		return nil, err
	}
	cmp, err := w.git.compare(ctx, p, &models.MergeRequest{State: models.MergeRequestOpened,
		SourceBranch: source, TargetBranch: target}, repository.CompareOptions{SkipDiffs: true, MaxCommits: 1})
	if err != nil {
		return nil, err
	}
	var res *tools.Result
	err = w.inTx(ctx, func(tx Families) error {
		st := mrOpenStore{tx.Users, tx.Groups, tx.Issues, tx.MergeRequests}
		open, err := st.FindOpenMergeRequest(ctx, p.ID, source, target)
		switch {
		case err == nil:
			return &models.OpenMergeRequestExistsError{IID: open.IID}
		case !errors.Is(err, models.ErrNotFound):
			return err
		}
		assignees, err := projectUsers(ctx, st, p, "assignee_ids", spec.AssigneeIDs)
		if err != nil {
			return err
		}
		reviewers, err := projectUsers(ctx, st, p, "reviewer_ids", spec.ReviewerIDs)
		if err != nil {
			return err
		}
		if err := ensureLabels(ctx, st, p.ID, labels); err != nil {
			return err
		}
		mr := &models.MergeRequest{ProjectID: p.ID, Title: title, Description: spec.Description,
			State: models.MergeRequestOpened, SourceBranch: source, TargetBranch: target, AuthorID: u.ID,
			Labels: models.StringList(labels), Draft: isDraftTitle(title), MergeStatus: models.MergeStatusUnchecked,
			Assignees: assignees, Reviewers: reviewers, MilestoneID: spec.MilestoneID,
			SHA: cmp.HeadSHA, DiffBaseSHA: cmp.MergeBaseSHA,
			Squash: spec.Squash, ForceRemoveSourceBranch: spec.RemoveSourceBranch}
		if err := st.CreateMergeRequest(ctx, mr); err != nil {
			return err
		}
		created, err := st.LoadMergeRequest(ctx, p.ID, mr.IID)
		if err != nil {
			return err
		}
		res, err = w.result(ctx, st, u, pa, created)
		return err
	})
	// The check above and the database's unique index (two agents at
	// once) both answer as GitLab does.
	if dup := (*models.OpenMergeRequestExistsError)(nil); errors.As(err, &dup) {
		return nil, conflictf("Another open merge request already exists for this source branch: !%d", dup.IID)
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// isDraftTitle reports whether a title marks a draft, as GitLab reads it:
// it starts with "Draft:", "[Draft]" or "(Draft)", ignoring case.
func isDraftTitle(title string) bool {
	t := strings.ToLower(title)
	for _, p := range []string{"draft:", "[draft]", "(draft)"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}
