package models

import "time"

// ScanProfileTypes are the scan types a security scan profile configures
// (GitLab's Security::ScanProfile scan_type values).
var ScanProfileTypes = []string{"sast", "secret_detection", "dependency_scanning", "container_scanning",
	"dast", "api_fuzzing", "coverage_fuzzing"}

// MaxScanProfilesPerProject is how many scan profiles one project may have
// attached (GitLab's Security::ScanProfileProject::MAX_PROFILES_PER_PROJECT).
const MaxScanProfilesPerProject = 10

// ScanProfile is a security scan profile of a root group (table
// security_scan_profiles, EE). GitLabRecommended marks the default profile
// of its scan type, created in a group the first time it is attached there.
type ScanProfile struct {
	ID                int64     `gorm:"primaryKey" json:"id"`
	NamespaceID       int64     `json:"namespace_id"`
	ScanType          string    `json:"scan_type"`
	Name              string    `json:"name"`
	Description       string    `json:"description"`
	GitLabRecommended bool      `gorm:"column:gitlab_recommended" json:"gitlab_recommended"`
	CreatedAt         time.Time `json:"created_at"`
	UpdatedAt         time.Time `json:"updated_at"`
}

// TableName maps ScanProfile to security_scan_profiles.
func (ScanProfile) TableName() string { return "security_scan_profiles" }

// ScanProfileProject attaches a scan profile to a project (table
// security_scan_profiles_projects).
type ScanProfileProject struct {
	ID                    int64     `gorm:"primaryKey" json:"id"`
	SecurityScanProfileID int64     `json:"security_scan_profile_id"`
	ProjectID             int64     `json:"project_id"`
	CreatedAt             time.Time `json:"created_at"`
}

// TableName maps ScanProfileProject to security_scan_profiles_projects.
func (ScanProfileProject) TableName() string { return "security_scan_profiles_projects" }

// DefaultScanProfiles are the GitLab-recommended profiles a scan type has
// (a scan type not listed here has none), by scan type.
var DefaultScanProfiles = map[string]ScanProfile{
	"secret_detection": {ScanType: "secret_detection", Name: "Secret Detection (default)", GitLabRecommended: true,
		Description: "Finds secrets (API keys, tokens, passwords) before they are committed, with rules tuned for few false positives."},
	"sast": {ScanType: "sast", Name: "SAST (default)", GitLabRecommended: true,
		Description: "Finds vulnerabilities in source code (injection, cross-site scripting, hard-coded credentials) before they reach production."},
	"dependency_scanning": {ScanType: "dependency_scanning", Name: "Dependency Scanning (default)", GitLabRecommended: true,
		Description: "Finds known vulnerabilities in the project's dependencies, transitive ones included, in branch and merge request pipelines."},
}
