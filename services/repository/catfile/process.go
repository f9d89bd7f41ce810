package catfile

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"gitlab.com/glmcp/glmcp/services/repository/gitcmd"
)

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
