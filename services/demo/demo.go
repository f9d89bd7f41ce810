// Package demo builds the demo world: a small, believable GitLab (users,
// groups, projects with files, issues, notes, merge requests, pipelines)
// written through the store's public API. `glmcp seed --demo` and the
// first start of the embedded store use it; so do the specs and the tool
// tests, as their fixture.
//
// The world is a script: World is built by build() (builder.go) from the
// per-project scripts in projects.go and, under _demo/<group>/<project>/,
// the history of its git repository (history.json: commits, merges and
// tags by demo users at fixed times, see script) and the file trees the
// commits take their files from (<tree>/<path>). The tree "main" is the
// default branch at the end of the history; history.go checks nothing of
// that, demo_test.go does. Adding a project, issue, commit or merge
// request is adding a line to a script or a file to a tree.
package demo

import (
	"context"
	"crypto/sha1"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/store"
)

// BaseTime is when the demo world's history starts; every timestamp in
// it is a fixed offset from here, so two seeded databases hold the same
// data.
var BaseTime = time.Date(2026, time.October, 5, 9, 0, 0, 0, time.UTC)

// Demo project paths.
const (
	ProjectMCP    = "gitlab-org/gitlab-mcp" // public
	ProjectOrbit  = "gitlab-org/orbit"      // internal
	ProjectSecret = "acme/secret-plans"     // private, alice (maintainer) only
	// ProjectInspector is public and archived, in the subgroup GroupLabs.
	ProjectInspector = "gitlab-org/labs/mcp-inspector"
	GroupLabs        = "gitlab-org/labs"
)

// World is what Seed built (or found).
//
// Users: Root (admin, EE seat, owner of the gitlab-org projects), Alice
// (EE seat; developer in the gitlab-org projects, the only member —
// maintainer — of acme/secret-plans), Bob (reporter in the gitlab-org
// projects, and of the group gitlab-org), Carol (guest in gitlab-org/gitlab-mcp, member of nothing
// else), Dave (blocked; was a developer in gitlab-org/gitlab-mcp).
type World struct {
	// Created is false when the world already existed and was only read.
	Created bool

	Root, Alice, Bob, Carol, Dave *models.User

	Groups   map[string]*models.Group   // by full path
	Projects map[string]*models.Project // by path with namespace
}

// Users returns the demo users, root first.
func (w *World) Users() []*models.User {
	return []*models.User{w.Root, w.Alice, w.Bob, w.Carol, w.Dave}
}

// demoUsers are the demo's users, in World.Users order (root first); the
// day is their index, so they were created a day apart.
var demoUsers = []struct {
	username, name, email string
	state                 models.UserState
	admin, eeSeat         bool
}{
	{"root", "Administrator", "admin@example.com", models.UserActive, true, true},
	{"alice", "Alice Martin", "alice@example.com", models.UserActive, false, true},
	{"bob", "Bob Nakamura", "bob@example.com", models.UserActive, false, false},
	{"carol", "Carol Okafor", "carol@example.com", models.UserActive, false, false},
	{"dave", "Dave Kowalski", "dave@example.com", models.UserBlocked, false, false},
}

// demoGroups are the demo's top-level groups.
var demoGroups = []string{"gitlab-org", "acme"}

//go:embed all:_demo
var demoFiles embed.FS

// Seed fills s with a small, believable GitLab: five users, two
// groups and a subgroup, four projects (public, internal, private, and an
// archived one in the subgroup) with repository files,
// labels, issues (one confidential), notes (threads, an internal note,
// system notes), merge requests with commits and diffs, and pipelines with
// jobs (success, failed, running). It writes everything in one transaction
// and mints no tokens.
//
// It is idempotent: when user "root" exists it writes nothing and returns
// the existing world (Created false). A "root" that is not the demo's (its
// projects missing) is models.ErrConflict.
func Seed(ctx context.Context, s *store.Store) (*World, error) {
	w, err := loadDemo(ctx, s)
	if err == nil || !errors.Is(err, errNoDemo) {
		return w, err
	}
	// Users and groups made before the demo (`users create alice`,
	// `projects create acme/rockets`) would make the demo fail halfway,
	// or worse, hand a real user's account to the demo: refuse, naming
	// them.
	if taken, err := takenByOthers(ctx, s); err != nil {
		return nil, fmt.Errorf("seed demo: %w", err)
	} else if len(taken) > 0 {
		if w, err := loadDemo(ctx, s); err == nil {
			return w, nil // another process seeded it since the check above
		}
		return nil, fmt.Errorf("seed demo: in the way: %s: %w", strings.Join(taken, ", "), models.ErrConflict)
	}
	repos, ok := s.Projects.Repositories().(Repositories)
	if !ok {
		return nil, fmt.Errorf("seed demo: the store has no git repositories to write the demo history into")
	}
	var built *World
	err = s.WithTx(ctx, func(tx *store.Store) error {
		b := &demoBuilder{ctx: ctx, s: tx, repos: repos, hist: map[int64]*history{}, w: &World{
			Created:  true,
			Groups:   map[string]*models.Group{},
			Projects: map[string]*models.Project{},
		}}
		b.build()
		w, built = b.w, b.w
		return b.err
	})
	if err != nil && built != nil {
		// The projects' rows are rolled back; their repositories (and the
		// history written into them) go too.
		for _, p := range built.Projects {
			if p.ID > 0 {
				_ = repos.Remove(p.ID)
			}
		}
	}
	if errors.Is(err, models.ErrConflict) {
		// Another process seeded at the same time: use its world.
		if existing, lerr := loadDemo(ctx, s); lerr == nil {
			return existing, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("seed demo: %w", err)
	}
	// Maintained now, as an import is: a server's first open finds a
	// commit-graph and schedules no job of its own.
	if m, ok := repos.(maintainer); ok {
		for _, p := range w.Projects {
			if err := m.Housekeeping().Maintain(ctx, p.ID); err != nil {
				return nil, fmt.Errorf("seed demo: maintain the repository of %s: %w", p.PathWithNamespace, err)
			}
		}
	}
	return w, nil
}

// maintainer is a Repositories that maintains its repositories
// (*repository.Storage).
type maintainer interface {
	Housekeeping() *repository.Housekeeper
}

var errNoDemo = errors.New("no demo world")

// takenByOthers names the users (by username or e-mail) and groups the
// demo would create that already exist.
func takenByOthers(ctx context.Context, s *store.Store) ([]string, error) {
	var taken []string
	found := func(what string, err error) error {
		if err == nil {
			taken = append(taken, what)
			return nil
		}
		if errors.Is(err, models.ErrNotFound) {
			return nil
		}
		return err
	}
	for _, u := range demoUsers {
		_, err := s.Users.FindUserByUsername(ctx, u.username)
		if err := found(fmt.Sprintf("user %q", u.username), err); err != nil {
			return nil, err
		}
		other, err := s.Users.FindUserByEmail(ctx, u.email)
		if err == nil && strings.EqualFold(other.Username, u.username) {
			continue // the same user, named above
		}
		if err := found(fmt.Sprintf("e-mail %s (user %q)", u.email, usernameOf(other)), err); err != nil {
			return nil, err
		}
	}
	for _, path := range demoGroups {
		_, err := s.Groups.FindGroupByFullPath(ctx, path)
		if err := found(fmt.Sprintf("group %q", path), err); err != nil {
			return nil, err
		}
	}
	return taken, nil
}

func usernameOf(u *models.User) string {
	if u == nil {
		return ""
	}
	return u.Username
}

// loadDemo reads the demo world, errNoDemo when user root does not exist.
func loadDemo(ctx context.Context, s *store.Store) (*World, error) {
	root, err := s.Users.FindUserByUsername(ctx, "root")
	if errors.Is(err, models.ErrNotFound) {
		return nil, errNoDemo
	}
	if err != nil {
		return nil, fmt.Errorf("seed demo: %w", err)
	}
	w := &World{Root: root, Groups: map[string]*models.Group{}, Projects: map[string]*models.Project{}}
	incomplete := func(err error) (*World, error) {
		if errors.Is(err, models.ErrNotFound) {
			return nil, fmt.Errorf("seed demo: user root exists but the demo world does not (%v): %w", err, models.ErrConflict)
		}
		return nil, fmt.Errorf("seed demo: %w", err)
	}
	users := []**models.User{&w.Alice, &w.Bob, &w.Carol, &w.Dave}
	for k, u := range demoUsers[1:] {
		if *users[k], err = s.Users.FindUserByUsername(ctx, u.username); err != nil {
			return incomplete(err)
		}
	}
	for _, path := range demoGroups {
		if w.Groups[path], err = s.Groups.FindGroupByFullPath(ctx, path); err != nil {
			return incomplete(err)
		}
	}
	for _, path := range []string{ProjectMCP, ProjectOrbit, ProjectSecret} {
		if w.Projects[path], err = s.Projects.FindProjectByPath(ctx, path); err != nil {
			return incomplete(err)
		}
	}
	// Added later: a demo seeded before them lacks them, and is complete.
	if g, err := s.Groups.FindGroupByFullPath(ctx, GroupLabs); err == nil {
		w.Groups[GroupLabs] = g
	}
	if p, err := s.Projects.FindProjectByPath(ctx, ProjectInspector); err == nil {
		w.Projects[ProjectInspector] = p
	}
	return w, nil
}

// demoBuilder writes the demo world. Its methods do nothing once err is
// set, so build reads as a script; the transaction rolls everything back.
type demoBuilder struct {
	ctx   context.Context
	s     *store.Store
	repos Repositories
	hist  map[int64]*history // by project id
	w     *World
	err   error
}

// at returns BaseTime plus days, hours and minutes.
func at(days, hours, minutes int) time.Time {
	return BaseTime.Add(time.Duration(days)*24*time.Hour + time.Duration(hours)*time.Hour + time.Duration(minutes)*time.Minute)
}

func ptr[T any](v T) *T { return &v }

// day returns the date days after BaseTime.
func day(days int) *models.Date {
	t := at(days, 0, 0)
	return &models.Date{Time: time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)}
}

// demoSHA returns a stable 40-hex id for the demo object named by parts.
func demoSHA(parts ...string) string {
	sum := sha1.Sum([]byte("glmcp-demo\x00" + strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:])
}

// demoFile returns the content of _demo/<project>/<tree>/<path>.
func demoFile(project, tree, path string) (string, bool) {
	b, err := demoFiles.ReadFile("_demo/" + project + "/" + tree + "/" + path)
	if err != nil {
		b, err = demoFiles.ReadFile("_demo/" + project + "/" + tree + "/" + path + ".txt")
	}
	return string(b), err == nil
}
