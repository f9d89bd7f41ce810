// Command store measures glmcp's store-backed tools on a project of
// GitLab's own size beside a small one (scripts/bench store runs it;
// doc/performance.md shows its output):
//
//   - writes two GitLab export archives with bench/genexport, a small
//     and a large project (-small and -large issues, 5 notes each, one
//     merge request per 20 issues, one pipeline per 200);
//   - imports both with `glmcp projects import --file` into one fresh
//     PostgreSQL database, timing each import and reading its peak RSS;
//   - serves glmcp on loopback and calls every read and search tool on
//     both projects, alternating (one cold call each, then the median of
//     -runs warm ones, in the same minute), and prints the large/small
//     ratio per tool;
//   - runs -conns concurrent searches on the large project for -duration
//     and counts the answers by status, with p50 and p99;
//   - imports the same archives into an embedded SQLite store and times a
//     list page and a search there.
//
// With -database NAME the PostgreSQL database is kept for the next run,
// which reuses its two projects instead of importing them again.
//
// Every answer is checked (a 200 with a result, items where items are
// expected) before it is timed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench store:", err)
		os.Exit(1)
	}
}

type options struct {
	root, dbURL  string
	small, large int
	notes, runs  int
	conns        int
	duration     time.Duration
	postgres     bool
	sqlite       bool
	only         string
	database     string
}

func run() error {
	o := options{}
	flag.StringVar(&o.root, "root", ".", "repository root (where ./cmd/glmcp is)")
	flag.StringVar(&o.dbURL, "database-url", defaultDatabaseURL(), "PostgreSQL server (loopback) in which a fresh database is created and dropped")
	flag.IntVar(&o.small, "small", 1000, "issues of the small project")
	flag.IntVar(&o.large, "large", 100000, "issues of the large project")
	flag.IntVar(&o.notes, "notes", 5, "notes per issue and per merge request")
	flag.IntVar(&o.runs, "runs", 5, "warm runs of each call (the median is reported)")
	flag.IntVar(&o.conns, "conns", 16, "concurrent searches on the large project")
	flag.DurationVar(&o.duration, "duration", 15*time.Second, "how long the concurrent searches run")
	flag.BoolVar(&o.postgres, "postgres", true, "import both projects into one PostgreSQL store and measure every read and search tool there, then the concurrent searches")
	flag.BoolVar(&o.sqlite, "sqlite", true, "also import both projects into the embedded SQLite store and time a list page and a search there")
	flag.StringVar(&o.only, "only", "", "measure only the calls whose name contains this")
	flag.StringVar(&o.database, "database", "", "PostgreSQL: use (create when absent) and keep this database instead of a fresh one; when it already holds both projects at these sizes (an earlier run with the same flags), the archives are not written and nothing is imported, so the large import is paid once")
	flag.Parse()
	if o.runs < 1 || o.small < 100 || o.large < o.small || o.notes < 1 || o.conns < 1 {
		return errors.New("-runs and -conns must be positive, -small at least 100, -large at least -small, -notes at least 1")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return bench(ctx, o)
}
