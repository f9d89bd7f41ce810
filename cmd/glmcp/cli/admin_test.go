package cli

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/app"
	"gitlab.com/glmcp/glmcp/migrations"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/auth"
	"gitlab.com/glmcp/glmcp/services/repository"
)

// Ensure migrate brings the store to the newest embedded migration, says
// which, and is a no-op the second time.
func TestMigrate(t *testing.T) {
	eachEmptyBackend(t, func(t *testing.T, b *backend) {
		dialect := migrations.DialectSQLite
		if b.dsn != "" {
			dialect = migrations.DialectPostgres
		}
		latest, err := migrations.Latest(dialect)
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("schema version %d\n", latest)
		for i := range 2 {
			if out := b.mustRun(t, "migrate"); out != want {
				t.Errorf("migrate #%d printed %q, want %q", i+1, out, want)
			}
		}
	})
}

// Ensure tools list shows the catalog (synced from the code), and enable,
// disable and describe change a tool.
func TestTools(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		out := b.mustRun(t, "tools", "list")
		rows := lines(out)
		if len(rows) < 2 || strings.Join(strings.Fields(rows[0]), " ") != "NAME TOOLSET EDITION ENABLED ALIASES" {
			t.Fatalf("tools list = %q, want a header and rows", out)
		}
		row := toolRow(t, out, "get_mcp_server_version")
		if row[1] != "meta" || row[2] != "ce" || row[3] != "true" {
			t.Errorf("get_mcp_server_version row = %v, want toolset meta, edition ce, enabled", row)
		}

		b.mustRun(t, "tools", "disable", "get_mcp_server_version")
		if row := toolRow(t, b.mustRun(t, "tools", "list"), "get_mcp_server_version"); row[3] != "false" {
			t.Errorf("after disable: %v, want enabled=false", row)
		}
		b.mustRun(t, "tools", "enable", "get_mcp_server_version")
		if row := toolRow(t, b.mustRun(t, "tools", "list"), "get_mcp_server_version"); row[3] != "true" {
			t.Errorf("after enable: %v, want enabled=true", row)
		}

		b.mustRun(t, "tools", "describe", "get_mcp_server_version", "--description", "Which glmcp is this?")
		tool, err := b.store(t).Tools.FindToolByName(context.Background(), "get_mcp_server_version")
		if err != nil || tool.Description != "Which glmcp is this?" {
			t.Errorf("description = %q, %v; want the new one", tool.Description, err)
		}

		b.wantErr(t, []string{`no tool "no_such_tool"`, "tools list"}, "tools", "disable", "no_such_tool")
		b.wantErr(t, []string{"--description: must not be empty"}, "tools", "describe", "get_mcp_server_version", "--description", "  ")
		b.wantErr(t, []string{"accepts 1 arg"}, "tools", "enable")
	})
}

// toolRow returns the fields of the named tool's row in tools list output.
func toolRow(t *testing.T, out, name string) []string {
	t.Helper()
	for _, l := range lines(out) {
		if f := strings.Fields(l); len(f) >= 4 && f[0] == name {
			return f
		}
	}
	t.Fatalf("tools list has no %s row:\n%s", name, out)
	return nil
}

// Ensure seed --demo prints one working token per demo user and can run
// again without duplicating the demo world.
func TestSeedDemo(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		b.wantErr(t, []string{"pass --demo"}, "seed")

		first := seedTokens(t, b.mustRun(t, "seed", "--demo"))
		s := b.store(t)
		users, projects, issues := count(t, s, &models.User{}), count(t, s, &models.Project{}), count(t, s, &models.Issue{})
		// Each demo repository holds the demo's history: commits by demo
		// users, a branch per open merge request, tags.
		mcp := mustProject(t, b, "gitlab-org/gitlab-mcp")
		gitDir := filepath.Join(b.repositories(), filepath.FromSlash(repository.HashedPath(mcp.ID)))
		refs := git(t, "", "--git-dir", gitDir, "for-each-ref", "--format=%(refname)")
		if refs != "refs/heads/feature/server-discover\nrefs/heads/main\nrefs/tags/v18.6.0\nrefs/tags/v18.7.0" {
			t.Errorf("gitlab-mcp refs:\n%s", refs)
		}
		if got := git(t, "", "--git-dir", gitDir, "log", "--format=%an|%s", "-3", "main"); got !=
			"Administrator|Merge branch 'fix/stable-tool-order' into 'main'\nAlice Martin|Sort tools by name in tools/list\nAdministrator|Document the tools and their parameters" {
			t.Errorf("git log main:\n%s", got)
		}
		git(t, "", "--git-dir", gitDir, "fsck", "--strict")
		heads := git(t, "", "--git-dir", gitDir, "for-each-ref", "--format=%(refname) %(objectname)")
		second := seedTokens(t, b.mustRun(t, "seed", "--demo"))
		if again := git(t, "", "--git-dir", gitDir, "for-each-ref", "--format=%(refname) %(objectname)"); again != heads {
			t.Errorf("second seed changed the refs:\n%s\n%s", heads, again)
		}
		if u, p, i := count(t, s, &models.User{}), count(t, s, &models.Project{}), count(t, s, &models.Issue{}); u != users || p != projects || i != issues {
			t.Errorf("second seed changed the world: users %d→%d, projects %d→%d, issues %d→%d", users, u, projects, p, issues, i)
		}
		secret := b.secret(t)
		for user, tok := range second {
			if tok == first[user] {
				t.Errorf("%s: the second seed printed the same token; want a fresh one", user)
			}
			for _, tok := range []string{first[user], tok} {
				id, err := authenticate(t, s, secret, tok)
				switch {
				case user == "dave":
					if authKind(err) != auth.UserForbidden {
						t.Errorf("dave (blocked) authenticates: %v", err)
					}
				case err != nil:
					t.Errorf("%s's demo token does not authenticate: %v", user, err)
				case id.User.Username != user:
					t.Errorf("%s's token authenticates as %s", user, id.User.Username)
				}
			}
		}
	})
}

// Ensure seed --demo after the README's own first steps (users create
// alice, projects create acme/rockets) fails naming what is in the way,
// mints no token and leaves the store as it was; it used to panic.
func TestSeedDemo_besideExistingData(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		b.createUser(t, "alice")
		b.mustRun(t, "projects", "create", "--path", "acme/rockets", "--visibility", "private")
		s := b.store(t)
		users, projects := count(t, s, &models.User{}), count(t, s, &models.Project{})
		b.wantErr(t, []string{`in the way: user "alice", group "acme"`, "seed an empty store instead"}, "seed", "--demo")
		if u, p := count(t, s, &models.User{}), count(t, s, &models.Project{}); u != users || p != projects {
			t.Errorf("a refused seed changed the store: users %d→%d, projects %d→%d", users, u, projects, p)
		}
	})
}

// seedTokens parses seed output (one "user role… token" line per demo
// user) and checks it names exactly the demo users.
func seedTokens(t *testing.T, out string) map[string]string {
	t.Helper()
	tokens := map[string]string{}
	for _, l := range lines(out) {
		f := strings.Fields(l)
		tok := f[len(f)-1]
		if !strings.HasPrefix(tok, "glpat-") {
			t.Fatalf("seed line %q does not end with a token", l)
		}
		if _, dup := tokens[f[0]]; dup {
			t.Fatalf("seed printed two tokens for %s", f[0])
		}
		tokens[f[0]] = tok
	}
	for _, u := range []string{"root", "alice", "bob", "carol", "dave"} {
		if tokens[u] == "" {
			t.Errorf("seed printed no token for %s:\n%s", u, out)
		}
	}
	if len(tokens) != 5 {
		t.Errorf("seed printed %d tokens, want 5:\n%s", len(tokens), out)
	}
	return tokens
}

// Ensure --help lists every command and works without a valid
// configuration, and --version prints the version.
func TestHelp(t *testing.T) {
	env := map[string]string{"GLMCP_DATA_DIR": t.TempDir(), "GLMCP_PAGE_SIZE": "0"}
	getenv := func(k string) string { return env[k] }
	var out bytes.Buffer
	if err := run(context.Background(), []string{"--help"}, getenv, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"serve", "migrate", "seed", "users", "tokens", "tools", "projects", "healthcheck", "GLMCP_DATABASE_URL", "GLMCP_SECRET"} {
		if !strings.Contains(out.String(), cmd) {
			t.Errorf("--help does not mention %s", cmd)
		}
	}
	for _, args := range [][]string{{"tokens", "--help"}, {"tokens", "create", "--help"}, {"users", "--help"}, {"projects", "add-member", "--help"}, {"help", "tools"}, {"completion", "bash"}} {
		out.Reset()
		if err := run(context.Background(), args, getenv, &out, &bytes.Buffer{}); err != nil || (!strings.Contains(out.String(), "Usage:") && !strings.Contains(out.String(), "bash completion")) {
			t.Errorf("glmcp %v: %v, output %q", args, err, out.String())
		}
	}
	out.Reset()
	if err := run(context.Background(), []string{"--version"}, getenv, &out, &bytes.Buffer{}); err != nil || !strings.Contains(out.String(), app.Version) {
		t.Errorf("--version: %v, output %q", err, out.String())
	}
	if err := run(context.Background(), []string{"frobnicate"}, getenv, &bytes.Buffer{}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), `unknown command "frobnicate"`) {
		t.Errorf("unknown command: %v", err)
	}
}
