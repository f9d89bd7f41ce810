package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// row is one work measured.
type row struct {
	work
	cold, glmcp, git time.Duration // glmcp's first call; medians of the warm runs
	err              error         // a failed call or a wrong answer: not timed
}

func (r row) ratio() float64 {
	if r.git <= 0 {
		return 0
	}
	return float64(r.glmcp) / float64(r.git)
}

// maxRatio is the bar of #19: every repository tool within 1.5× git.
const maxRatio = 1.5

// measure times w: git once unmeasured (its output is the expected
// answer), glmcp's first call (cold) checked against it, then runs
// alternating warm calls of each, checked too.
func measure(ctx context.Context, c *client, repo string, w work, runs int) row {
	r := row{work: w}
	want, err := gitOut(ctx, repo, w.gitArgs...)
	if err != nil {
		r.err = err
		return r
	}
	glmcpOnce := func() (time.Duration, error) {
		began := time.Now()
		res, err := w.do()
		took := time.Since(began)
		if err == nil {
			err = w.check(res, want)
		}
		return took, err
	}
	if r.cold, r.err = glmcpOnce(); r.err != nil {
		return r
	}
	var gs, gits []time.Duration
	for range runs {
		took, err := glmcpOnce()
		if err != nil {
			r.err = err
			return r
		}
		gs = append(gs, took)
		began := time.Now()
		out, err := gitOut(ctx, repo, w.gitArgs...)
		gits = append(gits, time.Since(began))
		if err == nil && out != want {
			err = fmt.Errorf("git %s answered differently on a second run", strings.Join(w.gitArgs, " "))
		}
		if err != nil {
			r.err = err
			return r
		}
	}
	r.glmcp, r.git = median(gs), median(gits)
	return r
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// processWatch samples, every 50 ms, how many processes descend from a
// process (git children of glmcp serve, if it runs any).
type processWatch struct {
	done        chan struct{}
	wg          sync.WaitGroup
	mu          sync.Mutex
	spawned     map[int]bool // every descendant pid seen
	most        int          // descendants alive at once, at most
	stoppedOnce sync.Once
}

func watchProcesses(root int) *processWatch {
	w := &processWatch{done: make(chan struct{}), spawned: map[int]bool{}}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			d := descendants(root)
			w.mu.Lock()
			for _, pid := range d {
				w.spawned[pid] = true
			}
			w.most = max(w.most, len(d))
			w.mu.Unlock()
			select {
			case <-w.done:
				return
			case <-t.C:
			}
		}
	}()
	return w
}

// stop ends the sampling and returns the descendants seen in all and at
// most at once.
func (w *processWatch) stop() (seen, most int) {
	w.stoppedOnce.Do(func() { close(w.done) })
	w.wg.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.spawned), w.most
}

// descendants lists the pids below root, from /proc/*/stat.
func descendants(root int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		s := string(raw)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		if ppid, err := strconv.Atoi(f[1]); err == nil {
			parent[pid] = ppid
		}
	}
	var out []int
	for pid := range parent {
		for p := parent[pid]; p > 1; p = parent[p] {
			if p == root {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}
