package gitlab

import (
	"strconv"
	"time"

	"gitlab.com/glmcp/glmcp/models"
)

// The types below are GitLab REST API entities (API::Entities::*), with the
// fields glmcp can fill; nullable fields are pointers.

// apiTime formats t as GitLab's API does: UTC, milliseconds, "Z".
func apiTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func apiTimePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := apiTime(*t)
	return &s
}

type userJSON struct {
	ID        int64   `json:"id"`
	Username  string  `json:"username"`
	Name      string  `json:"name"`
	State     string  `json:"state"`
	Locked    bool    `json:"locked"`
	AvatarURL *string `json:"avatar_url"`
	WebURL    string  `json:"web_url"`
}

// links renders the store's objects as GitLab's REST API does, with web
// URLs under the instance's public base URL (no trailing slash; empty gives
// root-relative URLs). A tool holds the value, not the tools' shared state.
type links struct{ base string }

func (l links) user(u *models.User) *userJSON {
	if u == nil {
		return nil
	}
	return &userJSON{ID: u.ID, Username: u.Username, Name: u.Name, State: string(u.State),
		Locked: u.State == models.UserBlocked, WebURL: l.base + "/" + u.Username}
}

func (l links) users(us []models.User) []*userJSON {
	out := make([]*userJSON, 0, len(us))
	for k := range us {
		out = append(out, l.user(&us[k]))
	}
	return out
}

type referencesJSON struct {
	Short    string `json:"short"`
	Relative string `json:"relative"`
	Full     string `json:"full"`
}

type milestoneJSON struct {
	Title string `json:"title"`
}

type issueLinksJSON struct {
	Self       string `json:"self"`
	Notes      string `json:"notes"`
	AwardEmoji string `json:"award_emoji"`
	Project    string `json:"project"`
}

// issuableJSON are the leading fields GitLab's issue and merge request
// entities share.
type issuableJSON struct {
	ID          int64  `json:"id"`
	IID         int64  `json:"iid"`
	ProjectID   int64  `json:"project_id"`
	Title       string `json:"title"`
	Description string `json:"description"`
	State       string `json:"state"`
	CreatedAt   string `json:"created_at"`
	UpdatedAt   string `json:"updated_at"`
}

func issuable(id, iid, projectID int64, title, description, state string, created, updated time.Time) issuableJSON {
	return issuableJSON{ID: id, IID: iid, ProjectID: projectID, Title: title, Description: description,
		State: state, CreatedAt: apiTime(created), UpdatedAt: apiTime(updated)}
}

type issueJSON struct {
	issuableJSON
	ClosedAt       *string        `json:"closed_at"`
	ClosedBy       *userJSON      `json:"closed_by"`
	Labels         []string       `json:"labels"`
	Milestone      *milestoneJSON `json:"milestone"`
	Assignees      []*userJSON    `json:"assignees"`
	Author         *userJSON      `json:"author"`
	Type           string         `json:"type"`
	Assignee       *userJSON      `json:"assignee"`
	UserNotesCount int64          `json:"user_notes_count"`
	Upvotes        int            `json:"upvotes"`
	Downvotes      int            `json:"downvotes"`
	DueDate        *string        `json:"due_date"`
	Confidential   bool           `json:"confidential"`
	IssueType      string         `json:"issue_type"`
	WebURL         string         `json:"web_url"`
	References     referencesJSON `json:"references"`
	Links          issueLinksJSON `json:"_links"`
}

// issue renders i of project p; notes is the user_notes_count.
func (l links) issue(p *models.Project, i *models.Issue, notes int64) *issueJSON {
	iid := strconv.FormatInt(i.IID, 10)
	self := l.base + "/api/v4/projects/" + strconv.FormatInt(p.ID, 10) + "/issues/" + iid
	out := &issueJSON{
		issuableJSON: issuable(i.ID, i.IID, i.ProjectID, i.Title, i.Description, string(i.State), i.CreatedAt, i.UpdatedAt),
		ClosedAt:     apiTimePtr(i.ClosedAt), Labels: labelNames(i.Labels), Assignees: l.users(i.Assignees),
		Author: l.user(i.Author), Type: "ISSUE", UserNotesCount: notes, Confidential: i.Confidential,
		IssueType: "issue", WebURL: l.projectURL(p) + "/-/issues/" + iid,
		References: referencesJSON{Short: "#" + iid, Relative: "#" + iid, Full: p.PathWithNamespace + "#" + iid},
		Links: issueLinksJSON{Self: self, Notes: self + "/notes", AwardEmoji: self + "/award_emoji",
			Project: l.base + "/api/v4/projects/" + strconv.FormatInt(p.ID, 10)},
	}
	if i.Milestone != "" {
		out.Milestone = &milestoneJSON{Title: i.Milestone}
	}
	if len(out.Assignees) > 0 {
		out.Assignee = out.Assignees[0]
	}
	return out
}

func labelNames(l models.StringList) []string {
	if l == nil {
		return []string{}
	}
	return l
}

type pipelineJSON struct {
	ID        int64   `json:"id"`
	IID       int64   `json:"iid"`
	ProjectID int64   `json:"project_id"`
	SHA       string  `json:"sha"`
	Ref       string  `json:"ref"`
	Status    string  `json:"status"`
	Source    string  `json:"source"`
	CreatedAt string  `json:"created_at"`
	UpdatedAt string  `json:"updated_at"`
	WebURL    string  `json:"web_url"`
	StartedAt *string `json:"started_at,omitempty"`
	// FinishedAt is only set in the detailed variant (head_pipeline).
	FinishedAt *string `json:"finished_at,omitempty"`
}

func (l links) pipeline(proj *models.Project, p *models.Pipeline) *pipelineJSON {
	return &pipelineJSON{ID: p.ID, IID: p.IID, ProjectID: p.ProjectID, SHA: p.SHA, Ref: p.Ref,
		Status: p.Status, Source: p.Source, CreatedAt: apiTime(p.CreatedAt), UpdatedAt: apiTime(p.UpdatedAt),
		WebURL: l.projectURL(proj) + "/-/pipelines/" + strconv.FormatInt(p.ID, 10)}
}

type mergeRequestUserJSON struct {
	CanMerge bool `json:"can_merge"`
}

type mergeRequestJSON struct {
	issuableJSON
	MergedBy            *userJSON      `json:"merged_by"`
	MergedAt            *string        `json:"merged_at"`
	ClosedBy            *userJSON      `json:"closed_by"`
	ClosedAt            *string        `json:"closed_at"`
	TargetBranch        string         `json:"target_branch"`
	SourceBranch        string         `json:"source_branch"`
	UserNotesCount      int64          `json:"user_notes_count"`
	Upvotes             int            `json:"upvotes"`
	Downvotes           int            `json:"downvotes"`
	Author              *userJSON      `json:"author"`
	Assignees           []*userJSON    `json:"assignees"`
	Assignee            *userJSON      `json:"assignee"`
	Reviewers           []*userJSON    `json:"reviewers"`
	SourceProjectID     int64          `json:"source_project_id"`
	TargetProjectID     int64          `json:"target_project_id"`
	Labels              []string       `json:"labels"`
	Draft               bool           `json:"draft"`
	WorkInProgress      bool           `json:"work_in_progress"`
	Milestone           *milestoneJSON `json:"milestone"`
	MergeStatus         string         `json:"merge_status"`
	DetailedMergeStatus string         `json:"detailed_merge_status"`
	SHA                 string         `json:"sha"`
	MergeCommitSHA      *string        `json:"merge_commit_sha"`
	SquashCommitSHA     *string        `json:"squash_commit_sha"`
	Squash              bool           `json:"squash"`
	// ForceRemoveSourceBranch and DiscussionLocked are save_merge_request's.
	ForceRemoveSourceBranch bool           `json:"force_remove_source_branch"`
	DiscussionLocked        bool           `json:"discussion_locked"`
	HasConflicts            bool           `json:"has_conflicts"`
	Reference               string         `json:"reference"`
	References              referencesJSON `json:"references"`
	WebURL                  string         `json:"web_url"`
	// The single merge request view (get_merge_request, create) adds these.
	ChangesCount *string               `json:"changes_count,omitempty"`
	HeadPipeline *pipelineJSON         `json:"head_pipeline"`
	User         *mergeRequestUserJSON `json:"user,omitempty"`
}

func (l links) mergeRequest(p *models.Project, mr *models.MergeRequest, notes int64) *mergeRequestJSON {
	iid := strconv.FormatInt(mr.IID, 10)
	out := &mergeRequestJSON{
		issuableJSON: issuable(mr.ID, mr.IID, mr.ProjectID, mr.Title, mr.Description, string(mr.State), mr.CreatedAt, mr.UpdatedAt),
		MergedAt:     apiTimePtr(mr.MergedAt), ClosedAt: apiTimePtr(mr.ClosedAt),
		TargetBranch: mr.TargetBranch, SourceBranch: mr.SourceBranch, UserNotesCount: notes,
		Author: l.user(mr.Author), Assignees: l.users(mr.Assignees), Reviewers: l.users(mr.Reviewers),
		SourceProjectID: mr.ProjectID, TargetProjectID: mr.ProjectID, Labels: labelNames(mr.Labels),
		Draft: mr.Draft, WorkInProgress: mr.Draft, MergeStatus: mr.MergeStatus,
		DetailedMergeStatus: detailedMergeStatus(mr), SHA: mr.SHA, Squash: mr.Squash,
		ForceRemoveSourceBranch: mr.ForceRemoveSourceBranch, DiscussionLocked: mr.DiscussionLocked,
		HasConflicts: mr.MergeStatus == models.MergeStatusCannotBeMerged,
		Reference:    "!" + iid,
		References:   referencesJSON{Short: "!" + iid, Relative: "!" + iid, Full: p.PathWithNamespace + "!" + iid},
		WebURL:       l.projectURL(p) + "/-/merge_requests/" + iid,
	}
	if len(out.Assignees) > 0 {
		out.Assignee = out.Assignees[0]
	}
	if mr.MergeCommitSHA != "" {
		sha := mr.MergeCommitSHA
		out.MergeCommitSHA = &sha
	}
	if mr.SquashCommitSHA != "" {
		sha := mr.SquashCommitSHA
		out.SquashCommitSHA = &sha
	}
	return out
}

// detailedMergeStatus derives GitLab's detailed_merge_status.
func detailedMergeStatus(mr *models.MergeRequest) string {
	switch {
	case mr.State != models.MergeRequestOpened:
		return "not_open"
	case mr.Draft:
		return "draft_status"
	case mr.MergeStatus == models.MergeStatusCanBeMerged:
		return "mergeable"
	case mr.MergeStatus == models.MergeStatusCannotBeMerged:
		return "conflict"
	case mr.MergeStatus == models.MergeStatusChecking:
		return "checking"
	}
	return "unchecked"
}

type noteJSON struct {
	ID           int64     `json:"id"`
	Type         *string   `json:"type"`
	Body         string    `json:"body"`
	Author       *userJSON `json:"author"`
	CreatedAt    string    `json:"created_at"`
	UpdatedAt    string    `json:"updated_at"`
	System       bool      `json:"system"`
	NoteableID   int64     `json:"noteable_id"`
	NoteableType string    `json:"noteable_type"`
	NoteableIID  int64     `json:"noteable_iid"`
	ProjectID    int64     `json:"project_id"`
	Resolvable   bool      `json:"resolvable"`
	Confidential bool      `json:"confidential"`
	Internal     bool      `json:"internal"`
	DiscussionID string    `json:"discussion_id"`
}

func (l links) note(n *models.Note, noteableIID int64) *noteJSON {
	out := &noteJSON{ID: n.ID, Body: n.Body, Author: l.user(n.Author), CreatedAt: apiTime(n.CreatedAt),
		UpdatedAt: apiTime(n.UpdatedAt), System: n.System, NoteableID: n.NoteableID,
		NoteableType: string(n.NoteableType), NoteableIID: noteableIID, ProjectID: n.ProjectID,
		Confidential: n.Internal, Internal: n.Internal, DiscussionID: n.DiscussionID}
	if n.Type != "" {
		t := n.Type
		out.Type = &t
	}
	return out
}

// restPageInfo mirrors GitLab's pagination headers (X-Page, X-Per-Page,
// X-Total, X-Total-Pages, X-Next-Page, X-Prev-Page).
type restPageInfo struct {
	Page       int   `json:"page"`
	PerPage    int   `json:"per_page"`
	Total      int64 `json:"total"`
	TotalPages int64 `json:"total_pages"`
	NextPage   *int  `json:"next_page"`
	PrevPage   *int  `json:"prev_page"`
}

func newRESTPageInfo(page, perPage int, total int64) restPageInfo {
	pi := restPageInfo{Page: page, PerPage: perPage, Total: total}
	pi.TotalPages = (total + int64(perPage) - 1) / int64(perPage)
	if int64(page) < pi.TotalPages {
		next := page + 1
		pi.NextPage = &next
	}
	if page > 1 {
		prev := page - 1
		pi.PrevPage = &prev
	}
	return pi
}

// uncountedPageInfo is restPageInfo for a search with more matches than
// models.SearchCountCap: GitLab then shows "1,000+" and its API leaves out
// X-Total and X-Total-Pages; total and total_pages are null here, and
// next_page says whether another page follows.
type uncountedPageInfo struct {
	Page       int    `json:"page"`
	PerPage    int    `json:"per_page"`
	Total      *int64 `json:"total"`
	TotalPages *int64 `json:"total_pages"`
	NextPage   *int   `json:"next_page"`
	PrevPage   *int   `json:"prev_page"`
}

func newUncountedPageInfo(page, perPage int, more bool) uncountedPageInfo {
	pi := uncountedPageInfo{Page: page, PerPage: perPage}
	if more {
		next := page + 1
		pi.NextPage = &next
	}
	if page > 1 {
		prev := page - 1
		pi.PrevPage = &prev
	}
	return pi
}

// listJSON wraps a list: structuredContent must be an object.
type listJSON[T any] struct {
	Items    []T `json:"items"`
	PageInfo any `json:"pageInfo"`
}

func (l links) projectURL(p *models.Project) string { return p.WebURL(l.base) }

// groupURL is a group's web URL.
func (l links) groupURL(grp *models.Group) string { return l.base + "/groups/" + grp.FullPath }
