package gitlab

import (
	"context"
	"io"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

// Store is every store method the GitLab tools use, declared here
// (consumer side) by tool family; Families satisfies it. It is the binding
// of Deps.Store and of a transaction (InTx), not what a tool sees: a tool's
// registration function hands its value only the narrow interface the
// tool declares (getUserStore, listProjectsStore, …), and a write tool
// narrows the transaction's Store to its own write interface at once.
type Store interface {
	projectStore
	issueStore
	mergeRequestStore
	pipelineStore
	noteStore
	searchStore
	workItemStore
	reviewStore
	ciStore
	vulnerabilityStore
	coreStore
	releaseStore
	forkStore
}

// forkStore serves fork_repository.
type forkStore interface {
	CreateProject(ctx context.Context, p *models.Project) error
	SetProjectDefaultBranch(ctx context.Context, id int64, branch string) error
	GroupAccessLevel(ctx context.Context, groupID, userID int64) (models.AccessLevel, error)
}

// releaseStore serves list_releases.
type releaseStore interface {
	ListReleases(ctx context.Context, q models.ReleaseQuery) ([]models.Release, bool, error)
}

// Families is the data store's families put together as a Store: each
// method a tool calls (tx.LoadIssue) is its family's (Issues.LoadIssue).
// The code index family is there for the semantic search index
// (codeindex.Store).
type Families struct {
	*store.Projects
	*store.Groups
	*store.Issues
	*store.MergeRequests
	*store.Notes
	*store.CI
	*store.Search
	*store.Users
	*store.Vulnerabilities
	*store.Releases
	*store.CodeIndex
}

// InTx runs fn in one store transaction with a Store bound to it; fn's
// error rolls the transaction back. Every write tool runs its checks and
// writes through tx, so a failing call changes nothing. The tool narrows
// tx to its own write interface on the first line of fn
// (st := xWriteStore(tx)) and uses only that.
type InTx func(ctx context.Context, fn func(tx Store) error) error

// projectStore resolves projects, groups, members and users (every tool).
type projectStore interface {
	// FindProjectWithRoleByID and FindProjectWithRoleByPath return a
	// project with userID's effective role in it (direct or inherited from
	// a group; models.NoAccess for a non-member), in one statement.
	FindProjectWithRoleByID(ctx context.Context, id, userID int64) (*models.Project, models.AccessLevel, error)
	FindProjectWithRoleByPath(ctx context.Context, pathWithNamespace string, userID int64) (*models.Project, models.AccessLevel, error)
	FindGroupByID(ctx context.Context, id int64) (*models.Group, error)
	FindGroupByFullPath(ctx context.Context, fullPath string) (*models.Group, error)
	// ProjectAccessLevel is userID's effective role in projectID, as
	// FindProjectWithRoleByID reads it.
	ProjectAccessLevel(ctx context.Context, projectID, userID int64) (models.AccessLevel, error)
	// ProjectAccessLevels is ProjectAccessLevel for several users in one
	// statement; a user without a role is missing from the map.
	ProjectAccessLevels(ctx context.Context, projectID int64, userIDs []int64) (map[int64]models.AccessLevel, error)
	FindUserByID(ctx context.Context, id int64) (*models.User, error)
	FindUserByEmail(ctx context.Context, email string) (*models.User, error)
	HasMembershipInGroup(ctx context.Context, fullPath string, userID int64) (bool, error)
	VisibleProjectIDs(ctx context.Context, viewer *models.User, groupPath string) ([]int64, error)
	LoadProjects(ctx context.Context, ids []int64) ([]models.Project, error)
}

// coreStore serves the core toolset's listings. Each returns one page of
// at most limit+1 rows (the extra row says more follow), ordered by id,
// with the viewer's read rules applied in the query.
type coreStore interface {
	ListProjects(ctx context.Context, q models.ProjectQuery) ([]models.Project, error)
	ListGroups(ctx context.Context, q models.GroupQuery) ([]models.Group, error)
	ListProjectMembers(ctx context.Context, projectID int64, inherited bool, query string, afterUserID int64, limit int) ([]models.Member, error)
}

// issueStore serves get_issue, create_issue and search_labels.
type issueStore interface {
	LoadIssue(ctx context.Context, projectID, iid int64) (*models.Issue, error)
	// LoadIssueCountingNotes is LoadIssue with CountUserNotes of the
	// issue, in one statement fewer.
	LoadIssueCountingNotes(ctx context.Context, projectID, iid int64, includeInternal bool) (*models.Issue, int64, error)
	// FindIssueView reads what get_issue shows in one statement: the
	// project (by id, or by path when id is 0) with userID's role, the
	// issue with author and assignees, its note counts; ok is false when
	// any of project, issue or author is missing.
	FindIssueView(ctx context.Context, projectID int64, path string, iid, userID int64) (v *models.IssueView, ok bool, err error)
	CreateIssue(ctx context.Context, i *models.Issue) error
	CountUserNotes(ctx context.Context, typ models.NoteableType, noteableID int64, includeInternal bool) (int64, error)
	// CountUserNotesOf counts the public user notes of many at once (search hits).
	CountUserNotesOf(ctx context.Context, typ models.NoteableType, noteableIDs []int64) (map[int64]int64, error)
	FindLabelsByName(ctx context.Context, projectID int64, names []string) ([]models.Label, error)
	EnsureLabel(ctx context.Context, l *models.Label) error
	SearchLabels(ctx context.Context, projectIDs []int64, terms []string, limit int) ([]models.Label, error)
}

// mergeRequestStore serves the merge request tools.
type mergeRequestStore interface {
	LoadMergeRequest(ctx context.Context, projectID, iid int64) (*models.MergeRequest, error)
	MergeRequestPipelines(ctx context.Context, mr *models.MergeRequest, shas []string, limit int) ([]models.Pipeline, int64, error)
	LatestMergeRequestPipelines(ctx context.Context, mr *models.MergeRequest, shas []string, limit int) ([]models.Pipeline, error)
	FindOpenMergeRequest(ctx context.Context, projectID int64, source, target string) (*models.MergeRequest, error)
	CreateMergeRequest(ctx context.Context, mr *models.MergeRequest) error
	LockMergeRequest(ctx context.Context, projectID, iid int64) (*models.MergeRequest, error)
	MergeMergeRequest(ctx context.Context, projectID, iid int64, m models.MergeRequestMerge) (*models.MergeRequest, error)
	MergeRequestDiff(ctx context.Context, mrID int64) (*models.MergeRequestDiff, error)
}

// pipelineStore serves get_pipeline_jobs.
type pipelineStore interface {
	LoadPipeline(ctx context.Context, projectID, id int64) (*models.Pipeline, error)
	PagePipelineJobs(ctx context.Context, pipelineID int64, limit, offset int) ([]models.CIJob, int64, error)
}

// noteStore serves the work item note tools and search.
type noteStore interface {
	PageNotes(ctx context.Context, q models.NotePageQuery) (*models.NotePage, error)
	FindDiscussionStart(ctx context.Context, id string) (*models.Note, error)
	LoadNote(ctx context.Context, id int64) (*models.Note, error)
	CreateNote(ctx context.Context, n *models.Note) error
	NoteableIIDs(ctx context.Context, typ models.NoteableType, ids []int64) (map[int64]int64, error)
}

// searchStore serves search and semantic_code_search. Every method
// applies the viewer's read permissions in the query itself.
type searchStore interface {
	searchScopeStore
	SearchCode(ctx context.Context, q models.CodeSearchQuery) ([]models.CodeSearchHit, error)
}

// searchScopeStore is the store's search of each of search's scopes
// that lives in the store (blobs and commits are git's).
type searchScopeStore interface {
	SearchProjects(ctx context.Context, q models.SearchQuery) ([]models.Project, int64, error)
	SearchIssues(ctx context.Context, q models.SearchQuery) ([]models.Issue, int64, error)
	SearchMergeRequests(ctx context.Context, q models.SearchQuery) ([]models.MergeRequest, int64, error)
	SearchNotes(ctx context.Context, q models.SearchQuery) ([]models.Note, int64, error)
	SearchUsers(ctx context.Context, q models.SearchQuery) ([]models.User, int64, error)
	SearchGroups(ctx context.Context, q models.SearchQuery) ([]models.Group, int64, error)
	SearchMilestones(ctx context.Context, q models.SearchQuery) ([]models.Milestone, int64, error)
	SearchWikiPages(ctx context.Context, q models.SearchQuery) ([]models.WikiPage, int64, error)
}

// workItemStore serves the work item tools and list_wiki_pages.
type workItemStore interface {
	ListWorkItems(ctx context.Context, q models.WorkItemQuery) (*models.WorkItemPage, error)
	ListWorkItemTypes(ctx context.Context, edition models.Edition) ([]models.WorkItemType, error)
	ListWikiPages(ctx context.Context, projectID int64, afterSlug string, limit int) ([]models.WikiPage, error)
	WorkItemParent(ctx context.Context, id int64) (*models.Issue, error)
	WorkItemHasChildren(ctx context.Context, id int64) (bool, error)
	CountNotes(ctx context.Context, typ models.NoteableType, noteableID int64, includeInternal bool) (int64, error)
	// RelatedMergeRequests pages the project's merge requests whose title
	// or description references #iid, by id after afterID.
	RelatedMergeRequests(ctx context.Context, projectID, iid, afterID int64, limit int) ([]models.MergeRequest, bool, error)
	FindLabelsByID(ctx context.Context, projectID int64, ids []int64) ([]models.Label, error)
	FindIssueByID(ctx context.Context, id int64) (*models.Issue, error)
	// CreateWorkItem, UpdateWorkItem and LinkWorkItems apply the
	// hierarchy and link rules (models.ErrInvalidInput, ErrConflict).
	CreateWorkItem(ctx context.Context, i *models.Issue, parentID *int64) error
	UpdateWorkItem(ctx context.Context, id int64, u models.WorkItemUpdate) (*models.Issue, error)
	LinkWorkItems(ctx context.Context, source int64, targets []int64, t models.LinkType) error
}

// reviewStore serves list_merge_requests, save_merge_request and
// save_merge_request_review.
type reviewStore interface {
	ListMergeRequests(ctx context.Context, q models.MergeRequestQuery) ([]models.MergeRequest, bool, error)
	UpdateMergeRequest(ctx context.Context, projectID, iid int64, u models.MergeRequestUpdate) (*models.MergeRequest, error)
	ApproveMergeRequest(ctx context.Context, mrID, userID int64) (bool, error)
	UnapproveMergeRequest(ctx context.Context, mrID, userID int64) (bool, error)
	MergeRequestApprovals(ctx context.Context, mrID int64) ([]models.Approval, error)
	PageDiscussions(ctx context.Context, q models.DiscussionPageQuery) ([]models.Discussion, bool, error)
	ResolveDiscussion(ctx context.Context, mrID int64, id string, userID int64, resolved bool) ([]models.Note, error)
	FindUserByUsername(ctx context.Context, username string) (*models.User, error)
	FindMilestone(ctx context.Context, projectID, id int64) (*models.Milestone, error)
	FindMilestoneByTitle(ctx context.Context, projectID int64, title string) (*models.Milestone, error)
}

// ciStore serves the ci toolset.
type ciStore interface {
	ListPipelines(ctx context.Context, q models.PipelineQuery) ([]models.Pipeline, bool, error)
	PageJobs(ctx context.Context, q models.JobQuery) ([]models.CIJob, bool, error)
	DownstreamPipelines(ctx context.Context, id, afterID int64, limit int) ([]models.Pipeline, bool, error)
	PipelinesTriggeredBy(ctx context.Context, jobIDs []int64) (map[int64]models.Pipeline, error)
	LoadJob(ctx context.Context, projectID, id int64) (*models.CIJob, error)
	JobArtifacts(ctx context.Context, jobIDs []int64) ([]models.JobArtifact, error)
	FindJobArtifact(ctx context.Context, jobID int64, fileType string) (*models.JobArtifact, error)
	ReadArtifactRange(ctx context.Context, a *models.JobArtifact, offset, limit int64) ([]byte, error)
	// OpenArtifact returns a reader of the artifact's bytes by ranges.
	OpenArtifact(ctx context.Context, a *models.JobArtifact) io.ReaderAt
	CreatePipeline(ctx context.Context, p *models.Pipeline) error
	RetryPipeline(ctx context.Context, id, userID int64) (*models.Pipeline, error)
	CancelPipeline(ctx context.Context, id int64) (*models.Pipeline, error)
	RenamePipeline(ctx context.Context, id int64, name string) (*models.Pipeline, error)
	DeletePipeline(ctx context.Context, id int64) error
}

// vulnerabilityStore serves the code_security toolset.
type vulnerabilityStore interface {
	LoadVulnerability(ctx context.Context, id int64) (*models.Vulnerability, error)
	// VulnerabilityProjectID returns the project of vulnerability id, or
	// models.ErrNotFound (where save_vulnerability writes, for the rules).
	VulnerabilityProjectID(ctx context.Context, id int64) (int64, error)
	ListVulnerabilities(ctx context.Context, q models.VulnerabilityQuery) ([]models.Vulnerability, bool, error)
	ChangeVulnerability(ctx context.Context, id int64, c models.VulnerabilityChange) (*models.Vulnerability, error)
	FindScanProfile(ctx context.Context, id int64) (*models.ScanProfile, error)
	DefaultScanProfile(ctx context.Context, namespaceID int64, scanType string) (*models.ScanProfile, error)
	AttachScanProfile(ctx context.Context, profileID int64, projectIDs []int64) (full []int64, err error)
}
