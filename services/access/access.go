package access

import "gitlab.com/glmcp/glmcp/models"

// active reports whether u may act at all.
func active(u *models.User) bool { return u != nil && u.Active() }

// admin reports whether u is an active administrator.
func admin(u *models.User) bool { return active(u) && u.Admin }

// GroupNeedsMembership reports whether seeing g depends on u's
// membership: a private group, for anyone but an administrator. Callers
// look membership up only then, and pass it to CanReadGroup.
func GroupNeedsMembership(u *models.User, g *models.Group) bool {
	return g != nil && !admin(u) && g.Visibility != models.VisibilityPublic && g.Visibility != models.VisibilityInternal
}

// CanReadGroup reports whether u may see group g: an administrator, anyone
// for a public or internal group, and for a private one its members
// (member: a member of g, of a group above or below it, or of a project in
// it). A group u cannot see reads as one that does not exist.
func CanReadGroup(u *models.User, g *models.Group, member bool) bool {
	if !active(u) || g == nil {
		return false
	}
	return !GroupNeedsMembership(u, g) || member
}

// CanReadProject reports whether u may see project p, given u's access
// level in p (models.NoAccess for a non-member).
func CanReadProject(u *models.User, p *models.Project, level models.AccessLevel) bool {
	if !active(u) || p == nil {
		return false
	}
	if u.Admin || level.Valid() {
		return true
	}
	switch p.Visibility {
	case models.VisibilityPublic, models.VisibilityInternal:
		return true
	}
	return false
}

// CanReadCode reports whether u may read p's repository and what derives
// from it: files, merge requests (with their commits and diffs), pipelines
// and jobs. In public and internal projects that is everyone who can read
// the project; in private projects Guests cannot (Reporter and above, or
// an administrator).
func CanReadCode(u *models.User, p *models.Project, level models.AccessLevel) bool {
	if !CanReadProject(u, p, level) {
		return false
	}
	return u.Admin || level >= models.Reporter || p.Visibility != models.VisibilityPrivate
}

// CanCreateIssue reports whether u may open issues in p, GitLab's
// create_issue on a project (ProjectPolicy enables it with guest_access,
// as create_note): every member from Guest up, on a public or internal
// project every signed-in user (public_user_access), and an
// administrator: exactly who can read p. What a caller below Reporter may
// set on the new issue is CanSetIssueMetadata's.
func CanCreateIssue(u *models.User, p *models.Project, level models.AccessLevel) bool {
	return CanReadProject(u, p, level)
}

// CanSetIssueMetadata reports whether u may set the metadata of an issue
// of p (GitLab's set_issue_metadata: labels, assignees, milestone):
// Reporter or above (or an administrator). GitLab drops the metadata a
// caller below that sends when creating an issue, silently, and keeps
// the rest (confidential included, so an outsider can report a security
// issue confidentially); create_issue does the same.
func CanSetIssueMetadata(u *models.User, p *models.Project, level models.AccessLevel) bool {
	return hasRole(u, p, level, models.Reporter)
}

// CanCreateWorkItem reports whether u may create a work item in p with
// save_work_item: Reporter or above (or an administrator). GitLab's
// create_work_item follows create_issue (Guest); glmcp asks Reporter for
// every work item write, as its widgets set metadata in the same call
// (doc/tools.md, save_work_item).
func CanCreateWorkItem(u *models.User, p *models.Project, level models.AccessLevel) bool {
	return hasRole(u, p, level, models.Reporter)
}

// CanUpdateWorkItem reports whether u may edit work item i of p (title,
// description, state, labels, assignees, milestone, dates, parent,
// confidentiality): u must read i and be a Reporter or above (or an
// administrator). GitLab also lets a Guest author edit the title and
// description of their own work item; glmcp asks Reporter for every edit,
// as it does to create one (CanCreateWorkItem).
func CanUpdateWorkItem(u *models.User, p *models.Project, i *models.Issue, level models.AccessLevel) bool {
	return CanReadIssue(u, p, i, level) && hasRole(u, p, level, models.Reporter)
}

// CanLinkWorkItem reports whether u may add links from work item i of p
// (GitLab's admin_issue_link): u must read i and be a Reporter or above (or
// an administrator), the role glmcp asks for every work item write. Each
// target must be readable by u as well; that is the caller's check.
func CanLinkWorkItem(u *models.User, p *models.Project, i *models.Issue, level models.AccessLevel) bool {
	return CanUpdateWorkItem(u, p, i, level)
}

// CanCreateNote reports whether u may comment in p, GitLab's create_note
// on a project (ProjectPolicy): every member from Guest up (guest_access),
// and on a public or internal project every signed-in user
// (public_user_access), and an administrator: exactly who can read p. The
// noteable must be readable too (a confidential issue, a private project's
// merge request for a Guest): that is the caller's lookup.
func CanCreateNote(u *models.User, p *models.Project, level models.AccessLevel) bool {
	return CanReadProject(u, p, level)
}

// CanCommentOnLocked reports whether u may comment on a noteable whose
// discussion is locked, given u's access level in its project: GitLab's
// IssuablePolicy prevents create_note on a locked discussion for anyone
// who is not a member of the project (any role; an administrator who is
// not a member is refused too).
func CanCommentOnLocked(u *models.User, level models.AccessLevel) bool {
	return active(u) && level.Valid()
}

// CanCreateMergeRequest reports whether u may open merge requests in p:
// Developer or above (or an administrator).
func CanCreateMergeRequest(u *models.User, p *models.Project, level models.AccessLevel) bool {
	return hasRole(u, p, level, models.Developer)
}

func hasRole(u *models.User, p *models.Project, level, min models.AccessLevel) bool {
	if !CanReadProject(u, p, level) {
		return false
	}
	return u.Admin || level >= min
}

// CanReadIssue reports whether u may see issue i of project p: u must be
// able to read p and, when i is confidential, be allowed to read it (see
// CanReadConfidentialIssue).
func CanReadIssue(u *models.User, p *models.Project, i *models.Issue, level models.AccessLevel) bool {
	if i == nil || !CanReadProject(u, p, level) {
		return false
	}
	return !i.Confidential || CanReadConfidentialIssue(u, i, level)
}

// CanReadConfidentialIssue reports whether u may see confidential issue i:
// its author, an assignee, a member with Reporter or above, or an
// administrator. i.Assignees must be loaded. It does not check the
// project; use CanReadIssue for the whole rule.
func CanReadConfidentialIssue(u *models.User, i *models.Issue, level models.AccessLevel) bool {
	if !active(u) || i == nil {
		return false
	}
	if u.Admin || level >= models.Reporter || i.AuthorID == u.ID {
		return true
	}
	for _, a := range i.Assignees {
		if a.ID == u.ID {
			return true
		}
	}
	return false
}

// CanReadInternalNote reports whether u, with access level level in the
// note's project, may see internal notes there: Reporter or above, or an
// administrator.
func CanReadInternalNote(u *models.User, level models.AccessLevel) bool {
	return admin(u) || (active(u) && level >= models.Reporter)
}

// CanReadNote reports whether u may see note n of a readable noteable:
// system and public notes are visible to everyone who sees the noteable,
// internal notes only per CanReadInternalNote.
func CanReadNote(u *models.User, n *models.Note, level models.AccessLevel) bool {
	if n == nil || !active(u) {
		return false
	}
	return !n.Internal || CanReadInternalNote(u, level)
}

// CanUpdateMergeRequest reports whether u may edit merge request mr of p:
// its author while they can still read the code, Developer or above, or
// an administrator.
func CanUpdateMergeRequest(u *models.User, p *models.Project, mr *models.MergeRequest, level models.AccessLevel) bool {
	if mr == nil || !CanReadCode(u, p, level) {
		return false
	}
	return u.Admin || level >= models.Developer || (mr.AuthorID == u.ID && level.Valid())
}

// CanApproveMergeRequest reports whether u may approve (or unapprove)
// merge requests of p: Developer or above, or an administrator (GitLab
// CE's rule; authors may approve their own).
func CanApproveMergeRequest(u *models.User, p *models.Project, level models.AccessLevel) bool {
	return hasRole(u, p, level, models.Developer)
}

// CanResolveDiscussion reports whether u may resolve discussions of merge
// request mr of p: Developer or above, the merge request's author, or an
// administrator.
func CanResolveDiscussion(u *models.User, p *models.Project, mr *models.MergeRequest, level models.AccessLevel) bool {
	return CanUpdateMergeRequest(u, p, mr, level)
}

// CanUpdatePipeline reports whether u may run, retry, cancel or rename
// pipelines of p: Developer or above, or an administrator.
func CanUpdatePipeline(u *models.User, p *models.Project, level models.AccessLevel) bool {
	return hasRole(u, p, level, models.Developer)
}

// CanDeletePipeline reports whether u may delete pipelines of p: Owner,
// or an administrator (GitLab's destroy_pipeline).
func CanDeletePipeline(u *models.User, p *models.Project, level models.AccessLevel) bool {
	return hasRole(u, p, level, models.Owner)
}

// CanReadVulnerability reports whether u may see p's vulnerabilities:
// Developer or above, or an administrator (GitLab's security dashboard).
func CanReadVulnerability(u *models.User, p *models.Project, level models.AccessLevel) bool {
	return hasRole(u, p, level, models.Developer)
}

// CanAdminVulnerability reports whether u may change p's vulnerabilities
// (dismiss, confirm, revert, severity, create an issue): Maintainer or
// above, or an administrator (GitLab 17.0 took it from Developers).
func CanAdminVulnerability(u *models.User, p *models.Project, level models.AccessLevel) bool {
	return hasRole(u, p, level, models.Maintainer)
}

// CanApplyScanProfiles reports whether u may attach security scan profiles
// to project p: Maintainer or above, or an administrator (GitLab's
// apply_security_scan_profiles).
func CanApplyScanProfiles(u *models.User, p *models.Project, level models.AccessLevel) bool {
	return hasRole(u, p, level, models.Maintainer)
}

// CanApplyScanProfilesInGroup reports whether u may attach security scan
// profiles to group g and its projects, where u's effective role in g is
// level: Maintainer or above, or an administrator.
func CanApplyScanProfilesInGroup(u *models.User, level models.AccessLevel) bool {
	return u != nil && (u.Admin || level >= models.Maintainer)
}
