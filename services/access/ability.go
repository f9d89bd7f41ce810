package access

import "gitlab.com/glmcp/glmcp/models"

// Ability is what a tool call needs on the object it names (a tool
// Definition declares it; the tool service checks it once, before the tool
// runs). Each is one of the Can… rules of this package.
type Ability string

// The abilities a tool may declare on a work item.
const (
	// ReadWorkItem: CanReadIssue (the work item is found only if u may
	// read it, so this adds nothing to the lookup).
	ReadWorkItem Ability = "read_work_item"
	// LinkWorkItem: CanLinkWorkItem.
	LinkWorkItem Ability = "link_work_item"
)

// The abilities a tool may declare on a project.
const (
	// ReadProject: CanReadProject.
	ReadProject Ability = "read_project"
	// ReadCode: CanReadCode (the repository and what derives from it:
	// merge requests, pipelines, the code index).
	ReadCode Ability = "read_code"
)

// CanOnProject reports whether u has ability a on project p. An ability
// this function does not know is refused.
func CanOnProject(a Ability, u *models.User, p *models.Project, level models.AccessLevel) bool {
	switch a {
	case ReadProject:
		return CanReadProject(u, p, level)
	case ReadCode:
		return CanReadCode(u, p, level)
	case ReadVulnerability:
		return CanReadVulnerability(u, p, level)
	}
	return false
}

// The abilities a tool may declare on a merge request.
const (
	// ReadMergeRequest: CanReadCode in the merge request's project (who
	// may read a project's code may read its merge requests).
	ReadMergeRequest Ability = "read_merge_request"
)

// CanOnMergeRequest reports whether u has ability a on merge request mr
// of project p. An ability this function does not know is refused.
func CanOnMergeRequest(a Ability, u *models.User, p *models.Project, mr *models.MergeRequest, level models.AccessLevel) bool {
	switch a {
	case ReadMergeRequest:
		return mr != nil && CanReadCode(u, p, level)
	}
	return false
}

// The abilities a tool may declare on a vulnerability (EE).
const (
	// ReadVulnerability: CanReadVulnerability in its project (on a
	// project: reading its vulnerabilities).
	ReadVulnerability Ability = "read_vulnerability"
	// AdminVulnerability: CanAdminVulnerability in its project.
	AdminVulnerability Ability = "admin_vulnerability"
)

// CanOnVulnerability reports whether u has ability a on a vulnerability of
// project p. An ability this function does not know is refused.
func CanOnVulnerability(a Ability, u *models.User, p *models.Project, level models.AccessLevel) bool {
	switch a {
	case ReadVulnerability:
		return CanReadVulnerability(u, p, level)
	case AdminVulnerability:
		return CanAdminVulnerability(u, p, level)
	}
	return false
}

// CanOnWorkItem reports whether u has ability a on work item i of project
// p (level: u's role in p). An ability this function does not know is
// refused.
func CanOnWorkItem(a Ability, u *models.User, p *models.Project, i *models.Issue, level models.AccessLevel) bool {
	switch a {
	case ReadWorkItem:
		return CanReadIssue(u, p, i, level)
	case LinkWorkItem:
		return CanLinkWorkItem(u, p, i, level)
	}
	return false
}
