package spec

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gitlab.com/glmcp/glmcp/app"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// A seeded world is the demo world built once per configuration (store
// kind, secret, token format) and copied for every server that starts on
// it: migrating a database and writing the demo's git history costs about
// half a second, copying them a fraction of that. The copy is the same
// world a fresh seed makes — same rows, same repositories, same tokens —
// on a database and a repositories path of the test's own.
type seededWorld struct {
	once     sync.Once
	err      error
	template string // PostgreSQL: the template database's name
	dataDir  string // the template's data directory (SQLite file, repositories)
	repos    string // the template's repositories path
	tokens   []app.DemoToken
	drop     func() error
}

var seeded struct {
	sync.Mutex
	worlds map[string]*seededWorld
	root   string // parent of every template's data directory
}

// seededKey names the configuration a seeded world depends on.
func seededKey(cfg *app.Config, postgres bool) string {
	return fmt.Sprintf("pg=%t|%s|%+v", postgres, cfg.Secret, *cfg.TokenFormat())
}

// seededWorldFor returns the seeded world for cfg, building it the first
// time (concurrent callers wait for the one build).
func seededWorldFor(cfg *app.Config, postgres bool) (*seededWorld, error) {
	key := seededKey(cfg, postgres)
	seeded.Lock()
	if seeded.worlds == nil {
		seeded.worlds = map[string]*seededWorld{}
	}
	if seeded.root == "" {
		dir, err := os.MkdirTemp("", "glmcp-spec-seeded-")
		if err != nil {
			seeded.Unlock()
			return nil, err
		}
		seeded.root = dir
	}
	w := seeded.worlds[key]
	if w == nil {
		w = &seededWorld{}
		seeded.worlds[key] = w
	}
	root := seeded.root
	seeded.Unlock()
	w.once.Do(func() { w.err = w.build(cfg, postgres, root) })
	return w, w.err
}

func (w *seededWorld) build(base *app.Config, postgres bool, root string) error {
	cfg := *base
	dir, err := os.MkdirTemp(root, "world-")
	if err != nil {
		return err
	}
	w.dataDir = dir
	cfg.DataDir = dir
	cfg.RepositoriesPath = filepath.Join(dir, "repositories")
	if err := os.MkdirAll(cfg.RepositoriesPath, 0o700); err != nil {
		return err
	}
	w.repos = cfg.RepositoriesPath
	cfg.DatabaseURL = ""
	if postgres {
		name, dsn, drop, err := storetest.CreateTemplate()
		if err != nil {
			return err
		}
		w.template, w.drop, cfg.DatabaseURL = name, drop, dsn
	}
	ctx := context.Background()
	env, err := app.OpenEnv(ctx, &cfg, app.NewLogger(&cfg, io.Discard))
	if err != nil {
		return fmt.Errorf("open the seeded world's store: %w", err)
	}
	w.tokens, err = app.SeedDemo(ctx, env)
	if err == nil {
		// The catalog synced as every server's start syncs it (app.New),
		// so that a copy's start finds it up to date and writes nothing
		// instead of inserting every tool: the same rows, written once.
		var ts *tools.Service
		if ts, err = app.NewToolService(&cfg, env, app.NewLogger(&cfg, io.Discard)); err == nil {
			err = ts.Sync(ctx)
		}
	}
	// Closed before anyone copies it: PostgreSQL copies a template only
	// while nobody is connected to it, and SQLite's file is whole once
	// its last connection is closed.
	if cerr := env.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("seed the seeded world: %w", err)
	}
	return nil
}

// install copies the world into cfg's store (the database URL it returns;
// "" for SQLite, whose file lands in cfg.DataDir) and repositories path,
// and returns the demo tokens.
func (w *seededWorld) install(tb testing.TB, cfg *app.Config) (string, []app.DemoToken) {
	tb.Helper()
	dsn := ""
	if w.template != "" {
		dsn = storetest.PostgresDSNFrom(tb, w.template)
	} else {
		for _, name := range []string{"glmcp.db", "glmcp.db-wal", "glmcp.db-shm"} {
			if err := copyFile(filepath.Join(w.dataDir, name), filepath.Join(cfg.DataDir, name)); err != nil {
				tb.Fatalf("copy the seeded world's database: %v", err)
			}
		}
	}
	if err := copyRepositories(w.repos, cfg.RepositoriesPath); err != nil {
		tb.Fatalf("copy the seeded world's repositories: %v", err)
	}
	return dsn, w.tokens
}

// copyRepositories copies the repositories under src into dst, as
// os.CopyFS does, except that a git object file (a loose object under
// objects/xx/ or a pack under objects/pack/) is hard-linked when it can be:
// git and go-git never change one in place (they write a new file and
// rename it, and delete it whole), so the copies may share them, and
// linking them is most of what copying a seeded world cost a server start.
// Everything else (refs, HEAD, config, packed-refs: rewritten in place by
// go-git) is copied; so is an object when linking fails (dst on another
// file system).
func copyRepositories(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			if rel == "." {
				return os.MkdirAll(target, 0o777)
			}
			return os.Mkdir(target, 0o777) // its parent came first
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file", path)
		}
		if isGitObjectFile(rel) && os.Link(path, target) == nil {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o666|info.Mode()&0o111)
	})
}

// isGitObjectFile reports whether rel (a path inside the repositories
// directory) is a loose object (objects/xx/<rest of the id>) or a pack's
// file (objects/pack/pack-*) of some repository.
func isGitObjectFile(rel string) bool {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i := 0; i+2 < len(parts); i++ {
		if parts[i] != "objects" || i+3 != len(parts) {
			continue
		}
		dir, name := parts[i+1], parts[i+2]
		if dir == "pack" {
			return strings.HasPrefix(name, "pack-")
		}
		return len(dir) == 2 && isHex(dir) && len(name) >= 38 && isHex(name)
	}
	return false
}

func isHex(s string) bool {
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// copyFile copies src to dst; a missing src is not an error.
func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o600)
}

// dropSeededWorlds removes every template (called by TestMain).
func dropSeededWorlds() {
	seeded.Lock()
	defer seeded.Unlock()
	for _, w := range seeded.worlds {
		if w.drop != nil {
			if err := w.drop(); err != nil {
				fmt.Fprintln(os.Stderr, "spec:", err)
			}
		}
	}
	if seeded.root != "" {
		_ = os.RemoveAll(seeded.root)
	}
}
