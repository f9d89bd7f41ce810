package main

import (
	"bufio"
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

// proc is a server process this program started; stop ends it.
type proc struct {
	name  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{}
}

// start runs cmd as a child that dies with this process (see
// setParentDeath) and whose stdin is a pipe held open until stop.
func start(name string, cmd *exec.Cmd) (*proc, error) {
	setParentDeath(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, stdin: stdin, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	return p, nil
}

// stop sends SIGTERM, waits up to 10 s, then kills.
func (p *proc) stop() {
	if p == nil {
		return
	}
	_ = p.stdin.Close()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// memory returns the process's resident set now and at its peak, in
// bytes, from /proc (0 where unavailable).
func (p *proc) memory() (rss, peak int64) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
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

// startPeer starts this program again with -serve mode -file file and
// returns the address it printed.
func startPeer(self, mode, file string) (*proc, string, error) {
	cmd := exec.Command(self, "-serve", mode, "-file", file)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	p, err := start(mode, cmd)
	if err != nil {
		return nil, "", err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		p.stop()
		return nil, "", fmt.Errorf("%s peer: %w", mode, err)
	}
	addr, err := peerAddr(line)
	if err != nil {
		p.stop()
		return nil, "", err
	}
	return p, addr, nil
}

// database is a fresh PostgreSQL database, dropped by drop.
type database struct {
	admin, name, url string
}

// createDatabase creates a database with a fresh name next to the one
// adminURL names.
func createDatabase(ctx context.Context, adminURL string) (*database, error) {
	u, err := url.Parse(adminURL)
	if err != nil {
		return nil, fmt.Errorf("database URL: %w", err)
	}
	if host := u.Hostname(); host != "localhost" {
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			return nil, fmt.Errorf("database URL: %q is not on loopback; the comparison runs on one machine", host)
		}
	}
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", u.Redacted(), err)
	}
	defer conn.Close(ctx)
	name := "glmcp_bench_" + randomHex(6)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return nil, fmt.Errorf("create database: %w", err)
	}
	u.Path = "/" + name
	return &database{admin: adminURL, name: name, url: u.String()}, nil
}

func (d *database) drop() {
	if d == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, d.admin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "drop database:", err)
		return
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+d.name+" WITH (FORCE)"); err != nil {
		fmt.Fprintln(os.Stderr, "drop database:", err)
	}
}

// sessionCounter reads pg_stat_database.sessions of one database over a
// connection of its own, opened once (so it is not counted again).
type sessionCounter struct {
	conn *pgx.Conn
	name string
}

func newSessionCounter(ctx context.Context, d *database) (*sessionCounter, error) {
	conn, err := pgx.Connect(ctx, d.url)
	if err != nil {
		return nil, err
	}
	return &sessionCounter{conn: conn, name: d.name}, nil
}

// sessions returns the number of sessions ever opened on the database.
// (A new backend reports its session when it first goes idle, i.e. after
// its first statement.)
func (s *sessionCounter) sessions(ctx context.Context) (int64, error) {
	var n int64
	err := s.conn.QueryRow(ctx, "SELECT sessions FROM pg_stat_database WHERE datname = $1", s.name).Scan(&n)
	return n, err
}

type sessionWindow struct {
	perSecond float64
	err       error
}

// window waits wait, then counts the sessions opened during the next
// length, per second.
func (s *sessionCounter) window(ctx context.Context, wait, length time.Duration) sessionWindow {
	time.Sleep(wait)
	s0, err := s.sessions(ctx)
	if err != nil {
		return sessionWindow{err: err}
	}
	began := time.Now()
	time.Sleep(length)
	s1, err := s.sessions(ctx)
	if err != nil {
		return sessionWindow{err: err}
	}
	return sessionWindow{perSecond: float64(s1-s0) / time.Since(began).Seconds()}
}

func (s *sessionCounter) close() { _ = s.conn.Close(context.Background()) }

// glmcpServer is the glmcp binary on its own database.
type glmcpServer struct {
	bin, dir string
	env      []string
	token    string
	addr     string
	proc     *proc
}

// buildGlmcp builds ./cmd/glmcp of the repository at root into dir.
func buildGlmcp(ctx context.Context, root, dir string) (string, error) {
	bin := filepath.Join(dir, "glmcp")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/glmcp")
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build ./cmd/glmcp: %w", err)
	}
	return bin, nil
}

// prepareGlmcp migrates and seeds db (the demo world) and mints a token
// for alice with the mcp scope, through glmcp's own CLI.
func prepareGlmcp(ctx context.Context, bin, dir string, db *database) (*glmcpServer, error) {
	g := &glmcpServer{bin: bin, dir: dir, env: append(os.Environ(),
		"GLMCP_DATABASE_URL="+db.url,
		// The demo projects' git repositories (required with PostgreSQL).
		"GLMCP_REPOSITORIES_PATH="+filepath.Join(dir, "repositories"),
		"GLMCP_SECRET=bench-"+randomHex(24),
		"GLMCP_RATE_LIMIT=0",
		"GLMCP_LOG_FORMAT=json",
	)}
	if err := os.MkdirAll(filepath.Join(dir, "repositories"), 0o700); err != nil {
		return nil, err
	}
	if _, err := g.run(ctx, "migrate"); err != nil {
		return nil, err
	}
	if _, err := g.run(ctx, "seed", "--demo"); err != nil {
		return nil, err
	}
	out, err := g.run(ctx, "tokens", "create", "--user", "alice", "--scopes", "mcp", "--name", "bench")
	if err != nil {
		return nil, err
	}
	g.token = strings.TrimSpace(out)
	if g.token == "" || strings.ContainsAny(g.token, " \n") {
		return nil, fmt.Errorf("tokens create printed %q, want one token", out)
	}
	return g, nil
}

func (g *glmcpServer) run(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, g.bin, args...)
	cmd.Env = g.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("glmcp %s: %w\n%s", strings.Join(args, " "), err, errb.Bytes())
	}
	return out.String(), nil
}

// serve starts `glmcp serve` on a free loopback port, logging (JSON, level
// info: one access-log line per request, as in production) to a file, and
// waits until it is ready.
func (g *glmcpServer) serve(ctx context.Context) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	g.addr = "127.0.0.1:" + strconv.Itoa(port)
	logf, err := os.Create(filepath.Join(g.dir, "glmcp.log"))
	if err != nil {
		return err
	}
	cmd := exec.Command(g.bin, "serve", "--listen", g.addr)
	cmd.Env = g.env
	cmd.Stdout, cmd.Stderr = logf, logf
	p, err := start("glmcp", cmd)
	logf.Close()
	if err != nil {
		return err
	}
	g.proc = p
	deadline := time.Now().Add(60 * time.Second)
	for {
		res, err := http.Get("http://" + g.addr + "/-/readiness")
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

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
