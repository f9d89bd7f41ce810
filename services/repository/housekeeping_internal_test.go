package repository

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/services/repository/gitcmd"
)

// hkRepo makes project 7's repository with a history of n commits, each
// pushed as loose objects and a loose ref, touching a.txt on every commit
// and old.txt only on the first.
func hkRepo(t *testing.T, n int) (*Storage, string) {
	t.Helper()
	st, err := OpenStorage(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ctx := context.Background()
	if err := st.Create(ctx, 7, "main"); err != nil {
		t.Fatal(err)
	}
	dir := st.Path(7)
	// No background job while the history is written: the tests start
	// from a repository nothing maintained.
	st.hk.Close()
	defer func() { st.hk = newHousekeeper(st) }()
	l, err := st.Open(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := range n {
		acts := []Action{{Action: ActionCreate, FilePath: "a.txt", Content: []byte(strings.Repeat("x", i+1))}}
		if i > 0 {
			acts[0].Action = ActionUpdate
		} else {
			acts = append(acts, Action{Action: ActionCreate, FilePath: "old.txt", Content: []byte("old")})
		}
		if _, err := l.CommitFiles(ctx, CommitFilesRequest{Branch: "main", Message: "c", Author: Signature{Name: "A", Email: "a@example.com"}, Actions: acts}); err != nil {
			t.Fatal(err)
		}
		if i%10 == 0 {
			if _, err := l.CreateBranch(ctx, "b"+strings.Repeat("x", i/10+1), "main"); err != nil {
				t.Fatal(err)
			}
		}
	}
	return st, dir
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"--git-dir", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestMaintain_packsAndWritesCommitGraph(t *testing.T) {
	st, dir := hkRepo(t, 300)
	logBefore := gitOut(t, dir, "log", "--format=%H", "main", "--", "old.txt")
	if _, err := os.Stat(filepath.Join(dir, "packed-refs")); err == nil {
		t.Fatal("packed-refs before housekeeping")
	}
	if err := st.Housekeeping().Maintain(context.Background(), 7); err != nil {
		t.Fatal(err)
	}
	counts := gitOut(t, dir, "count-objects", "-v")
	if !strings.Contains(counts, "count: 0\n") || !strings.Contains(counts, "packs: 1\n") {
		t.Errorf("after housekeeping:\n%s", counts)
	}
	if refs, err := os.ReadDir(filepath.Join(dir, "refs", "heads")); err != nil || len(refs) != 0 {
		t.Errorf("loose branches left: %v %v", refs, err)
	}
	if !strings.Contains(gitOut(t, dir, "show-ref"), "refs/heads/bxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx") {
		t.Error("a packed branch is missing")
	}
	if _, err := os.Stat(filepath.Join(dir, "objects", "info", "commit-graphs", "commit-graph-chain")); err != nil {
		t.Errorf("no split commit-graph: %v", err)
	}
	gitOut(t, dir, "commit-graph", "verify")
	// Bloom filters are there: git reads them for a path-limited log.
	trace := exec.Command("git", "--git-dir", dir, "log", "--format=%H", "main", "--", "old.txt")
	trace.Env = append(os.Environ(), "GIT_TRACE2_PERF="+filepath.Join(t.TempDir(), "trace"), "GIT_CONFIG_NOSYSTEM=1")
	out, err := trace.Output()
	if err != nil || strings.TrimSpace(string(out)) != logBefore {
		t.Errorf("log -- old.txt after housekeeping = %q, %v; before %q", out, err, logBefore)
	}
	// A second job with nothing to do keeps everything as it is.
	if err := st.Housekeeping().Maintain(context.Background(), 7); err != nil {
		t.Fatal(err)
	}
	gitOut(t, dir, "fsck", "--strict", "--no-dangling")
	l, err := st.Open(context.Background(), 7)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	page, err := l.Log(context.Background(), LogOptions{Path: "old.txt"})
	if err != nil || len(page.Commits) != 1 {
		t.Errorf("Log(old.txt) = %+v, %v", page, err)
	}
}

// Many requests for one repository run at most one job at a time and at
// most one more after it.
func TestSchedule_oneJobPerRepository(t *testing.T) {
	st, _ := hkRepo(t, 3)
	h := st.Housekeeping()
	var running, maxRunning, runs atomic.Int32
	release := make(chan struct{})
	h.runHook = func(int64) {
		n := running.Add(1)
		for {
			m := maxRunning.Load()
			if n <= m || maxRunning.CompareAndSwap(m, n) {
				break
			}
		}
		runs.Add(1)
		<-release
		running.Add(-1)
	}
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() { defer wg.Done(); h.Schedule(7, "test") }()
	}
	wg.Wait()
	// The first job runs before Close: Close cancels jobs still waiting
	// for the process-wide slot, which is Close's behaviour, not this test's.
	for deadline := time.Now().Add(10 * time.Second); runs.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	close(release)
	h.Close()
	if maxRunning.Load() != 1 || runs.Load() < 1 || runs.Load() > 2 {
		t.Errorf("10 requests: %d jobs, at most %d at once; want 1 or 2 jobs, one at a time", runs.Load(), maxRunning.Load())
	}
	h.Schedule(7, "after close") // ignored
	if runs.Load() > 2 {
		t.Error("a job ran after Close")
	}
}

// Another process holding git's lock: the job reports it busy and the
// repository still answers.
func TestMaintain_lockedByAnother(t *testing.T) {
	st, dir := hkRepo(t, 3)
	lock := filepath.Join(dir, "packed-refs.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := st.Housekeeping().Maintain(context.Background(), 7)
	if err == nil || !strings.Contains(err.Error(), errBusy.Error()) {
		t.Errorf("Maintain with packed-refs.lock held = %v, want busy", err)
	}
	l, err := st.Open(context.Background(), 7)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Log(context.Background(), LogOptions{}); err != nil {
		t.Errorf("Log while locked: %v", err)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Errorf("the other process's lock was touched: %v", err)
	}
}

// Every housekeepingEveryWrites ref updates schedule a job.
func TestNoteWrite_schedulesEveryN(t *testing.T) {
	st, _ := hkRepo(t, 1)
	h := st.Housekeeping()
	var runs atomic.Int32
	h.runHook = func(int64) { runs.Add(1) }
	for range housekeepingEveryWrites - 1 {
		h.noteWrite(7)
	}
	h.mu.Lock()
	pending := len(h.jobs)
	h.mu.Unlock()
	if pending != 0 || runs.Load() != 0 {
		t.Fatalf("%d writes scheduled a job", housekeepingEveryWrites-1)
	}
	h.noteWrite(7)
	waitIdle(t, h)
	h.Close()
	if runs.Load() != 1 {
		t.Errorf("%d writes: %d jobs, want 1", housekeepingEveryWrites, runs.Load())
	}
}

// Writes while housekeeping packs refs and objects all succeed: pack-refs
// holds a ref's lock only for an instant, and a write waits for it.
func TestMaintain_besideWrites(t *testing.T) {
	st, dir := hkRepo(t, 1)
	ctx := context.Background()
	stop := make(chan struct{})
	done := make(chan int, 1)
	var stopOnce sync.Once
	halt := func() int { // the loop ends before the test does, even on t.Fatal
		stopOnce.Do(func() { close(stop) })
		n := <-done
		done <- n
		return n
	}
	defer halt()
	go func() {
		n := 0
		for {
			select {
			case <-stop:
				done <- n
				return
			default:
			}
			if err := st.Housekeeping().Maintain(ctx, 7); err != nil && !strings.Contains(err.Error(), errBusy.Error()) {
				t.Errorf("Maintain: %v", err)
			}
			n++
		}
	}()
	l, err := st.Open(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := range 150 {
		_, err := l.CommitFiles(ctx, CommitFilesRequest{Branch: "main", Message: "w", Author: Signature{Name: "A", Email: "a@example.com"},
			Actions: []Action{{Action: ActionUpdate, FilePath: "a.txt", Content: []byte(strings.Repeat("y", i+2))}}})
		if err != nil {
			t.Fatalf("write %d beside housekeeping: %v", i, err)
		}
		if i%5 == 0 {
			name := "w" + strings.Repeat("x", i/5+1)
			if _, err := l.CreateBranch(ctx, name, "main"); err != nil {
				t.Fatalf("branch %d beside housekeeping: %v", i, err)
			}
			if err := l.DeleteBranch(ctx, name, ""); err != nil {
				t.Fatalf("delete branch %d beside housekeeping: %v", i, err)
			}
		}
	}
	if jobs := halt(); jobs == 0 {
		t.Fatal("no housekeeping ran beside the writes")
	}
	gitOut(t, dir, "fsck", "--strict", "--no-dangling")
	if got := gitOut(t, dir, "rev-list", "--count", "main"); got != "151" {
		t.Errorf("main has %s commits, want 151", got)
	}
	if refs := gitOut(t, dir, "for-each-ref", "--format=%(refname)"); refs != "refs/heads/bx\nrefs/heads/main" {
		t.Errorf("refs after the writes: %q", refs)
	}
}

// The first open of a repository with history and no commit-graph (an
// import, a restore) schedules a job; a maintained one schedules none.
func TestNoteOpen_maintainsUnmaintained(t *testing.T) {
	st, dir := hkRepo(t, 5)
	h := st.Housekeeping()
	var runs atomic.Int32
	h.runHook = func(int64) { runs.Add(1) }
	st.mu.Lock()
	st.idle, st.nIdle = map[int64][]*Local{}, 0 // a fresh process's pool
	st.mu.Unlock()
	l, err := st.Open(context.Background(), 7)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	waitIdle(t, h)
	h.Close()
	if runs.Load() != 1 || !hasCommitGraph(dir) {
		t.Fatalf("open of an unmaintained repository: %d jobs, commit-graph %v", runs.Load(), hasCommitGraph(dir))
	}
	st.hk = newHousekeeper(st)
	st.hk.runHook = func(int64) { runs.Add(1) }
	st.mu.Lock()
	st.idle, st.nIdle = map[int64][]*Local{}, 0
	st.mu.Unlock()
	if l, err = st.Open(context.Background(), 7); err != nil {
		t.Fatal(err)
	}
	l.Close()
	waitIdle(t, st.hk)
	st.hk.Close()
	if runs.Load() != 1 {
		t.Errorf("open of a maintained repository scheduled a job")
	}
}

// waitIdle waits until h has no job running or pending (bounded).
func waitIdle(t *testing.T, h *Housekeeper) {
	t.Helper()
	for range 3000 {
		h.mu.Lock()
		n := len(h.jobs)
		h.mu.Unlock()
		if n == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("housekeeping still busy after 30 s")
}

// Branches in directories (feature/x) created and deleted while
// housekeeping packs refs and removes the directories it empties.
func TestMaintain_besideNestedBranches(t *testing.T) {
	st, dir := hkRepo(t, 1)
	ctx := context.Background()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			_ = st.git.Run(ctx, gitcmd.Cmd{Dir: dir, Name: "pack-refs", Flags: []string{"--all", "--prune"}})
		}
	}()
	l, err := st.Open(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := range 100 {
		name := "feature/n" + strings.Repeat("x", i%7+1) + "/b" + strings.Repeat("y", i+1)
		if _, err := l.CreateBranch(ctx, name, "main"); err != nil {
			close(stop)
			<-done
			t.Fatalf("create %s beside pack-refs: %v", name, err)
		}
		if err := l.DeleteBranch(ctx, name, ""); err != nil {
			close(stop)
			<-done
			t.Fatalf("delete %s beside pack-refs: %v", name, err)
		}
	}
	close(stop)
	<-done
	gitOut(t, dir, "fsck", "--strict", "--no-dangling")
}

// A branch deleted while pack-refs runs stays deleted. pack-refs (played
// here by hand, as git runs it) holds packed-refs.lock, reads the loose
// refs, writes packed-refs with them and then removes the loose files; a
// delete that rewrote packed-refs before the pack and removed the loose
// file after it would see the branch packed back. The delete waits for
// packed-refs.lock and holds it until its loose file is gone, as git's
// ref transactions do.
func TestDeleteBranch_besidePackRefs(t *testing.T) {
	st, dir := hkRepo(t, 1)
	ctx := context.Background()
	l, err := st.Open(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.CreateBranch(ctx, "gone", "main"); err != nil {
		t.Fatal(err)
	}
	before := gitOut(t, dir, "for-each-ref", "--format=%(objectname) %(refname)")

	lock := filepath.Join(dir, "packed-refs.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	deleted := make(chan error, 1)
	go func() { deleted <- l.DeleteBranch(ctx, "gone", "") }()
	time.Sleep(50 * time.Millisecond) // let the delete reach the lock (it waits up to refLockTimeout)
	// pack-refs: every loose ref into packed-refs, then the loose files go.
	if err := os.WriteFile(filepath.Join(dir, "packed-refs"), []byte("# pack-refs with: sorted \n"+before+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(before, "\n") {
		_, ref, _ := strings.Cut(line, " ")
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(ref))); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	if err := <-deleted; err != nil {
		t.Fatalf("delete beside pack-refs: %v", err)
	}
	if refs := gitOut(t, dir, "for-each-ref", "--format=%(refname)"); refs != "refs/heads/bx\nrefs/heads/main" {
		t.Errorf("refs after the delete: %q, want refs/heads/bx and refs/heads/main", refs)
	}
}
