package store_test

import (
	"context"
	"errors"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

func mustCreateGroup(t *testing.T, s *store.Store, path string, parent *models.Group, vis models.Visibility) *models.Group {
	t.Helper()
	g := &models.Group{Name: path, Path: path, Visibility: vis}
	if parent != nil {
		g.ParentID = &parent.ID
	}
	if err := s.Groups.CreateGroup(context.Background(), g); err != nil {
		t.Fatalf("CreateGroup(%q): %v", path, err)
	}
	return g
}

func groupIDs(gs []models.Group) []int64 {
	out := []int64{}
	for _, g := range gs {
		out = append(out, g.ID)
	}
	return out
}

// TestStore_inheritedMembership: a group membership is a role in every
// project below the group; the highest role wins; a "_" in a path is not a
// wildcard.
func TestStore_inheritedMembership(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		alice := mustCreateUser(t, s, "alice")
		bob := mustCreateUser(t, s, "bob")
		eve := mustCreateUser(t, s, "eve")
		top := mustCreateGroup(t, s, "a_b", nil, models.VisibilityPrivate)
		sub := mustCreateGroup(t, s, "sub", top, models.VisibilityPrivate)
		lookalike := mustCreateGroup(t, s, "axb", nil, models.VisibilityPrivate)
		p := &models.Project{Name: "p", Path: "p", NamespaceID: sub.ID, Visibility: models.VisibilityPrivate}
		wantErr(t, "project", s.Projects.CreateProject(ctx, p), nil)
		q := &models.Project{Name: "q", Path: "q", NamespaceID: lookalike.ID, Visibility: models.VisibilityPrivate}
		wantErr(t, "project", s.Projects.CreateProject(ctx, q), nil)
		wantErr(t, "group member", s.Groups.AddGroupMember(ctx, &models.GroupMember{NamespaceID: top.ID, UserID: alice.ID, AccessLevel: models.Reporter}), nil)
		wantErr(t, "direct member", s.Groups.AddProjectMember(ctx, &models.ProjectMember{ProjectID: p.ID, UserID: alice.ID, AccessLevel: models.Guest}), nil)
		wantErr(t, "direct member", s.Groups.AddProjectMember(ctx, &models.ProjectMember{ProjectID: p.ID, UserID: bob.ID, AccessLevel: models.Maintainer}), nil)
		wantErr(t, "lookalike member", s.Groups.AddGroupMember(ctx, &models.GroupMember{NamespaceID: lookalike.ID, UserID: eve.ID, AccessLevel: models.Owner}), nil)

		for _, c := range []struct {
			user *models.User
			proj *models.Project
			want models.AccessLevel
		}{{alice, p, models.Reporter}, {bob, p, models.Maintainer}, {eve, p, models.NoAccess}, {alice, q, models.NoAccess}, {eve, q, models.Owner}} {
			_, level, err := s.Projects.FindProjectWithRoleByID(ctx, c.proj.ID, c.user.ID)
			if err != nil || level != c.want {
				t.Errorf("%s in %s: %v (%v), want %v", c.user.Username, c.proj.PathWithNamespace, level, err, c.want)
			}
			level, err = s.Groups.ProjectAccessLevel(ctx, c.proj.ID, c.user.ID)
			if err != nil || level != c.want {
				t.Errorf("ProjectAccessLevel(%s in %s) = %v (%v), want %v", c.user.Username, c.proj.PathWithNamespace, level, err, c.want)
			}
		}
		direct, err := s.Groups.ListProjectMembers(ctx, p.ID, false, "", 0, 10)
		if err != nil || len(direct) != 2 || direct[0].AccessLevel != models.Guest {
			t.Errorf("direct members = %+v, %v", direct, err)
		}
		all, err := s.Groups.ListProjectMembers(ctx, p.ID, true, "", 0, 10)
		if err != nil || len(all) != 2 || all[0].User.ID != alice.ID || all[0].AccessLevel != models.Reporter {
			t.Errorf("inherited members = %+v, %v", all, err)
		}
		if page, _ := s.Groups.ListProjectMembers(ctx, p.ID, true, "BO", 0, 10); len(page) != 1 || page[0].User.ID != bob.ID {
			t.Errorf("query BO = %+v", page)
		}
		if ok, _ := s.Groups.HasMembershipInGroup(ctx, "a_b/sub", alice.ID); !ok {
			t.Error("alice is not a member of a_b/sub")
		}
		if ok, _ := s.Groups.HasMembershipInGroup(ctx, "a_b", eve.ID); ok {
			t.Error("eve (member of axb) counts as a member of a_b")
		}

		// Groups: alice's top-level groups, then sub's listing for eve.
		if gs, _ := s.Groups.ListGroups(ctx, models.GroupQuery{Viewer: alice, Limit: 10}); len(gs) != 1 || gs[0].ID != top.ID {
			t.Errorf("alice's top-level groups = %v", groupIDs(gs))
		}
		if gs, _ := s.Groups.ListGroups(ctx, models.GroupQuery{Viewer: alice, IncludeSubgroups: true, Limit: 10}); len(gs) != 2 {
			t.Errorf("alice's groups at any depth = %v", groupIDs(gs))
		}
		if gs, _ := s.Groups.ListGroups(ctx, models.GroupQuery{Viewer: eve, ParentID: top.ID, Limit: 10}); len(gs) != 0 {
			t.Errorf("eve sees private subgroups %v", groupIDs(gs))
		}
		if gs, _ := s.Groups.ListGroups(ctx, models.GroupQuery{Viewer: bob, ParentID: top.ID, Limit: 10}); len(gs) != 1 || gs[0].ID != sub.ID {
			t.Errorf("bob (member of a project in sub) sees %v", groupIDs(gs))
		}

		// Projects: membership listing, group listing, archived.
		if ps, _ := s.Projects.ListProjects(ctx, models.ProjectQuery{Viewer: alice, MinAccess: models.Developer, Limit: 10}); len(ps) != 0 {
			t.Errorf("alice's projects at Developer+ = %d", len(ps))
		}
		if ps, _ := s.Projects.ListProjects(ctx, models.ProjectQuery{Viewer: alice, Limit: 10}); len(ps) != 1 {
			t.Errorf("alice's projects = %d", len(ps))
		}
		if ps, _ := s.Projects.ListProjects(ctx, models.ProjectQuery{Viewer: alice, GroupPath: "a_b", Limit: 10}); len(ps) != 1 {
			t.Errorf("a_b with subgroups = %d", len(ps))
		}
		if ps, _ := s.Projects.ListProjects(ctx, models.ProjectQuery{Viewer: alice, GroupPath: "a_b", MinAccess: models.Guest, Limit: 10}); len(ps) != 0 {
			t.Errorf("a_b own projects only = %d", len(ps))
		}
		s.DB().Exec("UPDATE projects SET archived = true WHERE id = ?", p.ID)
		for arch, want := range map[string]int{"": 0, "exclude": 0, "include": 1, "only": 1} {
			if ps, _ := s.Projects.ListProjects(ctx, models.ProjectQuery{Viewer: bob, Archived: arch, Limit: 10}); len(ps) != want {
				t.Errorf("archived=%q: %d, want %d", arch, len(ps), want)
			}
		}
	})
}

// TestStore_groupAccessLevel: a role in a group is the highest of the
// memberships of the group and the groups above it; a membership below,
// in a lookalike group or of a project does not count.
func TestStore_groupAccessLevel(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		alice := mustCreateUser(t, s, "alice")
		bob := mustCreateUser(t, s, "bob")
		top := mustCreateGroup(t, s, "a_b", nil, models.VisibilityPrivate)
		sub := mustCreateGroup(t, s, "sub", top, models.VisibilityPrivate)
		lookalike := mustCreateGroup(t, s, "axb", nil, models.VisibilityPrivate)
		p := &models.Project{Name: "p", Path: "p", NamespaceID: top.ID, Visibility: models.VisibilityPrivate}
		wantErr(t, "project", s.Projects.CreateProject(ctx, p), nil)
		wantErr(t, "member", s.Groups.AddGroupMember(ctx, &models.GroupMember{NamespaceID: top.ID, UserID: alice.ID, AccessLevel: models.Reporter}), nil)
		wantErr(t, "member", s.Groups.AddGroupMember(ctx, &models.GroupMember{NamespaceID: sub.ID, UserID: alice.ID, AccessLevel: models.Developer}), nil)
		wantErr(t, "member", s.Groups.AddGroupMember(ctx, &models.GroupMember{NamespaceID: sub.ID, UserID: bob.ID, AccessLevel: models.Owner}), nil)
		wantErr(t, "member", s.Groups.AddGroupMember(ctx, &models.GroupMember{NamespaceID: lookalike.ID, UserID: bob.ID, AccessLevel: models.Owner}), nil)
		wantErr(t, "member", s.Groups.AddProjectMember(ctx, &models.ProjectMember{ProjectID: p.ID, UserID: bob.ID, AccessLevel: models.Maintainer}), nil)
		for _, c := range []struct {
			user  *models.User
			group *models.Group
			want  models.AccessLevel
		}{{alice, top, models.Reporter}, {alice, sub, models.Developer}, {bob, top, models.NoAccess}, {bob, sub, models.Owner}, {alice, lookalike, models.NoAccess}} {
			level, err := s.Groups.GroupAccessLevel(ctx, c.group.ID, c.user.ID)
			if err != nil || level != c.want {
				t.Errorf("%s in %s: %v (%v), want %v", c.user.Username, c.group.FullPath, level, err, c.want)
			}
		}
		if _, err := s.Groups.GroupAccessLevel(ctx, 999999, alice.ID); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("missing group: %v, want ErrNotFound", err)
		}
	})
}
