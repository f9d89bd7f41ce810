// Command repo measures glmcp's repository tools on a repository of git's
// size against the git command line on the same repository (scripts/bench
// repo runs it; doc/performance.md shows its output):
//
//   - builds once, and caches under the user cache dir, a deterministic
//     repository of git's shape (gen.go) with git fast-import;
//   - imports it with `glmcp projects import` into a fresh PostgreSQL
//     database and a temporary repositories directory, timing it and
//     reading its peak RSS, next to `git clone --mirror --no-local`;
//   - or, with -source, imports an existing repository (git's own
//     history) and measures the commit search on it;
//   - serves glmcp on loopback and calls each repository tool over
//     JSON-RPC (one cold call, then the median of warm ones), next to the
//     git command answering the same question on the repository glmcp
//     wrote; every answer is checked against git's before it is timed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"gitlab.com/glmcp/glmcp/bench/harness"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench repo:", err)
		os.Exit(1)
	}
}

type options struct {
	root, dbURL, cache string
	source             string
	p                  params
	runs               int
	buildOnly          bool
	only               string
}

func run() error {
	o := options{p: defaultParams()}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	flag.StringVar(&o.root, "root", ".", "repository root (where ./cmd/glmcp is)")
	flag.StringVar(&o.dbURL, "database-url", harness.DefaultDatabaseURL(), "PostgreSQL server (loopback) in which a fresh database is created and dropped")
	flag.StringVar(&o.cache, "cache", filepath.Join(cache, "glmcp"), "directory of the built repositories")
	flag.IntVar(&o.p.Commits, "commits", o.p.Commits, "commits of the generated repository (merges included)")
	flag.IntVar(&o.p.Files, "files", o.p.Files, "files in its default branch's tree")
	flag.IntVar(&o.p.Tags, "tags", o.p.Tags, "tags")
	flag.IntVar(&o.p.LargeKiB, "large-kib", o.p.LargeKiB, "size of its largest text file, KiB")
	flag.IntVar(&o.runs, "runs", 5, "warm runs of each measurement (the median is reported)")
	flag.BoolVar(&o.buildOnly, "build-only", false, "build (or find) the cached repository, print its shape and stop")
	flag.StringVar(&o.only, "only", "", "measure only the work whose name contains this")
	flag.StringVar(&o.source, "source", "", "an existing bare repository (such as git's own history) to import instead of the generated one; "+
		"only the commit search works are measured on it, against `git log --grep` with the same page and count")
	flag.Parse()
	if o.runs < 1 || o.p.Commits < 100 || o.p.Files < 50 || o.p.Tags < 1 {
		return errors.New("-runs must be positive; -commits at least 100, -files 50, -tags 1")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return bench(ctx, o)
}
