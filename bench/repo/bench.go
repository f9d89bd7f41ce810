package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gitlab.com/glmcp/glmcp/bench/harness"
)

// projectPath is the project the benchmark imports the repository into.
const projectPath = "bench/git"

// shape is what the report says of the repository.
type shape struct {
	commits, merges, objects, files, tags, branches int
	packBytes                                       int64
	headFiles                                       string
}

func measureShape(ctx context.Context, dir string) (shape, error) {
	var s shape
	count := func(args ...string) (int, error) {
		out, err := gitOut(ctx, dir, args...)
		if err != nil {
			return 0, err
		}
		return strconv.Atoi(strings.TrimSpace(out))
	}
	lines := func(args ...string) (int, error) {
		out, err := gitOut(ctx, dir, args...)
		return strings.Count(out, "\n"), err
	}
	var err error
	if s.commits, err = count("rev-list", "--count", "--all"); err != nil {
		return s, err
	}
	if s.merges, err = count("rev-list", "--count", "--merges", "--all"); err != nil {
		return s, err
	}
	if s.files, err = lines("ls-tree", "-r", "--name-only", "HEAD"); err != nil {
		return s, err
	}
	if s.tags, err = lines("tag"); err != nil {
		return s, err
	}
	if s.branches, err = lines("branch"); err != nil {
		return s, err
	}
	out, err := gitOut(ctx, dir, "count-objects", "-v")
	if err != nil {
		return s, err
	}
	for line := range strings.Lines(out) {
		k, v, _ := strings.Cut(strings.TrimSpace(line), ": ")
		n, _ := strconv.ParseInt(v, 10, 64)
		switch k {
		case "in-pack":
			s.objects = int(n)
		case "size-pack":
			s.packBytes = n << 10
		}
	}
	return s, nil
}

func (s shape) String() string {
	return fmt.Sprintf("%d commits (%d merges), %d objects in one pack of %.0f MB, %d files at HEAD, %d tags, %d branches",
		s.commits, s.merges, s.objects, float64(s.packBytes)/1e6, s.files, s.tags, s.branches)
}

// timed is one run of a child process: its wall time and peak RSS (its
// own and its waited-for descendants', from wait4's rusage).
type timed struct {
	wall    time.Duration
	maxRSS  int64
	stdout  string
	command string
}

func runTimed(cmd *exec.Cmd) (timed, error) {
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	harness.SetParentDeath(cmd)
	began := time.Now()
	err := cmd.Run()
	t := timed{wall: time.Since(began), stdout: out.String(), command: strings.Join(cmd.Args, " ")}
	if err != nil {
		return t, fmt.Errorf("%s: %w\n%s", t.command, err, errb.String())
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		t.maxRSS = ru.Maxrss << 10 // KiB on Linux
	}
	return t, nil
}

func bench(ctx context.Context, o options) error {
	var src string
	var b *built
	if o.source != "" {
		abs, err := filepath.Abs(o.source)
		if err != nil {
			return err
		}
		v, err := gitOut(ctx, abs, "version")
		if err != nil {
			return err
		}
		src, b = abs, &built{GitVersion: strings.TrimSpace(v)}
	} else {
		say("repository %+v", o.p)
		began := time.Now()
		var err error
		if src, b, err = cachedRepository(ctx, o.cache, o.p); err != nil {
			return err
		}
		if time.Since(began) > time.Minute {
			say("built %s in %v", src, time.Since(began).Round(time.Second))
		}
	}
	sh, err := measureShape(ctx, src)
	if err != nil {
		return err
	}
	say("%s: %s", src, sh)
	if o.source == "" {
		say("built %s: generator + git fast-import %v, git repack -a -d -f %v (%s)", b.BuiltAt.Format(time.DateOnly),
			b.Generate.Round(time.Second), b.Repack.Round(time.Second), b.GitVersion)
	}
	if o.buildOnly {
		return nil
	}

	ws, err := harness.NewWorkspace(ctx, o.root, o.dbURL)
	if err != nil {
		return err
	}
	defer ws.Close()
	dir, bin, db := ws.Dir, ws.Bin, ws.DB
	say("database %s: migrate, users create, tokens create", db.Name)
	g, err := harness.NewGlmcp(ctx, bin, dir, db)
	if err != nil {
		return err
	}
	g.Env = append(g.Env, "GLMCP_DEMO=false")
	if _, err := g.Run(ctx, "users", "create", "--username", "bench", "--email", "bench@example.com", "--admin"); err != nil {
		return err
	}
	token, err := g.Token(ctx, "bench", "api,mcp")
	if err != nil {
		return err
	}

	say("glmcp projects import --path %s --from %s", projectPath, src)
	imp, err := runTimed(g.Command(ctx, "projects", "import", "--path", projectPath, "--from", src))
	importNote := ""
	if err != nil && strings.Contains(err.Error(), "is not a git repository") {
		// An import that does not take a bare repository as it is gets
		// the same repository as a work tree's .git file ("gitdir: …").
		link := filepath.Join(dir, "source")
		if err := os.MkdirAll(link, 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(link, ".git"), []byte("gitdir: "+src+"\n"), 0o600); err != nil {
			return err
		}
		importNote = fmt.Sprintf("`--from <bare repository>` was refused (`%s`); the import read the same repository through a directory whose `.git` file points at it (`gitdir: <repo>`)", lastLine(err))
		say("%s", importNote)
		imp, err = runTimed(g.Command(ctx, "projects", "import", "--path", projectPath, "--from", link))
	}
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(strings.TrimSpace(imp.stdout), 10, 64)
	if err != nil {
		return fmt.Errorf("projects import printed %q, want the project's id", imp.stdout)
	}
	imp.command = "glmcp projects import --path " + projectPath + " --from <repo>"
	say("imported in %v, peak RSS %s", imp.wall.Round(time.Millisecond), mb(imp.maxRSS))
	var cl timed
	if o.source == "" { // an existing repository's import is not what is measured
		mirror := filepath.Join(dir, "mirror.git")
		clone := exec.CommandContext(ctx, gitBin, "clone", "--quiet", "--mirror", "--no-local", src, mirror)
		clone.Env = gitEnv()
		say("git clone --mirror --no-local")
		if cl, err = runTimed(clone); err != nil {
			return err
		}
		cl.command = "git clone --mirror --no-local <repo> <dir>"
		say("cloned in %v, peak RSS %s", cl.wall.Round(time.Millisecond), mb(cl.maxRSS))
		_ = os.RemoveAll(mirror)
	}

	repo := filepath.Join(g.Repositories(), filepath.FromSlash(hashedPath(id)))
	if _, err := os.Stat(filepath.Join(repo, "HEAD")); err != nil {
		return fmt.Errorf("glmcp's repository of project %d: %w", id, err)
	}
	if err := g.Serve(ctx); err != nil {
		return err
	}
	defer g.Proc.Stop()
	watch := watchProcesses(g.Proc.Cmd.Process.Pid)
	defer watch.stop()

	c := &client{addr: g.Addr, token: token}
	var works []work
	if o.source != "" {
		works, err = commitSearchWorks(ctx, c, repo)
	} else {
		works, err = prepareWorks(ctx, c, repo)
	}
	if err != nil {
		return err
	}
	// The import packed the refs; the server that first opens the
	// repository writes its commit-graph in the background
	// (doc/repositories.md, "Housekeeping"). Measured once that is done,
	// as a user's repository is seconds after its import.
	t0 := time.Now()
	if err := waitMaintained(ctx, repo, g.Proc.Cmd.Process.Pid); err != nil {
		return err
	}
	say("the server's housekeeping of the imported repository took %v", time.Since(t0).Round(time.Millisecond))
	var rows []row
	for _, w := range works {
		if o.only != "" && !strings.Contains(w.name, o.only) {
			continue
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r := measure(ctx, c, repo, w, o.runs)
		if r.err != nil {
			say("%-44s %v", w.name, r.err)
		} else {
			say("%-44s glmcp cold %-9s median %-9s git %-9s %.1f×", w.name, dur(r.cold), dur(r.glmcp), dur(r.git), r.ratio())
		}
		rows = append(rows, r)
	}
	rss, peak := g.Proc.Memory()
	procs, procsPeak := watch.stop()
	printReport(os.Stdout, reportEnv{o: o, shape: sh, built: b, imp: imp, importNote: importNote, clone: cl, rows: rows,
		serveRSS: rss, servePeak: peak, procs: procs, procsPeak: procsPeak, cpus: runtime.NumCPU()})
	return nil
}

// hashedPath is GitLab's @hashed layout of project id's repository.
func hashedPath(id int64) string {
	h := fmt.Sprintf("%x", sha256.Sum256([]byte(strconv.FormatInt(id, 10))))
	return "@hashed/" + h[0:2] + "/" + h[2:4] + "/" + h + ".git"
}

// lastLine is the last line of err's message.
func lastLine(err error) string {
	s := strings.TrimSpace(err.Error())
	return s[strings.LastIndexByte(s, '\n')+1:]
}

func mb(n int64) string { return fmt.Sprintf("%.0f MB", float64(n)/1e6) }

func say(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "# "+format+"\n", args...)
}

// waitMaintained waits (at most 10 minutes) until the repository has a
// commit-graph and the server runs no git process.
func waitMaintained(ctx context.Context, repo string, server int) error {
	chain := filepath.Join(repo, "objects", "info", "commit-graphs", "commit-graph-chain")
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(chain); err == nil && len(descendants(server)) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("the server did not maintain the imported repository within 10 minutes")
}
