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
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
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

// Evict ends the idle processes of repository dir (about to be removed
// or replaced).
func (p *Pool) Evict(dir string) {
	p.mu.Lock()
	list := p.idle[dir]
	delete(p.idle, dir)
	p.mu.Unlock()
	for _, pr := range list {
		pr.timer.Stop()
		pr.kill()
	}
}

// process is one cat-file --batch-command.
type process struct {
	pool     *Pool
	dir      string
	cmd      *gitcmd.Process
	in       io.Writer
	out      *bufio.Reader
	born     time.Time
	requests int
	timer    *time.Timer // idle eviction, while in the pool
	once     sync.Once
}

// kill ends the process (at most once) and frees its slot.
func (pr *process) kill() {
	pr.once.Do(func() {
		_ = pr.cmd.Close()
		pr.pool.killed.Add(1)
		<-pr.pool.slots
	})
}

func (pr *process) worn(now time.Time) bool {
	return now.Sub(pr.born) >= pr.pool.opt.MaxAge || pr.requests >= pr.pool.opt.MaxRequests
}

// get returns an idle process of dir, or starts one.
func (p *Pool) get(ctx context.Context, dir string) (*process, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now := time.Now()
	p.mu.Lock()
	for {
		if p.closed {
			p.mu.Unlock()
			return nil, ErrClosed
		}
		list := p.idle[dir]
		if len(list) == 0 {
			break
		}
		pr := list[len(list)-1]
		p.setIdle(dir, list[:len(list)-1])
		pr.timer.Stop() // an eviction already under way finds it gone
		if !pr.worn(now) {
			p.mu.Unlock()
			return pr, nil
		}
		p.mu.Unlock()
		pr.kill()
		p.mu.Lock()
	}
	p.mu.Unlock()
	return p.start(ctx, dir)
}

func (p *Pool) setIdle(dir string, list []*process) {
	if len(list) == 0 {
		delete(p.idle, dir)
	} else {
		p.idle[dir] = list
	}
}

// start starts a process for dir once a slot is free, ending the oldest
// idle process of another repository to free one when none is.
func (p *Pool) start(ctx context.Context, dir string) (*process, error) {
	for {
		select {
		case p.slots <- struct{}{}:
		default:
			if p.evictOldest() {
				continue
			}
			select {
			case p.slots <- struct{}{}:
			case <-ctx.Done():
				return nil, fmt.Errorf("waiting for a cat-file process: %w", ctx.Err())
			}
		}
		break
	}
	cmd, err := p.git.Start(context.Background(), gitcmd.Cmd{Dir: dir, Name: "cat-file",
		Flags: []string{"--batch-command"}, Pooled: true, StdinPipe: true})
	if err != nil {
		<-p.slots
		return nil, err
	}
	p.started.Add(1)
	return &process{pool: p, dir: dir, cmd: cmd, in: cmd.Stdin(), out: bufio.NewReaderSize(cmd.Stdout(), 64<<10),
		born: time.Now()}, nil
}

// evictOldest ends one idle process, the one returned longest ago, and
// reports whether there was one.
func (p *Pool) evictOldest() bool {
	p.mu.Lock()
	var victim *process
	var at time.Time
	for _, list := range p.idle {
		if len(list) > 0 && (victim == nil || list[0].born.Before(at)) {
			victim, at = list[0], list[0].born
		}
	}
	if victim != nil {
		p.setIdle(victim.dir, p.idle[victim.dir][1:])
	}
	p.mu.Unlock()
	if victim == nil {
		return false
	}
	victim.timer.Stop()
	victim.kill()
	return true
}

// put takes pr back after a request answered whole, or ends it.
func (p *Pool) put(pr *process) {
	if pr.worn(time.Now()) {
		pr.kill()
		return
	}
	p.mu.Lock()
	if p.closed || len(p.idle[pr.dir]) >= p.opt.MaxIdlePerRepository {
		p.mu.Unlock()
		pr.kill()
		return
	}
	p.idle[pr.dir] = append(p.idle[pr.dir], pr)
	pr.timer = time.AfterFunc(p.opt.IdleTimeout, func() { p.expire(pr) })
	p.mu.Unlock()
}

// expire ends pr if it is still idle.
func (p *Pool) expire(pr *process) {
	p.mu.Lock()
	list := p.idle[pr.dir]
	found := false
	for i, q := range list {
		if q == pr {
			p.setIdle(pr.dir, append(list[:i:i], list[i+1:]...))
			found = true
			break
		}
	}
	p.mu.Unlock()
	if found {
		pr.kill()
	}
}

// request is one command on a process checked out for ctx. Until done is
// called, the end of ctx kills the process.
type request struct {
	pool *Pool
	pr   *process
	ctx  context.Context
	stop func() bool
}

func (p *Pool) begin(ctx context.Context, dir, verb, name string) (*request, Info, error) {
	if name == "" || strings.ContainsAny(name, "\n\x00 ") {
		return nil, Info{}, fmt.Errorf("object name %q: %w", name, ErrMissing)
	}
	pr, err := p.get(ctx, dir)
	if err != nil {
		return nil, Info{}, err
	}
	r := &request{pool: p, pr: pr, ctx: ctx, stop: context.AfterFunc(ctx, pr.kill)}
	pr.requests++
	if _, err := io.WriteString(pr.in, verb+" "+name+"\n"); err != nil {
		return nil, Info{}, r.done(err)
	}
	info, err := r.header()
	if errors.Is(err, ErrMissing) || errors.Is(err, ErrAmbiguous) {
		// The whole answer was the header: the process is clean.
		return nil, Info{}, fmt.Errorf("object %s: %w", name, r.done(err))
	}
	if err != nil {
		return nil, Info{}, r.done(err)
	}
	return r, info, nil
}

// header reads "<oid> <type> <size>", "<name> missing" or "<name>
// ambiguous".
func (r *request) header() (Info, error) {
	line, err := r.pr.out.ReadString('\n')
	if err != nil {
		return Info{}, fmt.Errorf("read cat-file answer: %w", err)
	}
	line = strings.TrimSuffix(line, "\n")
	switch {
	case strings.HasSuffix(line, " missing"):
		return Info{}, ErrMissing
	case strings.HasSuffix(line, " ambiguous"):
		return Info{}, ErrAmbiguous
	}
	f := strings.Fields(line)
	if len(f) != 3 {
		return Info{}, fmt.Errorf("cat-file answered %q", line)
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || size < 0 {
		return Info{}, fmt.Errorf("cat-file answered %q", line)
	}
	return Info{OID: f[0], Type: f[1], Size: size}, nil
}

// done ends the request: the process goes back to the pool when err is
// nil or an object's absence (the answer was read whole), else it is
// killed. A request whose context ended answers the context's error.
func (r *request) done(err error) error {
	if !r.stop() {
		r.pr.kill() // the context ended: the kill is under way
		if cerr := r.ctx.Err(); cerr != nil {
			return cerr
		}
	}
	if err == nil || errors.Is(err, ErrMissing) || errors.Is(err, ErrAmbiguous) {
		r.pool.put(r.pr)
		return err
	}
	r.pr.kill()
	return err
}

// Info returns the type and size of the object name names (an object id,
// full or abbreviated): ErrMissing when there is none.
func (p *Pool) Info(ctx context.Context, dir, name string) (Info, error) {
	r, info, err := p.begin(ctx, dir, "info", name)
	if err != nil {
		return Info{}, err
	}
	return info, r.done(nil)
}

// Read returns the object name names, whole, when it is at most max
// bytes. A larger one is only described (its content nil) and the
// process that began to send it is ended: ask Info first when an object
// may be large.
func (p *Pool) Read(ctx context.Context, dir, name string, max int64) (Info, []byte, error) {
	info, rc, err := p.Open(ctx, dir, name)
	if err != nil {
		return Info{}, nil, err
	}
	if info.Size > max {
		rc.Close()
		return info, nil, nil
	}
	b := make([]byte, info.Size)
	if _, err := io.ReadFull(rc, b); err != nil {
		rc.Close()
		return Info{}, nil, err
	}
	return info, b, rc.Close()
}

// Open starts reading the object name names. The reader holds a process
// until it is closed: read it to io.EOF and Close it to give the process
// back; a Close before the end kills the process.
func (p *Pool) Open(ctx context.Context, dir, name string) (Info, io.ReadCloser, error) {
	r, info, err := p.begin(ctx, dir, "contents", name)
	if err != nil {
		return Info{}, nil, err
	}
	return info, &reader{req: r, left: info.Size}, nil
}

// reader is an object's content on a process's output.
type reader struct {
	req    *request
	left   int64
	err    error
	closed bool
}

func (r *reader) Read(b []byte) (int, error) {
	if r.closed {
		return 0, ErrClosed
	}
	if r.err != nil {
		return 0, r.err
	}
	if r.left == 0 {
		return 0, io.EOF
	}
	if int64(len(b)) > r.left {
		b = b[:r.left]
	}
	n, err := r.req.pr.out.Read(b)
	r.left -= int64(n)
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		if cerr := r.req.ctx.Err(); cerr != nil {
			err = cerr
		}
		r.err = fmt.Errorf("read object: %w", err)
		return n, r.err
	}
	return n, nil
}

// Close gives the process back when the content was read whole (its
// closing newline is consumed here), and kills it otherwise.
func (r *reader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	err := r.err
	if err == nil && r.left > 0 {
		err = errors.New("object read stopped midway")
	}
	if err == nil {
		if c, rerr := r.req.pr.out.ReadByte(); rerr != nil || c != '\n' {
			err = fmt.Errorf("cat-file answer not terminated: %v", rerr)
		}
	}
	derr := r.req.done(err)
	if r.err == nil && r.left > 0 {
		return nil // the caller chose to stop: not an error
	}
	if r.err != nil {
		return nil // Read reported it already
	}
	return derr
}
