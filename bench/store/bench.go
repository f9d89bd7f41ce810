package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"gitlab.com/glmcp/glmcp/bench/harness"
)

func defaultDatabaseURL() string { return harness.DefaultDatabaseURL() }

// The two projects, as the archives' import names them.
const (
	smallPath = "bench/small"
	largePath = "bench/large"
)

// size is one project's shape: genexport's flags.
type size struct {
	issues, mrs, pipelines, notes int
}

func sizeOf(issues, notes int) size {
	return size{issues: issues, mrs: max(1, issues/20), pipelines: max(1, issues/200), notes: notes}
}

// timed is one child process's wall time and peak RSS (its own and its
// waited-for children's, from wait4's rusage).
type timed struct {
	wall   time.Duration
	maxRSS int64
	stdout string
}

func runTimed(cmd *exec.Cmd) (timed, error) {
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	harness.SetParentDeath(cmd)
	began := time.Now()
	err := cmd.Run()
	t := timed{wall: time.Since(began), stdout: out.String()}
	if err != nil {
		return t, fmt.Errorf("%s: %w\n%s", strings.Join(cmd.Args, " "), err, errb.String())
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		t.maxRSS = ru.Maxrss << 10 // KiB on Linux
	}
	return t, nil
}

// report collects what the run measured, for printReport.
type report struct {
	o                   options
	small, large        size
	gen, imports        map[string]timed // by project path
	rows                []row
	single              []row // calls measured once per run, not as a ratio
	conc                concurrent
	sqliteImports       map[string]timed
	sqliteRows          []row
	serveRSS, servePeak int64
	began               time.Time
	loadStart           string
}

func bench(ctx context.Context, o options) error {
	r := &report{o: o, small: sizeOf(o.small, o.notes), large: sizeOf(o.large, o.notes), gen: map[string]timed{},
		imports: map[string]timed{}, sqliteImports: map[string]timed{}, began: time.Now(), loadStart: harness.LoadAverage()}
	ws, err := harness.NewWorkspaceDB(ctx, o.root, o.dbURL, o.database)
	if err != nil {
		return err
	}
	defer ws.Close()
	reuse := false
	if ws.DB.Existed {
		if reuse, err = holdsProjects(ctx, ws.DB.URL, map[string]int{smallPath: o.small, largePath: o.large}); err != nil {
			return err
		}
		if reuse {
			say("database %s kept from an earlier run: its projects are reused, nothing is imported", ws.DB.Name)
		}
	}
	if reuse && !o.sqlite {
		return benchRest(ctx, ws, nil, r, reuse)
	}
	gen := filepath.Join(ws.Dir, "genexport")
	build := exec.CommandContext(ctx, "go", "build", "-o", gen, "./bench/genexport")
	build.Dir, build.Stdout, build.Stderr = o.root, os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("go build ./bench/genexport: %w", err)
	}
	archives := map[string]string{}
	for _, p := range []struct {
		path string
		s    size
	}{{smallPath, r.small}, {largePath, r.large}} {
		file := filepath.Join(ws.Dir, strings.ReplaceAll(p.path, "/", "-")+".tar.gz")
		say("genexport %s: %d issues, %d merge requests, %d pipelines, %d notes each", p.path, p.s.issues, p.s.mrs, p.s.pipelines, p.s.notes)
		t, err := runTimed(exec.CommandContext(ctx, gen, "-issues", fmt.Sprint(p.s.issues), "-mrs", fmt.Sprint(p.s.mrs),
			"-pipelines", fmt.Sprint(p.s.pipelines), "-notes", fmt.Sprint(p.s.notes), "-o", file))
		if err != nil {
			return err
		}
		say("  %v, peak RSS %s", t.wall.Round(time.Millisecond), mb(t.maxRSS))
		r.gen[p.path], archives[p.path] = t, file
	}

	return benchRest(ctx, ws, archives, r, reuse)
}

// benchRest runs the PostgreSQL part (on the database's projects as they
// are when reuse is set), then the SQLite part, and prints the report.
func benchRest(ctx context.Context, ws *harness.Workspace, archives map[string]string, r *report, reuse bool) error {
	o := r.o
	if o.postgres {
		if err := benchPostgres(ctx, ws, archives, r, reuse); err != nil {
			return err
		}
	}
	if o.sqlite && ctx.Err() == nil {
		if err := benchSQLite(ctx, ws, archives, r); err != nil {
			say("SQLite: %v", err)
		}
	}
	printReport(os.Stdout, r)
	return ctx.Err()
}

// benchPostgres imports both archives into the workspace's PostgreSQL
// database and measures every work there, then the concurrent searches.
func benchPostgres(ctx context.Context, ws *harness.Workspace, archives map[string]string, r *report, reuse bool) error {
	o := r.o
	say("database %s: migrate, users create, tokens create", ws.DB.Name)
	g, err := harness.NewGlmcp(ctx, ws.Bin, ws.Dir, ws.DB)
	if err != nil {
		return err
	}
	g.Env = append(g.Env, "GLMCP_DEMO=false")
	var c *client
	if reuse {
		token, terr := g.Token(ctx, "bench", "api,mcp")
		c, err = &client{token: token}, terr
	} else {
		c, err = prepare(ctx, g, archives, r.imports)
	}
	if err != nil {
		return err
	}
	if err := g.Serve(ctx); err != nil {
		return err
	}
	c.addr = g.Addr
	for _, w := range prepareWorks(c) {
		if o.only != "" && !strings.Contains(w.name, o.only) {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		rw := measure(c, w, o.runs)
		say("%-48s small %-9s large %-9s %s", w.name, dur(rw.small), dur(rw.large), rw.verdict())
		if w.single {
			r.single = append(r.single, rw)
		} else {
			r.rows = append(r.rows, rw)
		}
	}
	if ctx.Err() == nil && (o.only == "" || strings.Contains("concurrent", o.only)) {
		say("%d concurrent searches on %s for %v", o.conns, largePath, o.duration)
		r.conc = runConcurrent(ctx, c, o.conns, o.duration)
		say("  %s", r.conc.summary())
	}
	r.serveRSS, r.servePeak = g.Proc.Memory()
	g.Proc.Stop()
	return nil
}

// holdsProjects reports whether the database at dbURL holds every project
// of want (path → issues) with that many issues, as an earlier run left
// it: false when it holds none of them (a database just created), an
// error when it holds other sizes or only some.
func holdsProjects(ctx context.Context, dbURL string, want map[string]int) (bool, error) {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return false, err
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT to_regclass('projects') IS NOT NULL").Scan(&exists); err != nil || !exists {
		return false, err
	}
	rows, err := conn.Query(ctx, `SELECT p.path_with_namespace, (SELECT count(*) FROM issues i WHERE i.project_id = p.id)
		FROM projects p WHERE p.path_with_namespace = ANY($1)`, slices.Collect(maps.Keys(want)))
	if err != nil {
		return false, err
	}
	got := map[string]int{}
	for rows.Next() {
		var path string
		var n int
		if err := rows.Scan(&path, &n); err != nil {
			return false, err
		}
		got[path] = n
	}
	if err := rows.Err(); err != nil {
		return false, err
	}
	if len(got) == 0 {
		return false, nil
	}
	if !maps.Equal(got, want) {
		return false, fmt.Errorf("the kept database holds %v issues, these flags want %v: drop it or name another", got, want)
	}
	// Archives of an older bench/genexport titled merge requests
	// "Merge request N", in which rareMR is not rare.
	var current int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM merge_requests m JOIN projects p ON p.id = m.project_id
		WHERE p.path_with_namespace = ANY($1) AND m.iid = 1 AND m.title LIKE 'Merge request 1:%'`,
		slices.Collect(maps.Keys(want))).Scan(&current); err != nil {
		return false, err
	}
	if current != len(want) {
		return false, fmt.Errorf("the kept database holds archives of an older bench/genexport (merge requests titled without the colon that makes %q rare): drop it or name another", rareMR)
	}
	return true, nil
}

// prepare creates the benchmark's user and token and imports the
// archives into g's store, recording each import's time and peak RSS.
func prepare(ctx context.Context, g *harness.Glmcp, archives map[string]string, into map[string]timed) (*client, error) {
	if _, err := g.Run(ctx, "users", "create", "--username", "bench", "--email", "bench@example.com", "--admin"); err != nil {
		return nil, err
	}
	token, err := g.Token(ctx, "bench", "api,mcp")
	if err != nil {
		return nil, err
	}
	for _, path := range []string{smallPath, largePath} {
		say("glmcp projects import --path %s --file %s", path, filepath.Base(archives[path]))
		t, err := runTimed(g.Command(ctx, "projects", "import", "--path", path, "--file", archives[path]))
		if err != nil {
			return nil, err
		}
		say("  imported in %v, peak RSS %s", t.wall.Round(time.Millisecond), mb(t.maxRSS))
		into[path] = t
	}
	return &client{token: token}, nil
}

// benchSQLite imports both archives into an embedded store and measures
// the SQLite works on it.
func benchSQLite(ctx context.Context, ws *harness.Workspace, archives map[string]string, r *report) error {
	dir := filepath.Join(ws.Dir, "sqlite")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GLMCP_") {
			env = append(env, kv)
		}
	}
	g := &harness.Glmcp{Bin: ws.Bin, Dir: dir, Env: append(env, "GLMCP_DATA_DIR="+dir, "GLMCP_DEMO=false",
		"GLMCP_SECRET=bench-"+harness.RandomHex(24), "GLMCP_RATE_LIMIT=0", "GLMCP_LOG_FORMAT=json")}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if _, err := g.Run(ctx, "migrate"); err != nil {
		return err
	}
	say("embedded SQLite store in %s", dir)
	c, err := prepare(ctx, g, archives, r.sqliteImports)
	if err != nil {
		return err
	}
	if err := g.Serve(ctx); err != nil {
		return err
	}
	defer g.Proc.Stop()
	c.addr = g.Addr
	for _, w := range sqliteWorks(c) {
		rw := measure(c, w, r.o.runs)
		say("SQLite %-41s small %-9s large %-9s %s", w.name, dur(rw.small), dur(rw.large), rw.verdict())
		r.sqliteRows = append(r.sqliteRows, rw)
	}
	return nil
}

// concurrent is what the concurrent searches got.
type concurrent struct {
	conns     int
	elapsed   time.Duration
	answers   int            // 200s with a result
	byStatus  map[string]int // "200", "503 -32603", "transport", …
	latencies []time.Duration
	first     string // the first failure, for the report
}

func (c concurrent) quantile(q float64) time.Duration {
	if len(c.latencies) == 0 {
		return 0
	}
	return c.latencies[min(len(c.latencies)-1, int(q*float64(len(c.latencies))))]
}

func (c concurrent) statuses() string {
	var s []string
	for k, v := range c.byStatus {
		s = append(s, fmt.Sprintf("%d × %s", v, k))
	}
	slices.Sort(s)
	return strings.Join(s, ", ")
}

func (c concurrent) summary() string {
	return fmt.Sprintf("%d answers in %v (%s); p50 %s, p99 %s", c.answers, c.elapsed.Round(time.Millisecond), c.statuses(),
		dur(c.quantile(0.5)), dur(c.quantile(0.99)))
}

// runConcurrent has conns clients search the large project for d, each
// taking the next term of a fixed rotation (rare and common words, issues
// and notes), and counts every answer.
func runConcurrent(ctx context.Context, c *client, conns int, d time.Duration) concurrent {
	terms := concurrentSearches()
	out := concurrent{conns: conns, byStatus: map[string]int{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	began := time.Now()
	deadline := began.Add(d)
	for k := range conns {
		wg.Go(func() {
			cc := &client{addr: c.addr, token: c.token}
			for n := k; time.Now().Before(deadline) && ctx.Err() == nil; n += conns {
				a, err := cc.call("search", terms[n%len(terms)])
				key := fmt.Sprint(a.status)
				switch {
				case err != nil:
					key = "transport error"
				case a.code != 0:
					key = fmt.Sprintf("%d %d", a.status, a.code)
				case a.isError:
					key = fmt.Sprintf("%d isError", a.status)
				}
				mu.Lock()
				out.byStatus[key]++
				if err == nil && a.ok() {
					out.answers++
					out.latencies = append(out.latencies, a.took)
				} else if out.first == "" {
					out.first = a.text
					if err != nil {
						out.first = err.Error()
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	out.elapsed = time.Since(began)
	slices.Sort(out.latencies)
	return out
}

func say(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "# "+format+"\n", args...)
}

func mb(n int64) string { return fmt.Sprintf("%.0f MB", float64(n)/1e6) }

// dur prints a duration with three significant digits.
func dur(d time.Duration) string {
	switch {
	case d == 0:
		return "—"
	case d < time.Millisecond:
		return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
	case d < time.Second:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
}

func cpus() int { return runtime.NumCPU() }
