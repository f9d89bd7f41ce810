package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/jackc/pgx/v5"

	"gitlab.com/glmcp/glmcp/bench/harness"
)

// startPeer starts this program again with -serve mode -file file and
// returns the address it printed.
func startPeer(self, mode, file string) (*harness.Proc, string, error) {
	cmd := exec.Command(self, "-serve", mode, "-file", file)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	p, err := harness.Start(mode, cmd)
	if err != nil {
		return nil, "", err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		p.Stop()
		return nil, "", fmt.Errorf("%s peer: %w", mode, err)
	}
	addr, err := peerAddr(line)
	if err != nil {
		p.Stop()
		return nil, "", err
	}
	return p, addr, nil
}

// sessionCounter reads pg_stat_database.sessions of one database over a
// connection of its own, opened once (so it is not counted again).
type sessionCounter struct {
	conn *pgx.Conn
	name string
}

func newSessionCounter(ctx context.Context, d *harness.Database) (*sessionCounter, error) {
	conn, err := pgx.Connect(ctx, d.URL)
	if err != nil {
		return nil, err
	}
	return &sessionCounter{conn: conn, name: d.Name}, nil
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

// glmcpServer is the glmcp binary on its own database and alice's token.
type glmcpServer struct {
	*harness.Glmcp
	token string
}

// prepareGlmcp migrates and seeds db (the demo world) and mints a token
// for alice with the mcp scope, through glmcp's own CLI.
func prepareGlmcp(ctx context.Context, bin, dir string, db *harness.Database) (*glmcpServer, error) {
	g, err := harness.NewGlmcp(ctx, bin, dir, db)
	if err != nil {
		return nil, err
	}
	// The demo projects' git repositories are under g.Repositories().
	if _, err := g.Run(ctx, "seed", "--demo"); err != nil {
		return nil, err
	}
	token, err := g.Token(ctx, "alice", "mcp")
	if err != nil {
		return nil, err
	}
	return &glmcpServer{Glmcp: g, token: token}, nil
}
