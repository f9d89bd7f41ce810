package models

import "time"

// WorkItemTypeID names a work item type by GitLab's own id
// (gid://gitlab/WorkItems::Type/<id>).
type WorkItemTypeID int64

// Work item types (GitLab's base types and ids). Issue is the default.
const (
	TypeIssue       WorkItemTypeID = 1
	TypeIncident    WorkItemTypeID = 2
	TypeTestCase    WorkItemTypeID = 3
	TypeRequirement WorkItemTypeID = 4
	TypeTask        WorkItemTypeID = 5
	TypeObjective   WorkItemTypeID = 6
	TypeKeyResult   WorkItemTypeID = 7
	TypeEpic        WorkItemTypeID = 8
	TypeTicket      WorkItemTypeID = 9
)

// WorkItemType is one kind of work item (table work_item_types). Edition
// says where it exists: CE types everywhere, EE types on the EE edition
// only. GroupLevel types (epics) live on groups rather than projects.
type WorkItemType struct {
	ID         WorkItemTypeID `gorm:"primaryKey" json:"id"`
	Name       string         `json:"name"`
	BaseType   string         `json:"base_type"`
	IconName   string         `json:"icon_name"`
	Edition    Edition        `json:"edition"`
	GroupLevel bool           `json:"group_level"`
}

// childTypes is GitLab's hierarchy restriction table: which types a work
// item of each type may have as children.
var childTypes = map[WorkItemTypeID][]WorkItemTypeID{
	TypeIssue:     {TypeTask},
	TypeIncident:  {TypeTask},
	TypeTicket:    {TypeTask},
	TypeEpic:      {TypeEpic, TypeIssue},
	TypeObjective: {TypeObjective, TypeKeyResult},
}

// CanParent reports whether a work item of type parent may have a child of
// type child.
func CanParent(parent, child WorkItemTypeID) bool {
	for _, t := range childTypes[parent] {
		if t == child {
			return true
		}
	}
	return false
}

// MilestoneState is the state of a milestone.
type MilestoneState string

// Milestone states.
const (
	MilestoneActive MilestoneState = "active"
	MilestoneClosed MilestoneState = "closed"
)

// Milestone is a project milestone (table milestones). IID is its number
// in the project; Title is unique in the project.
type Milestone struct {
	ID          int64          `gorm:"primaryKey" json:"id"`
	ProjectID   int64          `json:"project_id"`
	IID         int64          `gorm:"column:iid" json:"iid"`
	Title       string         `json:"title"`
	Description string         `json:"description"`
	State       MilestoneState `json:"state"`
	StartDate   *Date          `json:"start_date"`
	DueDate     *Date          `json:"due_date"`
	CreatedAt   time.Time      `json:"created_at"`
	UpdatedAt   time.Time      `json:"updated_at"`
}

// LinkType is the relationship of a work item link.
type LinkType string

// Link types. LinkBlockedBy is never stored: it is a LinkBlocks link read
// from the other side.
const (
	LinkRelatesTo LinkType = "relates_to"
	LinkBlocks    LinkType = "blocks"
	LinkBlockedBy LinkType = "blocked_by"
)

// WorkItemLink links two work items (table issue_links, GitLab's name).
type WorkItemLink struct {
	ID        int64     `gorm:"primaryKey" json:"id"`
	SourceID  int64     `json:"source_id"`
	TargetID  int64     `json:"target_id"`
	LinkType  LinkType  `json:"link_type"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// TableName maps WorkItemLink to GitLab's issue_links table.
func (WorkItemLink) TableName() string { return "issue_links" }

// WikiPage is a page of a project's wiki (table wiki_pages). Slug is its
// path in the wiki, unique in the project.
type WikiPage struct {
	ID        int64     `gorm:"primaryKey" json:"id"`
	ProjectID int64     `json:"project_id"`
	Slug      string    `json:"slug"`
	Title     string    `json:"title"`
	Format    string    `json:"format"`
	Content   string    `json:"content"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// WorkItemUpdate changes a work item; nil (or false Set…) leaves a field
// alone. Labels are names of the project's labels.
type WorkItemUpdate struct {
	Title        *string
	Description  *string
	Confidential *bool
	State        *IssueState
	// SetMilestone replaces the milestone with MilestoneID (nil: none).
	SetMilestone bool
	MilestoneID  *int64
	// SetStartDate / SetDueDate replace the date (nil: none).
	SetStartDate, SetDueDate bool
	StartDate, DueDate       *Date
	// AssigneeIDs, when not nil, replaces the assignees.
	AssigneeIDs  *[]int64
	AddLabels    []string
	RemoveLabels []string
	// SetParent replaces the parent with ParentID (nil: none).
	SetParent bool
	ParentID  *int64
}

// WorkItemSort orders a work item listing (GitLab's sort keys).
type WorkItemSort string

// Work item sorts.
const (
	SortCreatedDesc WorkItemSort = "CREATED_DESC"
	SortCreatedAsc  WorkItemSort = "CREATED_ASC"
	SortUpdatedDesc WorkItemSort = "UPDATED_DESC"
	SortUpdatedAsc  WorkItemSort = "UPDATED_ASC"
	SortTitleAsc    WorkItemSort = "TITLE_ASC"
	SortTitleDesc   WorkItemSort = "TITLE_DESC"
)

// WorkItemQuery selects one page of the work items a viewer may read in a
// project or a group's projects. Empty filters match everything.
type WorkItemQuery struct {
	Viewer    *User
	ProjectID int64  // > 0: this project only
	GroupPath string // set: the group's projects, subgroups included
	State     IssueState
	Search    string // in title and description
	// Lockdown leaves out matches in withheld descriptions
	// (SearchQuery.Lockdown).
	Lockdown bool
	// AuthorUsername, AssigneeUsernames (all of them) and LabelNames (all
	// of them) match by name.
	AuthorUsername    string
	AssigneeUsernames []string
	LabelNames        []string
	// MilestoneTitles matches any of them; MilestoneWildcard is NONE, ANY,
	// STARTED or UPCOMING (GitLab's wildcards).
	MilestoneTitles   []string
	MilestoneWildcard string
	Types             []WorkItemTypeID
	CreatedAfter      *time.Time
	CreatedBefore     *time.Time
	UpdatedAfter      *time.Time
	UpdatedBefore     *time.Time
	DueAfter          *Date
	DueBefore         *Date
	Sort              WorkItemSort
	// After resumes after the row with this sort key and id (from
	// WorkItemPage.EndKey/EndID).
	AfterKey string
	AfterID  int64
	Limit    int
}

// WorkItemPage is one page of a listing. EndKey/EndID are the last row's
// position; HasNext says whether more rows follow.
type WorkItemPage struct {
	Items   []Issue
	HasNext bool
	EndKey  string
	EndID   int64
}
