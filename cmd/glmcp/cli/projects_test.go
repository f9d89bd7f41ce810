package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
)

// Ensure projects create makes the project (and its group) and add-member
// gives a user a role on it.
func TestProjects(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		b.createUser(t, "erin")
		out := b.mustRun(t, "projects", "create", "--path", "acme/rockets", "--visibility", "internal", "--description", "Rocket parts")
		id, err := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
		if err != nil || strings.Count(out, "\n") != 1 {
			t.Fatalf("stdout = %q, want the project id on one line", out)
		}
		s := b.store(t)
		ctx := context.Background()
		p, err := s.Projects.FindProjectByPath(ctx, "acme/rockets")
		if err != nil {
			t.Fatalf("project not stored: %v", err)
		}
		if p.ID != id || p.Name != "rockets" || p.Visibility != models.VisibilityInternal || p.Description != "Rocket parts" || p.DefaultBranch != "main" {
			t.Errorf("stored project = %+v", p)
		}
		if _, err := s.Groups.FindGroupByFullPath(ctx, "acme"); err != nil {
			t.Errorf("group acme not created: %v", err)
		}
		// Its bare repository is at GitLab's hashed path, readable by git.
		gitDir := filepath.Join(b.repositories(), filepath.FromSlash(repository.HashedPath(id)))
		if out, err := exec.Command("git", "--git-dir", gitDir, "symbolic-ref", "HEAD").CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "refs/heads/main" {
			t.Errorf("git symbolic-ref HEAD in %s = %q, %v", gitDir, out, err)
		}
		if out, err := exec.Command("git", "--git-dir", gitDir, "fsck").CombinedOutput(); err != nil {
			t.Errorf("git fsck: %v\n%s", err, out)
		}

		// A second project in the same group reuses the group.
		groups := count(t, s, &models.Group{})
		b.mustRun(t, "projects", "create", "--path", "/acme/launchpad/", "--name", "Launch pad")
		if n := count(t, s, &models.Group{}); n != groups {
			t.Errorf("groups: %d before, %d after adding a project to an existing group", groups, n)
		}
		if p, err := s.Projects.FindProjectByPath(ctx, "acme/launchpad"); err != nil || p.Name != "Launch pad" || p.Visibility != models.VisibilityPrivate {
			t.Errorf("acme/launchpad = %+v, %v; want name \"Launch pad\", private by default", p, err)
		}

		if out := b.mustRun(t, "projects", "add-member", "--project", "acme/rockets", "--user", "erin", "--access-level", "developer"); out != "" {
			t.Errorf("add-member printed %q, want nothing", out)
		}
		m, err := s.Groups.FindProjectMember(ctx, id, findUser(t, s, "erin").ID)
		if err != nil {
			t.Fatalf("membership not stored: %v", err)
		}
		if m.AccessLevel != models.Developer {
			t.Errorf("access level = %v, want developer", m.AccessLevel)
		}
	})
}

// Ensure invalid project commands are refused with a clear message and
// change nothing.
func TestProjects_invalid(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		b.createUser(t, "erin")
		b.mustRun(t, "projects", "create", "--path", "acme/rockets")
		b.mustRun(t, "projects", "add-member", "--project", "acme/rockets", "--user", "erin", "--access-level", "guest")
		s := b.store(t)
		tests := []struct {
			name string
			args []string
			want []string
		}{
			{"bad visibility", []string{"create", "--path", "acme/x", "--visibility", "secret"}, []string{"--visibility", `"secret"`}},
			{"path without group", []string{"create", "--path", "rockets"}, []string{`--path "rockets"`, "GROUP/NAME"}},
			{"nested path", []string{"create", "--path", "a/b/c"}, []string{"GROUP/NAME"}},
			{"bad path in a new group", []string{"create", "--path", "neworg/ lead"}, []string{`--path "neworg/ lead"`}},
			{"wider than its group", []string{"create", "--path", "acme/open", "--visibility", "public"}, []string{"wider"}},
			{"duplicate project", []string{"create", "--path", "acme/rockets"}, []string{"acme/rockets already exists"}},
			{"duplicate name", []string{"create", "--path", "acme/rockets-2", "--name", "rockets"}, []string{`--name "rockets"`, "already exists in acme"}},
			{"missing path", []string{"create"}, []string{`"path"`}},
			{"unknown project", []string{"add-member", "--project", "acme/nope", "--user", "erin", "--access-level", "developer"}, []string{`no project "acme/nope"`}},
			{"unknown user", []string{"add-member", "--project", "acme/rockets", "--user", "nobody", "--access-level", "developer"}, []string{`no user "nobody"`}},
			{"bad access level", []string{"add-member", "--project", "acme/rockets", "--user", "erin", "--access-level", "boss"}, []string{"--access-level", `"boss"`}},
			{"already a member", []string{"add-member", "--project", "acme/rockets", "--user", "erin", "--access-level", "developer"}, []string{"erin is already a member of acme/rockets"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				projects, groups, members := count(t, s, &models.Project{}), count(t, s, &models.Group{}), count(t, s, &models.ProjectMember{})
				b.wantErr(t, tt.want, append([]string{"projects"}, tt.args...)...)
				if p, g, m := count(t, s, &models.Project{}), count(t, s, &models.Group{}), count(t, s, &models.ProjectMember{}); p != projects || g != groups || m != members {
					t.Errorf("rows changed: projects %d→%d, groups %d→%d, members %d→%d", projects, p, groups, g, members, m)
				}
			})
		}
		// The refused add-member kept the original role.
		m, err := s.Groups.FindProjectMember(context.Background(), mustProject(t, b, "acme/rockets").ID, findUser(t, s, "erin").ID)
		if err != nil || m.AccessLevel != models.Guest {
			t.Errorf("membership = %+v, %v; want guest unchanged", m, err)
		}
	})
}

func mustProject(t *testing.T, b *backend, path string) *models.Project {
	t.Helper()
	p, err := b.store(t).Projects.FindProjectByPath(context.Background(), path)
	if err != nil {
		t.Fatalf("find project %s: %v", path, err)
	}
	return p
}

// Ensure a repositories path that does not exist or is not a directory
// stops every command with a message naming the setting.
func TestRepositoriesPath_checked(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		file := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(file, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		for path, want := range map[string]string{
			filepath.Join(t.TempDir(), "missing"): "does not exist",
			file:                                  "is not a directory",
		} {
			_, _, err := b.runEnv(t, map[string]string{"GLMCP_REPOSITORIES_PATH": path}, "migrate")
			if err == nil || !strings.Contains(err.Error(), "GLMCP_REPOSITORIES_PATH") || !strings.Contains(err.Error(), want) {
				t.Errorf("migrate with repositories path %s: %v; want %q", path, err, want)
			}
		}
	})
}
