package access_test

import (
	"fmt"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
)

var (
	alice        = &models.User{ID: 1, Username: "alice", State: models.UserActive}
	root         = &models.User{ID: 2, Username: "root", State: models.UserActive, Admin: true}
	blocked      = &models.User{ID: 3, Username: "blocked", State: models.UserBlocked}
	gone         = &models.User{ID: 4, Username: "gone", State: models.UserDeactivated}
	blockedAdmin = &models.User{ID: 5, Username: "badmin", State: models.UserBlocked, Admin: true}
)

var levels = []models.AccessLevel{models.NoAccess, models.Guest, models.Reporter, models.Developer, models.Maintainer, models.Owner}

func project(v models.Visibility) *models.Project {
	return &models.Project{ID: 10, PathWithNamespace: "g/p", Visibility: v}
}

// TestProjectMatrix walks every user kind × visibility × level.
func TestProjectMatrix(t *testing.T) {
	type want struct{ read, code, issue, note, meta, work, mr bool }
	expect := func(u *models.User, v models.Visibility, l models.AccessLevel) want {
		switch {
		case u.State != models.UserActive:
			return want{}
		case u.Admin:
			return want{true, true, true, true, true, true, true}
		}
		read := l != models.NoAccess || v != models.VisibilityPrivate
		return want{
			read:  read,
			code:  read && (v != models.VisibilityPrivate || l >= models.Reporter),
			issue: read, // GitLab's create_issue: Guest and up, any signed-in user on a public or internal project
			note:  read, // GitLab's create_note, the same
			meta:  read && l >= models.Reporter,
			work:  read && l >= models.Reporter,
			mr:    read && l >= models.Developer,
		}
	}
	// Spelled-out anchors so the expectation function cannot drift unnoticed.
	anchors := []struct {
		u    *models.User
		v    models.Visibility
		l    models.AccessLevel
		want want
	}{
		{alice, models.VisibilityPrivate, models.NoAccess, want{}},
		{alice, models.VisibilityInternal, models.NoAccess, want{read: true, code: true, issue: true, note: true}},
		{alice, models.VisibilityPublic, models.NoAccess, want{read: true, code: true, issue: true, note: true}},
		{alice, models.VisibilityPrivate, models.Guest, want{read: true, issue: true, note: true}},
		{alice, models.VisibilityPrivate, models.Reporter, want{true, true, true, true, true, true, false}},
		{alice, models.VisibilityPublic, models.Developer, want{true, true, true, true, true, true, true}},
		{alice, models.VisibilityPublic, models.Guest, want{read: true, code: true, issue: true, note: true}},
		{root, models.VisibilityPrivate, models.NoAccess, want{true, true, true, true, true, true, true}},
		{blocked, models.VisibilityPublic, models.Owner, want{}},
		{gone, models.VisibilityPublic, models.Owner, want{}},
		{blockedAdmin, models.VisibilityPrivate, models.NoAccess, want{}},
	}
	for _, a := range anchors {
		if got := expect(a.u, a.v, a.l); got != a.want {
			t.Fatalf("expectation for %s/%s/%s = %+v, anchor says %+v", a.u.Username, a.v, a.l, got, a.want)
		}
	}
	for _, u := range []*models.User{alice, root, blocked, gone, blockedAdmin} {
		for _, v := range []models.Visibility{models.VisibilityPrivate, models.VisibilityInternal, models.VisibilityPublic} {
			for _, l := range levels {
				t.Run(fmt.Sprintf("%s/%s/%s", u.Username, v, l), func(t *testing.T) {
					p := project(v)
					w := expect(u, v, l)
					got := want{
						read:  access.CanReadProject(u, p, l),
						code:  access.CanReadCode(u, p, l),
						issue: access.CanCreateIssue(u, p, l),
						note:  access.CanCreateNote(u, p, l),
						meta:  access.CanSetIssueMetadata(u, p, l),
						work:  access.CanCreateWorkItem(u, p, l),
						mr:    access.CanCreateMergeRequest(u, p, l),
					}
					if got != w {
						t.Errorf("got %+v, want %+v", got, w)
					}
				})
			}
		}
	}
}

// TestCommentOnLocked: GitLab's IssuablePolicy lets only project members
// (any role) comment on a locked discussion.
func TestCommentOnLocked(t *testing.T) {
	for _, c := range []struct {
		u     *models.User
		level models.AccessLevel
		want  bool
	}{
		{alice, models.NoAccess, false},
		{alice, models.Guest, true},
		{alice, models.Reporter, true},
		{alice, models.Owner, true},
		{root, models.NoAccess, false},
		{root, models.Guest, true},
		{blocked, models.Owner, false},
		{nil, models.Owner, false},
	} {
		name := "nil"
		if c.u != nil {
			name = c.u.Username
		}
		if got := access.CanCommentOnLocked(c.u, c.level); got != c.want {
			t.Errorf("CanCommentOnLocked(%s, %s) = %v, want %v", name, c.level, got, c.want)
		}
	}
}

func TestNilArguments(t *testing.T) {
	p := project(models.VisibilityPublic)
	if access.CanReadProject(nil, p, models.Owner) {
		t.Error("nil user reads a project")
	}
	if access.CanReadProject(alice, nil, models.Owner) {
		t.Error("nil project is readable")
	}
	if access.CanReadIssue(alice, p, nil, models.Owner) {
		t.Error("nil issue is readable")
	}
	if access.CanReadConfidentialIssue(nil, &models.Issue{Confidential: true}, models.Owner) {
		t.Error("nil user reads a confidential issue")
	}
	if access.CanReadNote(alice, nil, models.Owner) {
		t.Error("nil note is readable")
	}
}

func TestConfidentialIssue(t *testing.T) {
	bob := &models.User{ID: 7, Username: "bob", State: models.UserActive}
	issue := func(author int64, assignees ...int64) *models.Issue {
		i := &models.Issue{ID: 100, AuthorID: author, Confidential: true}
		for _, a := range assignees {
			i.Assignees = append(i.Assignees, models.User{ID: a})
		}
		return i
	}
	cases := []struct {
		name  string
		u     *models.User
		i     *models.Issue
		level models.AccessLevel
		want  bool
	}{
		{"author non-member", alice, issue(alice.ID), models.NoAccess, true},
		{"assignee non-member", alice, issue(bob.ID, alice.ID), models.NoAccess, true},
		{"guest not involved", alice, issue(bob.ID), models.Guest, false},
		{"non-member not involved", alice, issue(bob.ID), models.NoAccess, false},
		{"reporter", alice, issue(bob.ID), models.Reporter, true},
		{"developer", alice, issue(bob.ID), models.Developer, true},
		{"owner", alice, issue(bob.ID), models.Owner, true},
		{"admin non-member", root, issue(bob.ID), models.NoAccess, true},
		{"blocked author", blocked, issue(blocked.ID), models.Owner, false},
		{"other assignee only", alice, issue(bob.ID, bob.ID), models.NoAccess, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := access.CanReadConfidentialIssue(c.u, c.i, c.level); got != c.want {
				t.Errorf("CanReadConfidentialIssue = %v, want %v", got, c.want)
			}
		})
	}
}

func TestReadIssue(t *testing.T) {
	open := &models.Issue{ID: 1, AuthorID: 99}
	secret := &models.Issue{ID: 2, AuthorID: 99, Confidential: true}
	mine := &models.Issue{ID: 3, AuthorID: alice.ID, Confidential: true}
	cases := []struct {
		name  string
		u     *models.User
		v     models.Visibility
		i     *models.Issue
		level models.AccessLevel
		want  bool
	}{
		{"public issue, public project, non-member", alice, models.VisibilityPublic, open, models.NoAccess, true},
		{"confidential, public project, non-member", alice, models.VisibilityPublic, secret, models.NoAccess, false},
		{"confidential, public project, guest", alice, models.VisibilityPublic, secret, models.Guest, false},
		{"confidential, public project, reporter", alice, models.VisibilityPublic, secret, models.Reporter, true},
		{"own confidential, public project", alice, models.VisibilityPublic, mine, models.NoAccess, true},
		// Being the author does not open a private project.
		{"own confidential, private project, non-member", alice, models.VisibilityPrivate, mine, models.NoAccess, false},
		{"public issue, private project, non-member", alice, models.VisibilityPrivate, open, models.NoAccess, false},
		{"public issue, internal project, non-member", alice, models.VisibilityInternal, open, models.NoAccess, true},
		{"confidential, private project, admin", root, models.VisibilityPrivate, secret, models.NoAccess, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := access.CanReadIssue(c.u, project(c.v), c.i, c.level); got != c.want {
				t.Errorf("CanReadIssue = %v, want %v", got, c.want)
			}
		})
	}
}

func TestInternalNotes(t *testing.T) {
	internal := &models.Note{ID: 1, Internal: true}
	public := &models.Note{ID: 2}
	system := &models.Note{ID: 3, System: true}
	for _, l := range levels {
		wantInternal := l >= models.Reporter
		if got := access.CanReadInternalNote(alice, l); got != wantInternal {
			t.Errorf("CanReadInternalNote(alice, %s) = %v, want %v", l, got, wantInternal)
		}
		if got := access.CanReadNote(alice, internal, l); got != wantInternal {
			t.Errorf("CanReadNote(alice, internal, %s) = %v, want %v", l, got, wantInternal)
		}
		if !access.CanReadNote(alice, public, l) || !access.CanReadNote(alice, system, l) {
			t.Errorf("public/system note hidden from alice at %s", l)
		}
		if !access.CanReadInternalNote(root, l) {
			t.Errorf("admin cannot read internal notes at %s", l)
		}
		if access.CanReadInternalNote(blocked, l) || access.CanReadNote(blocked, public, l) {
			t.Errorf("blocked user reads notes at %s", l)
		}
	}
}

// TestReviewAndCIMatrix walks the merge request review, pipeline and
// vulnerability rules over every user kind × visibility × level.
func TestReviewAndCIMatrix(t *testing.T) {
	other := &models.User{ID: 9, Username: "bob", State: models.UserActive}
	for _, u := range []*models.User{alice, root, blocked, gone, blockedAdmin, other} {
		for _, v := range []models.Visibility{models.VisibilityPrivate, models.VisibilityInternal, models.VisibilityPublic} {
			for _, l := range levels {
				p := project(v)
				mr := &models.MergeRequest{ID: 7, AuthorID: alice.ID}
				ok := u.State == models.UserActive
				read := ok && (u.Admin || l != models.NoAccess || v != models.VisibilityPrivate)
				code := read && (u.Admin || v != models.VisibilityPrivate || l >= models.Reporter)
				role := func(min models.AccessLevel) bool { return read && (u.Admin || l >= min) }
				name := fmt.Sprintf("%s/%s/%v", u.Username, v, l)
				checks := []struct {
					what     string
					got, exp bool
				}{
					{"update MR", access.CanUpdateMergeRequest(u, p, mr, l), code && (u.Admin || l >= models.Developer || (u.ID == alice.ID && l != models.NoAccess))},
					{"approve", access.CanApproveMergeRequest(u, p, l), role(models.Developer)},
					{"resolve", access.CanResolveDiscussion(u, p, mr, l), code && (u.Admin || l >= models.Developer || (u.ID == alice.ID && l != models.NoAccess))},
					{"update pipeline", access.CanUpdatePipeline(u, p, l), role(models.Developer)},
					{"delete pipeline", access.CanDeletePipeline(u, p, l), role(models.Owner)},
					{"read vulnerability", access.CanReadVulnerability(u, p, l), role(models.Developer)},
					{"admin vulnerability", access.CanAdminVulnerability(u, p, l), role(models.Maintainer)},
				}
				for _, c := range checks {
					if c.got != c.exp {
						t.Errorf("%s: %s = %v, want %v", name, c.what, c.got, c.exp)
					}
				}
			}
		}
	}
	if access.CanUpdateMergeRequest(alice, project(models.VisibilityPublic), nil, models.Owner) {
		t.Error("update of a nil merge request allowed")
	}
}

// TestWorkItemWrites: editing and linking a work item need the Reporter
// role and a readable item; a confidential item only its readers may edit.
func TestWorkItemWrites(t *testing.T) {
	for _, u := range []*models.User{alice, root, blocked, gone, blockedAdmin} {
		for _, v := range []models.Visibility{models.VisibilityPrivate, models.VisibilityInternal, models.VisibilityPublic} {
			for _, l := range levels {
				for _, conf := range []bool{false, true} {
					p := project(v)
					i := &models.Issue{ID: 3, AuthorID: 99, Confidential: conf}
					ok := u.State == models.UserActive
					read := ok && (u.Admin || l != models.NoAccess || v != models.VisibilityPrivate)
					want := read && (u.Admin || l >= models.Reporter)
					name := fmt.Sprintf("%s/%s/%v/confidential=%v", u.Username, v, l, conf)
					if got := access.CanUpdateWorkItem(u, p, i, l); got != want {
						t.Errorf("%s: update = %v, want %v", name, got, want)
					}
					if got := access.CanLinkWorkItem(u, p, i, l); got != want {
						t.Errorf("%s: link = %v, want %v", name, got, want)
					}
				}
			}
		}
	}
	// A Guest author of a confidential item reads it but may not edit it.
	mine := &models.Issue{ID: 4, AuthorID: alice.ID, Confidential: true}
	if !access.CanReadIssue(alice, project(models.VisibilityPrivate), mine, models.Guest) ||
		access.CanUpdateWorkItem(alice, project(models.VisibilityPrivate), mine, models.Guest) {
		t.Error("a Guest author: want read, not edit")
	}
	if access.CanUpdateWorkItem(alice, project(models.VisibilityPublic), nil, models.Owner) {
		t.Error("update of a nil work item allowed")
	}
}

// TestAbilities: each ability a Definition may declare is its Can… rule,
// and an ability the kind does not know is refused.
func TestAbilities(t *testing.T) {
	public := &models.Project{ID: 1, Visibility: models.VisibilityPublic}
	private := &models.Project{ID: 2, Visibility: models.VisibilityPrivate}
	issue := &models.Issue{ID: 1, ProjectID: 1}
	mr := &models.MergeRequest{ID: 1, ProjectID: 2}
	onItem := func(a access.Ability, level models.AccessLevel) bool {
		return access.CanOnWorkItem(a, alice, public, issue, level)
	}
	onMR := func(a access.Ability, m *models.MergeRequest, level models.AccessLevel) bool {
		return access.CanOnMergeRequest(a, alice, private, m, level)
	}
	onProject := func(a access.Ability, level models.AccessLevel) bool {
		return access.CanOnProject(a, alice, private, level)
	}
	onVuln := func(a access.Ability, level models.AccessLevel) bool {
		return access.CanOnVulnerability(a, alice, public, level)
	}
	for _, tc := range []struct {
		name      string
		got, want bool
	}{
		{"read work item, no role, public", onItem(access.ReadWorkItem, models.NoAccess), true},
		{"link work item, Guest", onItem(access.LinkWorkItem, models.Guest), false},
		{"link work item, Reporter", onItem(access.LinkWorkItem, models.Reporter), true},
		{"work item, unknown ability", onItem(access.ReadMergeRequest, models.Owner), false},
		{"read merge request, Guest, private", onMR(access.ReadMergeRequest, mr, models.Guest), false},
		{"read merge request, Reporter, private", onMR(access.ReadMergeRequest, mr, models.Reporter), true},
		{"read no merge request", onMR(access.ReadMergeRequest, nil, models.Reporter), false},
		{"merge request, unknown ability", onMR(access.ReadWorkItem, mr, models.Owner), false},
		{"read project, no role, private", onProject(access.ReadProject, models.NoAccess), false},
		{"read project, Guest, private", onProject(access.ReadProject, models.Guest), true},
		{"read code, Guest, private", onProject(access.ReadCode, models.Guest), false},
		{"read code, Reporter, private", onProject(access.ReadCode, models.Reporter), true},
		{"read a project's vulnerabilities, Reporter", onProject(access.ReadVulnerability, models.Reporter), false},
		{"read a project's vulnerabilities, Developer", onProject(access.ReadVulnerability, models.Developer), true},
		{"project, unknown ability", onProject(access.LinkWorkItem, models.Owner), false},
		{"read vulnerability, Reporter", onVuln(access.ReadVulnerability, models.Reporter), false},
		{"read vulnerability, Developer", onVuln(access.ReadVulnerability, models.Developer), true},
		{"change vulnerability, Developer", onVuln(access.AdminVulnerability, models.Developer), false},
		{"change vulnerability, Maintainer", onVuln(access.AdminVulnerability, models.Maintainer), true},
		{"vulnerability, unknown ability", onVuln(access.LinkWorkItem, models.Owner), false},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}
