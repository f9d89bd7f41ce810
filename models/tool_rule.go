package models

import "time"

// ToolRuleKind is what a tool rule does to a write tool's call.
type ToolRuleKind string

// Tool rules (GitLab's Allow / Ask / Deny).
const (
	RuleAllow ToolRuleKind = "allow"
	RuleAsk   ToolRuleKind = "ask"
	RuleDeny  ToolRuleKind = "deny"
)

// Valid reports whether k is one of the three rules.
func (k ToolRuleKind) Valid() bool { return k == RuleAllow || k == RuleAsk || k == RuleDeny }

// ToolRule sets the rule for one write tool, or for every write tool (Tool
// ""), on a project or a group (exactly one of ProjectID and NamespaceID).
// A group's rules apply to its subgroups and projects unless a nearer
// namespace has its own.
type ToolRule struct {
	ID          int64        `gorm:"primaryKey" json:"id"`
	NamespaceID *int64       `json:"namespace_id"`
	ProjectID   *int64       `json:"project_id"`
	Tool        string       `json:"tool"`
	Rule        ToolRuleKind `json:"rule"`
	CreatedAt   time.Time    `json:"created_at"`
	UpdatedAt   time.Time    `json:"updated_at"`
	// Path is the full path of the project or group (read, not stored).
	Path string `gorm:"->;-:migration" json:"path"`
}

// TableName is the rules table.
func (ToolRule) TableName() string { return "tool_rules" }

// UsedApproval records an answered approval (the nonce of a sealed
// requestState), so it cannot be answered twice.
type UsedApproval struct {
	Nonce  string    `gorm:"primaryKey"`
	UserID int64     `json:"user_id"`
	Tool   string    `json:"tool"`
	Action string    `json:"action"`
	UsedAt time.Time `json:"used_at"`
}

// TableName is the used-approvals table.
func (UsedApproval) TableName() string { return "tool_approvals_used" }
