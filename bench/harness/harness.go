// Package harness runs what the benchmarks measure: child processes that
// die with the benchmark, a fresh PostgreSQL database dropped at the end,
// and the glmcp binary built from the repository, migrated and serving on
// loopback.
package harness

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultDatabaseURL is GLMCP_TEST_DATABASE_URL, else the local server.
func DefaultDatabaseURL() string {
	if u := os.Getenv("GLMCP_TEST_DATABASE_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// Proc is a server process a benchmark started; Stop ends it.
type Proc struct {
	Name  string
	Cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{}
}

// Start runs cmd as a child that dies with this process (see
// SetParentDeath) and whose stdin is a pipe held open until Stop.
func Start(name string, cmd *exec.Cmd) (*Proc, error) {
	SetParentDeath(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &Proc{Name: name, Cmd: cmd, stdin: stdin, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	return p, nil
}

// Done is closed when the process has exited.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Stop sends SIGTERM, waits up to 10 s, then kills.
func (p *Proc) Stop() {
	if p == nil {
		return
	}
	_ = p.stdin.Close()
	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.Cmd.Process.Kill()
		<-p.done
	}
}

// Memory returns the process's resident set now and at its peak, in
// bytes, from /proc (0 where unavailable).
func (p *Proc) Memory() (rss, peak int64) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.Cmd.Process.Pid))
	if err != nil {
		return 0, 0
	}
	for line := range strings.Lines(string(raw)) {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) != 2 || f[1] != "kB" {
			continue
		}
		n, _ := strconv.ParseInt(f[0], 10, 64)
		switch k {
		case "VmRSS":
			rss = n << 10
		case "VmHWM":
			peak = n << 10
		}
	}
	return rss, peak
}

// Database is a fresh PostgreSQL database, dropped by Drop, or a named
// one kept for the next run (Keep).
type Database struct {
	Admin, Name, URL string
	// Keep: Drop leaves the database alone (OpenDatabase).
	Keep bool
	// Existed: OpenDatabase found the database there already.
	Existed bool
}

// CreateDatabase creates a database with a fresh name next to the one
// adminURL names, which must be on loopback.
func CreateDatabase(ctx context.Context, adminURL string) (*Database, error) {
	return openDatabase(ctx, adminURL, "")
}

// OpenDatabase is the database name next to the one adminURL names (on
// loopback), created when it is not there; Drop keeps it, so that a
// benchmark's minutes of imports are paid once across runs. name must be
// a plain identifier (letters, digits, underscores).
func OpenDatabase(ctx context.Context, adminURL, name string) (*Database, error) {
	if name == "" || strings.TrimLeft(strings.ToLower(name), "abcdefghijklmnopqrstuvwxyz0123456789_") != "" ||
		name[0] >= '0' && name[0] <= '9' {
		return nil, fmt.Errorf("database name %q: want letters, digits and underscores, not starting with a digit", name)
	}
	return openDatabase(ctx, adminURL, strings.ToLower(name))
}

func openDatabase(ctx context.Context, adminURL, name string) (*Database, error) {
	u, err := url.Parse(adminURL)
	if err != nil {
		return nil, fmt.Errorf("database URL: %w", err)
	}
	if host := u.Hostname(); host != "localhost" {
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			return nil, fmt.Errorf("database URL: %q is not on loopback; the benchmark runs on one machine", host)
		}
	}
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", u.Redacted(), err)
	}
	defer conn.Close(ctx)
	d := &Database{Admin: adminURL, Name: name, Keep: name != ""}
	if d.Name == "" {
		d.Name = "glmcp_bench_" + RandomHex(6)
	} else if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&d.Existed); err != nil {
		return nil, fmt.Errorf("look up database %s: %w", name, err)
	}
	if !d.Existed {
		if _, err := conn.Exec(ctx, "CREATE DATABASE "+d.Name); err != nil {
			return nil, fmt.Errorf("create database: %w", err)
		}
	}
	u.Path = "/" + d.Name
	d.URL = u.String()
	return d, nil
}

// Drop drops the database (nil or Keep: nothing), reporting a failure on
// stderr.
func (d *Database) Drop() {
	if d == nil || d.Keep {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, d.Admin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "drop database:", err)
		return
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+d.Name+" WITH (FORCE)"); err != nil {
		fmt.Fprintln(os.Stderr, "drop database:", err)
	}
}

// BuildGlmcp builds ./cmd/glmcp of the repository at root into dir.
func BuildGlmcp(ctx context.Context, root, dir string) (string, error) {
	bin := filepath.Join(dir, "glmcp")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/glmcp")
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build ./cmd/glmcp: %w", err)
	}
	return bin, nil
}

// Glmcp is the glmcp binary on its own database, with its repositories
// under Dir/repositories.
type Glmcp struct {
	Bin, Dir string
	Env      []string
	Addr     string // serving address, once Serve returned
	Proc     *Proc
}

// NewGlmcp configures bin for db (a fresh secret, or a fixed one for a
// kept database; rate limit off, JSON logs) and migrates the database.
func NewGlmcp(ctx context.Context, bin, dir string, db *Database) (*Glmcp, error) {
	secret := "bench-" + RandomHex(24)
	if db.Keep {
		// A kept database refuses any secret but the one it was set up
		// with: the same one on every run (a benchmark on loopback).
		secret = "glmcp-bench-kept-" + db.Name + "-0123456789abcdef"
	}
	g := &Glmcp{Bin: bin, Dir: dir, Env: append(os.Environ(),
		"GLMCP_DATABASE_URL="+db.URL,
		"GLMCP_REPOSITORIES_PATH="+repositoriesUnder(dir),
		"GLMCP_SECRET="+secret,
		"GLMCP_RATE_LIMIT=0",
		"GLMCP_LOG_FORMAT=json",
	)}
	if err := os.MkdirAll(g.Repositories(), 0o700); err != nil {
		return nil, err
	}
	if _, err := g.Run(ctx, "migrate"); err != nil {
		return nil, err
	}
	return g, nil
}

func repositoriesUnder(dir string) string { return filepath.Join(dir, "repositories") }

// Repositories is the directory of the projects' git repositories.
func (g *Glmcp) Repositories() string { return repositoriesUnder(g.Dir) }

// Command is glmcp with args in g's environment.
func (g *Glmcp) Command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, g.Bin, args...)
	cmd.Env = g.Env
	return cmd
}

// Run runs glmcp with args and returns its stdout.
func (g *Glmcp) Run(ctx context.Context, args ...string) (string, error) {
	cmd := g.Command(ctx, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("glmcp %s: %w\n%s", strings.Join(args, " "), err, errb.Bytes())
	}
	return out.String(), nil
}

// Token mints a personal access token for user with scopes (e.g. "mcp").
func (g *Glmcp) Token(ctx context.Context, user, scopes string) (string, error) {
	out, err := g.Run(ctx, "tokens", "create", "--user", user, "--scopes", scopes, "--name", "bench")
	if err != nil {
		return "", err
	}
	token := strings.TrimSpace(out)
	if token == "" || strings.ContainsAny(token, " \n") {
		return "", fmt.Errorf("tokens create printed %q, want one token", out)
	}
	return token, nil
}

// Serve starts `glmcp serve` on a free loopback port, logging (JSON, level
// info: one access-log line per request, as in production) to
// Dir/glmcp.log, and waits until it is ready.
func (g *Glmcp) Serve(ctx context.Context) error {
	port, err := FreePort()
	if err != nil {
		return err
	}
	g.Addr = "127.0.0.1:" + strconv.Itoa(port)
	logf, err := os.Create(filepath.Join(g.Dir, "glmcp.log"))
	if err != nil {
		return err
	}
	cmd := exec.Command(g.Bin, "serve", "--listen", g.Addr)
	cmd.Env = g.Env
	cmd.Stdout, cmd.Stderr = logf, logf
	p, err := Start("glmcp", cmd)
	logf.Close()
	if err != nil {
		return err
	}
	g.Proc = p
	deadline := time.Now().Add(60 * time.Second)
	for {
		res, err := http.Get("http://" + g.Addr + "/-/readiness")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-p.done:
			return fmt.Errorf("glmcp serve exited; see its log")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return errors.New("glmcp serve: not ready after 60 s")
		}
	}
}

// FreePort is a TCP port free on 127.0.0.1 just now.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// RandomHex is n random bytes in hex.
func RandomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Workspace is a temporary directory with the glmcp binary built into it,
// and a fresh database; Close removes both.
type Workspace struct {
	Dir, Bin string
	DB       *Database
}

// NewWorkspace builds ./cmd/glmcp of the repository at root into a new
// temporary directory and creates a database next to adminURL's.
func NewWorkspace(ctx context.Context, root, adminURL string) (*Workspace, error) {
	return NewWorkspaceDB(ctx, root, adminURL, "")
}

// NewWorkspaceDB is NewWorkspace on the kept database dbName
// (OpenDatabase), or on a fresh one when dbName is empty.
func NewWorkspaceDB(ctx context.Context, root, adminURL, dbName string) (*Workspace, error) {
	dir, err := os.MkdirTemp("", "glmcp-bench-")
	if err != nil {
		return nil, err
	}
	w := &Workspace{Dir: dir}
	fmt.Fprintln(os.Stderr, "# building glmcp")
	if w.Bin, err = BuildGlmcp(ctx, root, dir); err == nil {
		if dbName == "" {
			w.DB, err = CreateDatabase(ctx, adminURL)
		} else {
			w.DB, err = OpenDatabase(ctx, adminURL, dbName)
		}
	}
	if err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// Close drops the database (unless kept) and removes the directory.
func (w *Workspace) Close() {
	w.DB.Drop()
	_ = os.RemoveAll(w.Dir)
}

// LoadAverage is the 1, 5 and 15 minute load averages ("?" unknown).
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
