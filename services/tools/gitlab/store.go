package gitlab

import (
	"context"
	"io"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/codeindex"
	"gitlab.com/glmcp/glmcp/services/store"
)

// Families is the data store as the GitLab tools see it: one field per
// family of services/store they use, each holding the interface of the
// methods the tools call on that family (declared here, consumer side;
// the store's *store.Issues, … satisfy them). It has no methods of its
// own: nothing hands a tool the whole store. A tool's registration
// function builds the tool's own need from the fields (a need served by
// one family is an interface the field satisfies, get_user.go's
// getUserStore from g.store.Users; one that spans families is a small
// struct embedding one narrow interface per family, save_note.go's
// saveNoteStore), and a write tool does the same with the transaction's
// Families on the first line of fn. A test wraps one field to inject a
// fault (helpers_test.go). The zero Families is no store: the tools fail
// with a server error.
type Families struct {
	Projects        ProjectFamily
	Groups          GroupFamily
	Issues          IssueFamily
	MergeRequests   MergeRequestFamily
	Notes           NoteFamily
	CI              CIFamily
	Search          SearchFamily
	Users           UserFamily
	Vulnerabilities VulnerabilityFamily
	Releases        ReleaseFamily
	// CodeIndex is what the semantic search index reads and writes
	// (newGitlab builds a codeindex.Indexer over it when Deps.CodeIndex
	// is nil); nil: none.
	CodeIndex codeindex.Store
}

// FamiliesOf returns st's families as the tools see them.
func FamiliesOf(st *store.Store) Families {
	return Families{Projects: st.Projects, Groups: st.Groups, Issues: st.Issues,
		MergeRequests: st.MergeRequests, Notes: st.Notes, CI: st.CI, Search: st.Search, Users: st.Users,
		Vulnerabilities: st.Vulnerabilities, Releases: st.Releases,
		CodeIndex: codeIndexStore{CodeIndex: st.CodeIndex, projectByID: st.Projects}}
}

// noStore reports a catalog built without a store (the zero Families).
func noStore(f Families) bool { return f.Projects == nil }

// codeIndexStore is codeindex.Store over the store: the index and the
// project it is of.
type codeIndexStore struct {
	*store.CodeIndex
	projectByID
}

// projectByID is the code index's project lookup.
type projectByID interface {
	FindProjectByID(ctx context.Context, id int64) (*models.Project, error)
}

// InTx runs fn in one store transaction with Families bound to it; fn's
// error rolls the transaction back. Every write tool runs its checks and
// writes through tx, so a failing call changes nothing. The tool builds
// its own write need from tx on the first line of fn
// (st := xWriteStore(tx.Notes), or a struct of tx's families) and uses
// only that.
type InTx func(ctx context.Context, fn func(tx Families) error) error

// Transactions is the InTx of st: fn's Families are those of st's
// transaction (Store.WithTx).
func Transactions(st *store.Store) InTx {
	return func(ctx context.Context, fn func(tx Families) error) error {
		return st.WithTx(ctx, func(tx *store.Store) error { return fn(FamiliesOf(tx)) })
	}
}

// ProjectFamily is what the tools call on store.Projects.
type ProjectFamily interface {
	// FindProjectWithRoleByID and FindProjectWithRoleByPath return a
	// project with userID's effective role in it (direct or inherited from
	// a group; models.NoAccess for a non-member), in one statement.
	FindProjectWithRoleByID(ctx context.Context, id, userID int64) (*models.Project, models.AccessLevel, error)
	FindProjectWithRoleByPath(ctx context.Context, pathWithNamespace string, userID int64) (*models.Project, models.AccessLevel, error)
	VisibleProjectIDs(ctx context.Context, viewer *models.User, groupPath string) ([]int64, error)
	LoadProjects(ctx context.Context, ids []int64) ([]models.Project, error)
	ListProjects(ctx context.Context, q models.ProjectQuery) ([]models.Project, error)
	CreateProject(ctx context.Context, p *models.Project) error
	SetProjectDefaultBranch(ctx context.Context, id int64, branch string) error
}

// GroupFamily is what the tools call on store.Groups (groups and
// memberships).
type GroupFamily interface {
	FindGroupByID(ctx context.Context, id int64) (*models.Group, error)
	FindGroupByFullPath(ctx context.Context, fullPath string) (*models.Group, error)
	// ProjectAccessLevel is userID's effective role in projectID, as
	// FindProjectWithRoleByID reads it.
	ProjectAccessLevel(ctx context.Context, projectID, userID int64) (models.AccessLevel, error)
	// ProjectAccessLevels is ProjectAccessLevel for several users in one
	// statement; a user without a role is missing from the map.
	ProjectAccessLevels(ctx context.Context, projectID int64, userIDs []int64) (map[int64]models.AccessLevel, error)
	HasMembershipInGroup(ctx context.Context, fullPath string, userID int64) (bool, error)
	GroupAccessLevel(ctx context.Context, groupID, userID int64) (models.AccessLevel, error)
	ListGroups(ctx context.Context, q models.GroupQuery) ([]models.Group, error)
	ListProjectMembers(ctx context.Context, projectID int64, inherited bool, query string, afterUserID int64, limit int) ([]models.Member, error)
}

// UserFamily is what the tools call on store.Users.
type UserFamily interface {
	FindUserByID(ctx context.Context, id int64) (*models.User, error)
	FindUserByEmail(ctx context.Context, email string) (*models.User, error)
	FindUserByUsername(ctx context.Context, username string) (*models.User, error)
}

// IssueFamily is what the tools call on store.Issues (issues, work items,
// labels, milestones).
type IssueFamily interface {
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
	ListWorkItems(ctx context.Context, q models.WorkItemQuery) (*models.WorkItemPage, error)
	ListWorkItemTypes(ctx context.Context, edition models.Edition) ([]models.WorkItemType, error)
	WorkItemParent(ctx context.Context, id int64) (*models.Issue, error)
	WorkItemHasChildren(ctx context.Context, id int64) (bool, error)
	FindLabelsByID(ctx context.Context, projectID int64, ids []int64) ([]models.Label, error)
	FindIssueByID(ctx context.Context, id int64) (*models.Issue, error)
	// CreateWorkItem, UpdateWorkItem and LinkWorkItems apply the
	// hierarchy and link rules (models.ErrInvalidInput, ErrConflict).
	CreateWorkItem(ctx context.Context, i *models.Issue, parentID *int64) error
	UpdateWorkItem(ctx context.Context, id int64, u models.WorkItemUpdate) (*models.Issue, error)
	LinkWorkItems(ctx context.Context, source int64, targets []int64, t models.LinkType) error
	FindMilestone(ctx context.Context, projectID, id int64) (*models.Milestone, error)
	FindMilestoneByTitle(ctx context.Context, projectID int64, title string) (*models.Milestone, error)
}

// MergeRequestFamily is what the tools call on store.MergeRequests.
type MergeRequestFamily interface {
	LoadMergeRequest(ctx context.Context, projectID, iid int64) (*models.MergeRequest, error)
	MergeRequestPipelines(ctx context.Context, mr *models.MergeRequest, shas []string, limit int) ([]models.Pipeline, int64, error)
	LatestMergeRequestPipelines(ctx context.Context, mr *models.MergeRequest, shas []string, limit int) ([]models.Pipeline, error)
	FindOpenMergeRequest(ctx context.Context, projectID int64, source, target string) (*models.MergeRequest, error)
	CreateMergeRequest(ctx context.Context, mr *models.MergeRequest) error
	LockMergeRequest(ctx context.Context, projectID, iid int64) (*models.MergeRequest, error)
	MergeMergeRequest(ctx context.Context, projectID, iid int64, m models.MergeRequestMerge) (*models.MergeRequest, error)
	MergeRequestDiff(ctx context.Context, mrID int64) (*models.MergeRequestDiff, error)
	ListMergeRequests(ctx context.Context, q models.MergeRequestQuery) ([]models.MergeRequest, bool, error)
	UpdateMergeRequest(ctx context.Context, projectID, iid int64, u models.MergeRequestUpdate) (*models.MergeRequest, error)
	ApproveMergeRequest(ctx context.Context, mrID, userID int64) (bool, error)
	UnapproveMergeRequest(ctx context.Context, mrID, userID int64) (bool, error)
	MergeRequestApprovals(ctx context.Context, mrID int64) ([]models.Approval, error)
	PageDiscussions(ctx context.Context, q models.DiscussionPageQuery) ([]models.Discussion, bool, error)
	ResolveDiscussion(ctx context.Context, mrID int64, id string, userID int64, resolved bool) ([]models.Note, error)
	// RelatedMergeRequests pages the project's merge requests whose title
	// or description references #iid, by id after afterID.
	RelatedMergeRequests(ctx context.Context, projectID, iid, afterID int64, limit int) ([]models.MergeRequest, bool, error)
}

// NoteFamily is what the tools call on store.Notes.
type NoteFamily interface {
	PageNotes(ctx context.Context, q models.NotePageQuery) (*models.NotePage, error)
	FindDiscussionStart(ctx context.Context, id string) (*models.Note, error)
	LoadNote(ctx context.Context, id int64) (*models.Note, error)
	CreateNote(ctx context.Context, n *models.Note) error
	NoteableIIDs(ctx context.Context, typ models.NoteableType, ids []int64) (map[int64]int64, error)
	CountNotes(ctx context.Context, typ models.NoteableType, noteableID int64, includeInternal bool) (int64, error)
}

// CIFamily is what the tools call on store.CI (pipelines, jobs,
// artifacts).
type CIFamily interface {
	LoadPipeline(ctx context.Context, projectID, id int64) (*models.Pipeline, error)
	PagePipelineJobs(ctx context.Context, pipelineID int64, limit, offset int) ([]models.CIJob, int64, error)
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

// SearchFamily is what search and semantic_code_search call on
// store.Search. Every method applies the viewer's read permissions in the
// query itself.
type SearchFamily interface {
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

// VulnerabilityFamily is what the code_security toolset calls on
// store.Vulnerabilities.
type VulnerabilityFamily interface {
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

// ReleaseFamily is what list_releases and list_wiki_pages call on
// store.Releases.
type ReleaseFamily interface {
	ListReleases(ctx context.Context, q models.ReleaseQuery) ([]models.Release, bool, error)
	ListWikiPages(ctx context.Context, projectID int64, afterSlug string, limit int) ([]models.WikiPage, error)
}

// projectStore resolves projects, groups, members and users (the target
// lookups, lockdown, search's projects); directory satisfies it.
type projectStore interface {
	projectReads
	groupRoles
	userFinder
}

// directory is projectStore over the families: what many tools read
// beside their own family.
type directory struct {
	projectReads
	groupRoles
	userFinder
}

// directoryOf is f's directory, or nil for the zero Families.
func directoryOf(f Families) projectStore {
	if noStore(f) {
		return nil
	}
	return directory{f.Projects, f.Groups, f.Users}
}

// projectReads is the Projects half of projectStore.
type projectReads interface {
	projectLookup
	VisibleProjectIDs(ctx context.Context, viewer *models.User, groupPath string) ([]int64, error)
	LoadProjects(ctx context.Context, ids []int64) ([]models.Project, error)
}

// groupRoles is the Groups part of projectStore: groups and roles.
type groupRoles interface {
	groupLookup
	roleReader
	projectRolesStore
}

// userFinder is the Users part of projectStore.
type userFinder interface {
	FindUserByID(ctx context.Context, id int64) (*models.User, error)
	FindUserByEmail(ctx context.Context, email string) (*models.User, error)
}

// bind is build(f), or nil for the zero Families (a catalog built without
// a store): how a registration function makes a tool's store struct.
func bind[S any](f Families, build func(Families) S) *S {
	if noStore(f) {
		return nil
	}
	s := build(f)
	return &s
}

// The one-family parts the store structs of several tools embed.
type (
	// groupAccess is a user's role in a group (Groups).
	groupAccess interface {
		GroupAccessLevel(ctx context.Context, groupID, userID int64) (models.AccessLevel, error)
	}
	// userByID finds a user (Users).
	userByID interface {
		FindUserByID(ctx context.Context, id int64) (*models.User, error)
	}
	// userByUsername finds a user by username (Users).
	userByUsername interface {
		FindUserByUsername(ctx context.Context, username string) (*models.User, error)
	}
	// mrLoader loads a merge request by project and iid (MergeRequests).
	mrLoader interface {
		LoadMergeRequest(ctx context.Context, projectID, iid int64) (*models.MergeRequest, error)
	}
	// notesPage pages a noteable's notes (Notes).
	notesPage interface {
		PageNotes(ctx context.Context, q models.NotePageQuery) (*models.NotePage, error)
	}
	// discussionsPage pages a merge request's discussions (MergeRequests).
	discussionsPage interface {
		PageDiscussions(ctx context.Context, q models.DiscussionPageQuery) ([]models.Discussion, bool, error)
	}
	// workItemTypeLister lists the work item types (Issues).
	workItemTypeLister interface {
		ListWorkItemTypes(ctx context.Context, edition models.Edition) ([]models.WorkItemType, error)
	}
	// memberRoles is a project's roles, one user's and several users'
	// (Groups).
	memberRoles interface {
		roleReader
		projectRolesStore
	}
	// mrResultIssues is what the merge request view reads of Issues
	// (mrResultStore), with the labels a write ensures.
	mrResultIssues interface {
		labelEnsurer
		CountUserNotes(ctx context.Context, typ models.NoteableType, noteableID int64, includeInternal bool) (int64, error)
		FindMilestone(ctx context.Context, projectID, id int64) (*models.Milestone, error)
	}
)
