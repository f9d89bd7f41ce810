package models

import "time"

// Edition names which route group a tool belongs to: CE tools are served on
// both groups, EE tools only on the EE (orbit) group.
type Edition string

// Editions.
const (
	EditionCE Edition = "ce"
	EditionEE Edition = "ee"
)

// ToolAnnotations are MCP tool annotations (hints to the client).
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Tool is one tool definition (table tools). The definitions live in the
// store so operators can enable, disable and edit them.
type Tool struct {
	ID          int64  `gorm:"primaryKey" json:"id"`
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
	// DescriptionCustomized is set when an operator replaced the
	// description; syncing the code's definitions then keeps it.
	DescriptionCustomized bool       `json:"description_customized"`
	InputSchema           JSON       `json:"inputSchema"`
	OutputSchema          JSON       `json:"outputSchema,omitempty"`
	Annotations           JSON       `json:"annotations"` // a ToolAnnotations document
	Toolset               string     `json:"toolset"`
	Edition               Edition    `json:"edition"`
	Enabled               bool       `json:"enabled"`
	Aliases               StringList `gorm:"type:text" json:"aliases"`
	CreatedAt             time.Time  `json:"created_at"`
	UpdatedAt             time.Time  `json:"updated_at"`
}

// Toolsets (GitLab's names). ToolsetMeta is always enabled.
const (
	ToolsetMeta          = "meta"
	ToolsetCore          = "core"
	ToolsetMergeRequests = "merge_requests"
	ToolsetWorkItems     = "work_items"
	ToolsetCI            = "ci"
	ToolsetRepository    = "repository"
	ToolsetWikis         = "wikis"
	ToolsetCodeSecurity  = "code_security"
	ToolsetDuoAgent      = "duo_agent_platform"
)

// GitLabToolsets are GitLab 19.5's toolsets in its order
// (Mcp::Tools::Toolsets::ALL: always on, default, opt-in). The toolsets
// header accepts each of them whether or not glmcp has a tool in it yet, and
// an unknown toolset's error lists them in this order.
var GitLabToolsets = []string{
	ToolsetMeta,
	ToolsetCore, ToolsetMergeRequests, ToolsetWorkItems, ToolsetRepository, ToolsetCI, ToolsetDuoAgent,
	ToolsetWikis, ToolsetCodeSecurity,
}

// OptInToolsets are GitLab 19.5's Toolsets::OPT_IN: listed only when the
// toolsets header names them (or "all"). Every other toolset is listed when
// a request names none (no toolsets or tools header, or only blanks and
// commas): GitLab's DEFAULT (core, merge_requests, work_items, repository,
// ci, duo_agent_platform), the always-on meta, and glmcp's own toolsets
// (the conformance fixtures).
var OptInToolsets = []string{ToolsetWikis, ToolsetCodeSecurity}
