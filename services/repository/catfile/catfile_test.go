package catfile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/services/repository/gitcmd"
)

func runner(t *testing.T) *gitcmd.Runner {
	t.Helper()
	r, err := gitcmd.Default()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func git(t *testing.T, dir string, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"--git-dir=" + dir, "-c", "gc.auto=0"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@example.com",
		"GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@example.com")
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// repo makes a bare repository with n commits, each adding a blob, and
// returns it with the blobs' ids and contents.
func repo(t *testing.T, n int) (string, map[string]string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "r.git")
	git(t, "", "", "init", "-q", "--bare", dir)
	blobs := map[string]string{}
	parent := ""
	for i := range n {
		content := fmt.Sprintf("file %d\n%s", i, strings.Repeat("x", i*10))
		b := git(t, dir, content, "hash-object", "-w", "--stdin")
		blobs[b] = content
		tree := git(t, dir, fmt.Sprintf("100644 blob %s\tf%d.txt\n", b, i), "mktree")
		args := []string{"commit-tree", tree, "-m", fmt.Sprint("c", i)}
		if parent != "" {
			args = append(args, "-p", parent)
		}
		parent = git(t, dir, "", args...)
	}
	git(t, dir, "", "update-ref", "refs/heads/main", parent)
	return dir, blobs
}

func TestPool_readsAndReuses(t *testing.T) {
	dir, blobs := repo(t, 5)
	p := New(runner(t), Options{})
	defer p.Close()
	ctx := context.Background()
	for id, want := range blobs {
		info, b, err := p.Read(ctx, dir, id, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if info.Type != "blob" || info.OID != id || info.Size != int64(len(want)) || string(b) != want {
			t.Fatalf("read %s: %+v %q", id, info, b)
		}
		info, err = p.Info(ctx, dir, id[:10])
		if err != nil || info.OID != id || info.Type != "blob" {
			t.Fatalf("info %s: %+v %v", id[:10], info, err)
		}
	}
	if _, err := p.Info(ctx, dir, strings.Repeat("0", 40)); !errors.Is(err, ErrMissing) {
		t.Fatalf("missing object: %v", err)
	}
	if _, _, err := p.Read(ctx, dir, "main\nexit", 10); !errors.Is(err, ErrMissing) {
		t.Fatalf("a name with a newline: %v", err)
	}
	if s := p.Stats(); s.Started != 1 || s.Idle != 1 || s.Ended != 0 {
		t.Errorf("one reader at a time needs one process: %+v", s)
	}
}

// A reader closed before the end of its object leaves the rest of the
// object in the pipe: its process is killed, and the next read gets a
// new one and the right answer.
func TestPool_stoppedReaderKillsItsProcess(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r.git")
	git(t, "", "", "init", "-q", "--bare", dir)
	big := strings.Repeat("0123456789abcdef", 1<<14) // 256 KiB: more than a pipe holds
	id := git(t, dir, big, "hash-object", "-w", "--stdin")
	small := git(t, dir, "small\n", "hash-object", "-w", "--stdin")
	p := New(runner(t), Options{})
	defer p.Close()
	ctx := context.Background()
	info, rc, err := p.Open(ctx, dir, id)
	if err != nil || info.Size != int64(len(big)) {
		t.Fatal(info, err)
	}
	buf := make([]byte, 100)
	if _, err := io.ReadFull(rc, buf); err != nil {
		t.Fatal(err)
	}
	if err := rc.Close(); err != nil {
		t.Fatal(err)
	}
	if s := p.Stats(); s.Started != 1 || s.Ended != 1 || s.Idle != 0 {
		t.Fatalf("after a stopped read: %+v", s)
	}
	_, b, err := p.Read(ctx, dir, small, 100)
	if err != nil || string(b) != "small\n" {
		t.Fatalf("next read: %q %v", b, err)
	}
	// Read to the end, the process is reused.
	_, rc, err = p.Open(ctx, dir, id)
	if err != nil {
		t.Fatal(err)
	}
	all, err := io.ReadAll(rc)
	if err != nil || string(all) != big {
		t.Fatalf("whole read: %d bytes, %v", len(all), err)
	}
	if err := rc.Close(); err != nil {
		t.Fatal(err)
	}
	if s := p.Stats(); s.Started != 2 || s.Idle != 1 {
		t.Fatalf("after whole reads: %+v", s)
	}
}

// A request whose context ends while it reads kills its process.
func TestPool_canceledReadKillsItsProcess(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r.git")
	git(t, "", "", "init", "-q", "--bare", dir)
	big := strings.Repeat("z", 1<<20)
	id := git(t, dir, big, "hash-object", "-w", "--stdin")
	p := New(runner(t), Options{})
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	_, rc, err := p.Open(ctx, dir, id)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 10)
	if _, err := io.ReadFull(rc, buf); err != nil {
		t.Fatal(err)
	}
	cancel()
	_, err = io.ReadAll(rc)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("read after cancel: %v", err)
	}
	rc.Close()
	if s := p.Stats(); s.Ended != 1 || s.Idle != 0 {
		t.Fatalf("after a canceled read: %+v", s)
	}
	if _, err := p.Info(ctx, dir, id); !errors.Is(err, context.Canceled) {
		t.Fatalf("a read on an ended context: %v", err)
	}
}

func TestPool_recycles(t *testing.T) {
	dir, blobs := repo(t, 3)
	var id string
	for id = range blobs {
		break
	}
	ctx := context.Background()
	p := New(runner(t), Options{MaxRequests: 2, IdleTimeout: 50 * time.Millisecond})
	defer p.Close()
	for range 4 {
		if _, err := p.Info(ctx, dir, id); err != nil {
			t.Fatal(err)
		}
	}
	if s := p.Stats(); s.Started != 2 || s.Ended != 2 {
		t.Fatalf("two requests per process, four requests: %+v", s)
	}
	if _, err := p.Info(ctx, dir, id); err != nil {
		t.Fatal(err)
	}
	// The reaper takes the idle process off the list, then stops it and
	// counts it ended: wait for both.
	deadline := time.Now().Add(5 * time.Second)
	for s := p.Stats(); (s.Idle != 0 || s.Ended != 3) && time.Now().Before(deadline); s = p.Stats() {
		time.Sleep(10 * time.Millisecond)
	}
	if s := p.Stats(); s.Idle != 0 || s.Ended != 3 {
		t.Fatalf("after the idle timeout: %+v", s)
	}
	p.Close()
	if _, err := p.Info(ctx, dir, id); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}

// MaxProcesses bounds the processes: a request past it takes another
// repository's idle process, or waits for a busy one within its context.
func TestPool_boundsProcesses(t *testing.T) {
	a, blobsA := repo(t, 1)
	b, blobsB := repo(t, 1)
	var idA, idB string
	for idA = range blobsA {
	}
	for idB = range blobsB {
	}
	p := New(runner(t), Options{MaxProcesses: 1})
	defer p.Close()
	ctx := context.Background()
	if _, err := p.Info(ctx, a, idA); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Info(ctx, b, idB); err != nil { // a's idle one makes room
		t.Fatal(err)
	}
	_, rc, err := p.Open(ctx, a, idA) // busy
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, err := p.Info(short, b, idB); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("past the bound: %v", err)
	}
	io.Copy(io.Discard, rc)
	rc.Close()
	if _, err := p.Info(ctx, b, idB); err != nil {
		t.Fatal(err)
	}
	if s := p.Stats(); s.Started-s.Ended > 1 {
		t.Fatalf("more than one process alive: %+v", s)
	}
}

// The point of the package: every object reads, through processes that
// live across repacks that add and delete packs and loose objects.
func TestPool_readsAcrossRepacks(t *testing.T) {
	dir, blobs := repo(t, 40)
	p := New(runner(t), Options{})
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				for id, want := range blobs {
					_, b, err := p.Read(ctx, dir, id, 1<<20)
					if ctx.Err() != nil {
						return
					}
					if err != nil || !bytes.Equal(b, []byte(want)) {
						errs <- fmt.Errorf("read %s beside a repack: %q, %v", id, b, err)
						cancel()
						return
					}
				}
			}
		}()
	}
	for i := range 8 {
		switch i % 3 {
		case 0:
			git(t, dir, "", "repack", "-a", "-d", "-q")
		case 1:
			git(t, dir, "", "repack", "-a", "-d", "-q", "-f", "--depth=1")
		default:
			git(t, dir, fmt.Sprint("new ", i), "hash-object", "-w", "--stdin") // a new pack name next
		}
		git(t, dir, "", "prune-packed")
	}
	cancel()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// BenchmarkPool_read is one small object read through a warm process:
// what a read go-git cannot answer costs (doc/performance.md).
func BenchmarkPool_read(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "r.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", dir).CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	cmd := exec.Command("git", "--git-dir="+dir, "hash-object", "-w", "--stdin")
	cmd.Stdin = strings.NewReader(strings.Repeat("a line of a small source file\n", 100))
	out, err := cmd.Output()
	if err != nil {
		b.Fatal(err)
	}
	id := strings.TrimSpace(string(out))
	r, err := gitcmd.Default()
	if err != nil {
		b.Fatal(err)
	}
	p := New(r, Options{})
	defer p.Close()
	ctx := context.Background()
	for b.Loop() {
		if _, _, err := p.Read(ctx, dir, id, 1<<20); err != nil {
			b.Fatal(err)
		}
	}
	if s := p.Stats(); s.Started != 1 {
		b.Errorf("%d processes for one reader", s.Started)
	}
}
