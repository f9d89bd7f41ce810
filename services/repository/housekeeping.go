package repository

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"gitlab.com/glmcp/glmcp/services/repository/gitcmd"
)

// Housekeeping keeps a repository fast to read as it grows, as Gitaly's
// housekeeping does: packed refs, loose objects packed and packs merged
// geometrically past thresholds, and a commit-graph with changed-path
// Bloom filters for every reachable commit (what makes `git log -- path`
// skip the commits that do not touch it). Nothing depends on it having
// run: a repository never maintained answers the same, only slower.
//
// Jobs run in the background, at most one per repository at a time (a
// request while one runs makes it run once more after, never queues
// more) and at most HousekeepingConcurrency in the process. Two
// processes (or glmcp and an operator's git gc) maintaining one
// repository exclude each other through git's own lock files; the loser
// of such a race logs it at debug level and leaves the work to the
// winner.
type Housekeeper struct {
	storage *Storage
	logger  *slog.Logger
	sem     chan struct{}

	mu      sync.Mutex
	jobs    map[int64]*hkJob // running or pending, by project
	checked map[int64]bool   // repositories looked at for a commit-graph
	writes  map[int64]int    // ref updates since the last job
	closed  bool
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	runHook func(projectID int64) // tests: called as each job starts
}

type hkJob struct{ again bool }

// Housekeeping thresholds.
const (
	// HousekeepingConcurrency bounds the jobs running at once.
	HousekeepingConcurrency = 1
	// housekeepingEveryWrites schedules a job after this many ref updates
	// made by glmcp in one repository.
	housekeepingEveryWrites = 50
	// looseObjectsLimit: more loose objects are packed (git repack -d).
	looseObjectsLimit = 256
	// packsLimit: more packs are merged (git repack --geometric=2 -d).
	packsLimit = 8
	// housekeepingTimeout bounds one job.
	housekeepingTimeout = 30 * time.Minute
)

func newHousekeeper(s *Storage) *Housekeeper {
	ctx, cancel := context.WithCancel(context.Background())
	return &Housekeeper{storage: s, sem: make(chan struct{}, HousekeepingConcurrency),
		jobs: map[int64]*hkJob{}, writes: map[int64]int{}, checked: map[int64]bool{}, ctx: ctx, cancel: cancel}
}

// Housekeeping returns the storage's housekeeper.
func (s *Storage) Housekeeping() *Housekeeper { return s.hk }

// SetLogger sets where job failures are logged.
func (h *Housekeeper) SetLogger(l *slog.Logger) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.logger = l
}

// Schedule asks for a job on project id's repository in the background.
func (h *Housekeeper) Schedule(projectID int64, reason string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || projectID <= 0 {
		return
	}
	if j, ok := h.jobs[projectID]; ok {
		j.again = true
		return
	}
	h.jobs[projectID] = &hkJob{}
	h.writes[projectID] = 0
	h.wg.Add(1)
	go h.loop(projectID, reason)
}

// noteOpen schedules a job for a repository opened for the first time in
// this process that has history but no commit-graph: one imported (the
// import itself only packs its refs, so it takes git's own time), restored
// from a backup, or pushed to by hand.
func (h *Housekeeper) noteOpen(projectID int64, dir string) {
	h.mu.Lock()
	seen := h.checked[projectID]
	h.checked[projectID] = true
	h.mu.Unlock()
	if seen || hasCommitGraph(dir) || !hasRefs(dir) {
		return
	}
	h.Schedule(projectID, "never maintained")
}

// hasCommitGraph reports whether the repository has a commit-graph, whole
// or split.
func hasCommitGraph(dir string) bool {
	for _, p := range []string{"objects/info/commit-graph", "objects/info/commit-graphs/commit-graph-chain"} {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p))); err == nil {
			return true
		}
	}
	return false
}

// PackRefs packs the repository's refs now (what an import of thousands
// of tags needs before its first request; the rest of the job follows in
// the background of the server that opens it).
func (h *Housekeeper) PackRefs(ctx context.Context, projectID int64) error {
	if !h.storage.Exists(projectID) {
		return fmt.Errorf("repository of project %d does not exist", projectID)
	}
	return h.storage.git.Run(ctx, gitcmd.Cmd{Dir: h.storage.Path(projectID), Name: "pack-refs", Flags: []string{"--all", "--prune"},
		OutliveParent: true})
}

// noteWrite counts a ref update glmcp made and schedules a job every
// housekeepingEveryWrites of them.
func (h *Housekeeper) noteWrite(projectID int64) {
	h.mu.Lock()
	h.writes[projectID]++
	due := h.writes[projectID] >= housekeepingEveryWrites
	h.mu.Unlock()
	if due {
		h.Schedule(projectID, "writes")
	}
}

func (h *Housekeeper) loop(projectID int64, reason string) {
	defer h.wg.Done()
	for {
		select {
		case h.sem <- struct{}{}:
		case <-h.ctx.Done():
			h.finish(projectID)
			return
		}
		err := h.Maintain(h.ctx, projectID)
		<-h.sem
		h.log(projectID, reason, err)
		h.mu.Lock()
		j := h.jobs[projectID]
		if !j.again || h.closed {
			delete(h.jobs, projectID)
			h.mu.Unlock()
			return
		}
		j.again = false
		h.mu.Unlock()
	}
}

func (h *Housekeeper) finish(projectID int64) {
	h.mu.Lock()
	delete(h.jobs, projectID)
	h.mu.Unlock()
}

func (h *Housekeeper) log(projectID int64, reason string, err error) {
	h.mu.Lock()
	l := h.logger
	h.mu.Unlock()
	switch {
	case l == nil, err == nil:
	case errors.Is(err, errBusy):
		l.Debug("housekeeping skipped: another process is maintaining the repository", "project_id", projectID, "reason", reason)
	case errors.Is(err, context.Canceled):
	default:
		l.Warn("housekeeping failed", "project_id", projectID, "reason", reason, "error", err)
	}
}

// Close stops scheduling, cancels the running jobs (git is killed) and
// waits for them.
func (h *Housekeeper) Close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.cancel()
	h.wg.Wait()
}

// errBusy: another process holds one of git's locks the job needs.
var errBusy = errors.New("repository is being maintained by another process")

// Maintain runs a job on project id's repository now and returns when it
// is done (glmcp projects import and projects housekeep).
func (h *Housekeeper) Maintain(ctx context.Context, projectID int64) error {
	if !h.storage.Exists(projectID) {
		return fmt.Errorf("repository of project %d does not exist", projectID)
	}
	if h.runHook != nil {
		h.runHook(projectID)
	}
	ctx, cancel := context.WithTimeout(ctx, housekeepingTimeout)
	defer cancel()
	// What dead writers left would make git's pack-refs or commit-graph
	// fail on their locks for good.
	cleanStale(h.storage.Path(projectID))
	return maintain(ctx, h.storage.git, h.storage.Path(projectID))
}

// maintain is one job on the repository in dir.
func maintain(ctx context.Context, git *gitcmd.Runner, dir string) error {
	run := func(name string, flags ...string) error {
		// pack-refs locks refs git's way: let it finish if glmcp dies.
		err := git.Run(ctx, gitcmd.Cmd{Dir: dir, Name: name, Flags: flags, OutliveParent: name == "pack-refs"})
		if err != nil && strings.Contains(gitcmd.Stderr(err), ".lock") {
			return errBusy
		}
		return err
	}
	if err := run("pack-refs", "--all", "--prune"); err != nil {
		return fmt.Errorf("pack refs: %w", err)
	}
	loose, packs, err := objectCounts(ctx, git, dir)
	if err != nil {
		return err
	}
	switch {
	case packs > packsLimit:
		if err := run("repack", "--geometric=2", "-d", "-q", "--no-write-bitmap-index"); err != nil {
			return fmt.Errorf("repack: %w", err)
		}
	case loose > looseObjectsLimit:
		if err := run("repack", "-d", "-q", "--no-write-bitmap-index"); err != nil {
			return fmt.Errorf("repack: %w", err)
		}
	}
	if err := run("prune-packed", "-q"); err != nil {
		return fmt.Errorf("prune packed objects: %w", err)
	}
	if !hasRefs(dir) {
		return nil // nothing reachable: no commit-graph
	}
	// A new layer with the commits the graph lacks, merged into the
	// layers below while it is at least half their size (git's default
	// --size-multiple); Bloom filters for the new commits.
	if err := run("commit-graph", "write", "--reachable", "--changed-paths", "--split", "--no-progress"); err != nil {
		return fmt.Errorf("write commit-graph: %w", err)
	}
	return nil
}

// objectCounts returns the loose objects and the packs of the repository
// (git count-objects -v).
func objectCounts(ctx context.Context, git *gitcmd.Runner, dir string) (loose, packs int, err error) {
	out, err := git.Output(ctx, gitcmd.Cmd{Dir: dir, Name: "count-objects", Flags: []string{"-v"}})
	if err != nil {
		return 0, 0, fmt.Errorf("count objects: %w", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		n, _ := strconv.Atoi(strings.TrimSpace(v))
		switch k {
		case "count":
			loose = n
		case "packs":
			packs = n
		}
	}
	return loose, packs, nil
}

// hasRefs reports whether the repository has a branch or tag, loose or
// packed.
func hasRefs(dir string) bool {
	if b, err := os.ReadFile(filepath.Join(dir, "packed-refs")); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if line != "" && line[0] != '#' && line[0] != '^' {
				return true
			}
		}
	}
	found := false
	for _, sub := range []string{"heads", "tags"} {
		_ = filepath.WalkDir(filepath.Join(dir, "refs", sub), func(_ string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !strings.HasSuffix(d.Name(), ".lock") {
				found = true
				return filepath.SkipAll
			}
			return nil
		})
	}
	return found
}
