package models

import "time"

// IssueState is the state of an issue.
type IssueState string

// Issue states.
const (
	IssueOpened IssueState = "opened"
	IssueClosed IssueState = "closed"
)

// Issue is a GitLab issue (table issues). IID is its number inside the
// project (#1, #2, …), allocated by the store; (ProjectID, IID) is unique.
// Assignees are stored in the join table issue_assignees.
type Issue struct {
	ID          int64      `gorm:"primaryKey" json:"id"`
	ProjectID   int64      `json:"project_id"`
	IID         int64      `gorm:"column:iid" json:"iid"`
	Title       string     `json:"title"`
	Description string     `json:"description"`
	State       IssueState `json:"state"`
	Labels      StringList `gorm:"type:text" json:"labels"`
	Milestone   string     `json:"milestone"` // the milestone's title; "" when none
	// MilestoneID is the milestone whose title Milestone holds; the store
	// keeps the two in step.
	MilestoneID    *int64         `json:"milestone_id"`
	WorkItemTypeID WorkItemTypeID `gorm:"default:1" json:"work_item_type_id"`
	StartDate      *Date          `json:"start_date"`
	DueDate        *Date          `json:"due_date"`
	Confidential   bool           `json:"confidential"`
	AuthorID       int64          `json:"author_id"`
	CreatedAt      time.Time      `json:"created_at"`
	UpdatedAt      time.Time      `json:"updated_at"`
	ClosedAt       *time.Time     `json:"closed_at"`

	Author    *User  `gorm:"foreignKey:AuthorID" json:"author,omitempty"`
	Assignees []User `gorm:"many2many:issue_assignees" json:"assignees"`
}

// AssigneeIDs returns the ids of the loaded assignees.
func (i *Issue) AssigneeIDs() []int64 { return userIDs(i.Assignees) }

func userIDs(users []User) []int64 {
	ids := make([]int64, 0, len(users))
	for _, u := range users {
		ids = append(ids, u.ID)
	}
	return ids
}
