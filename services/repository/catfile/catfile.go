// Package catfile reads git objects through git itself: long-lived
// `git cat-file --batch-command` processes, kept per repository in a
// bounded pool and reused across requests, the way Gitaly's catfile cache
// does. git sees a consistent object store whatever runs beside it: a
// lookup that misses rescans the pack directory, and a pack it opened
// stays readable after a repack deletes it. So a read through here is
// correct while another process writes objects or repacks.
//
// A process serves one request at a time. It goes back to the pool only
// when its answer was read to the end; one whose reader stopped midway, or
// whose request's context ended, is killed, never reused (its pipe holds
// the rest of an answer). Idle processes are killed after IdleTimeout,
// and every process is recycled after MaxAge or MaxRequests, so the packs
// a repack deleted are not held open for long.
//
// Processes start through a gitcmd.Runner (argv only, its scrubbed
// environment, killed with glmcp) as pooled processes: they take none of
// the runner's slots; MaxProcesses bounds them instead.
package catfile

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"gitlab.com/glmcp/glmcp/services/repository/gitcmd"
)

// ErrMissing is an object the repository does not have.
var ErrMissing = errors.New("object missing")

// ErrAmbiguous is an abbreviated object id that names more than one
// object.
var ErrAmbiguous = errors.New("object name ambiguous")

// ErrClosed is a read from a pool that was closed.
var ErrClosed = errors.New("object reader pool closed")

// Info is an object's id, type ("commit", "tree", "blob", "tag") and size.
type Info struct {
	OID  string
	Type string
	Size int64
}

// Options bound a Pool; zero values take the defaults.
type Options struct {
	// MaxProcesses bounds the cat-file processes alive at once, idle or
	// busy (default 32). A request past it takes an idle process of
	// another repository, or waits for one to end within its context.
	MaxProcesses int
	// MaxIdlePerRepository bounds the idle processes kept per repository
	// (default 4).
	MaxIdlePerRepository int
	// IdleTimeout ends a process idle that long (default 10 s).
	IdleTimeout time.Duration
	// MaxAge ends a process that old at its next return (default 1 min).
	MaxAge time.Duration
	// MaxRequests ends a process after that many requests (default 10,000).
	MaxRequests int
}

func (o Options) withDefaults() Options {
	if o.MaxProcesses <= 0 {
		o.MaxProcesses = 32
	}
	if o.MaxIdlePerRepository <= 0 {
		o.MaxIdlePerRepository = 4
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 10 * time.Second
	}
	if o.MaxAge <= 0 {
		o.MaxAge = time.Minute
	}
	if o.MaxRequests <= 0 {
		o.MaxRequests = 10000
	}
	return o
}

// Pool keeps cat-file processes per repository directory. It is safe for
// concurrent use.
type Pool struct {
	git   *gitcmd.Runner
	opt   Options
	slots chan struct{}

	mu     sync.Mutex
	idle   map[string][]*process // by repository, most recently used last
	closed bool

	started atomic.Int64
	killed  atomic.Int64
}

// New returns an empty pool that starts git with r.
func New(r *gitcmd.Runner, opt Options) *Pool {
	opt = opt.withDefaults()
	return &Pool{git: r, opt: opt, slots: make(chan struct{}, opt.MaxProcesses), idle: map[string][]*process{}}
}

// Stats counts processes: started in all, ended in all, idle now.
type Stats struct {
	Started, Ended int64
	Idle           int
}

// Stats returns the pool's counts.
func (p *Pool) Stats() Stats {
	p.mu.Lock()
	n := 0
	for _, l := range p.idle {
		n += len(l)
	}
	p.mu.Unlock()
	return Stats{Started: p.started.Load(), Ended: p.killed.Load(), Idle: n}
}

// Close ends every idle process; a busy one ends when its request does.
// Reads after Close fail with ErrClosed.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	idle := p.idle
	p.idle = map[string][]*process{}
	p.mu.Unlock()
	for _, list := range idle {
		for _, pr := range list {
			pr.timer.Stop()
			pr.kill()
		}
	}
}
