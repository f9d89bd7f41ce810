// Package redistest starts a private redis-server for a test: on a free
// loopback port, without persistence, stopped when the test ends. Tests
// that need Redis skip when redis-server is not installed, except under
// CI=true, where they fail (scripts/test installs it).
package redistest

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Server is a redis-server started by Start.
type Server struct {
	t    testing.TB
	Addr string // 127.0.0.1:PORT
	dir  string
	cmd  *exec.Cmd
}

// Start starts redis-server for t and stops it when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("redis-server is not installed and CI=true: the Redis tests must run in CI (apt-get install redis-server)")
		}
		t.Skip("redis-server is not installed (apt-get install redis-server); skipping the Redis tests")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	s := &Server{t: t, Addr: addr, dir: t.TempDir()}
	s.start()
	t.Cleanup(s.Stop)
	return s
}

// URL is the server's redis:// URL.
func (s *Server) URL() string { return "redis://" + s.Addr + "/0" }

// start runs redis-server on s.Addr and waits until it answers PING.
func (s *Server) start() {
	s.t.Helper()
	_, port, _ := net.SplitHostPort(s.Addr)
	s.cmd = exec.Command("redis-server", "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", s.dir, "--protected-mode", "no", "--loglevel", "warning")
	s.cmd.Stdout, s.cmd.Stderr = nil, nil
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("start redis-server: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if s.ping() == nil {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("redis-server on %s did not answer within 10s", s.Addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ping sends PING over a fresh connection.
func (s *Server) ping() error {
	c, err := net.DialTimeout("tcp", s.Addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(line) != "+PONG" {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

// Stop kills the server (its data is lost: it keeps none) and waits for
// it. Stopping a stopped server does nothing.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGCONT) // a paused server cannot die otherwise
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Restart starts a stopped server again on the same address, empty.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	s.start()
}

// Pause freezes the server (SIGSTOP): connections open, nothing answered.
func (s *Server) Pause() { _ = s.cmd.Process.Signal(syscall.SIGSTOP) }

// Resume thaws a paused server (SIGCONT).
func (s *Server) Resume() { _ = s.cmd.Process.Signal(syscall.SIGCONT) }

// Do runs one command with redis-cli and returns its output, trimmed.
func (s *Server) Do(args ...string) string {
	s.t.Helper()
	host, port, _ := net.SplitHostPort(s.Addr)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "redis-cli", append([]string{"-h", host, "-p", port}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("redis-cli %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// Int is Do for a command answering an integer.
func (s *Server) Int(args ...string) int {
	s.t.Helper()
	out := s.Do(args...)
	n, err := strconv.Atoi(out)
	if err != nil {
		s.t.Fatalf("redis-cli %s: %q is not an integer", strings.Join(args, " "), out)
	}
	return n
}
