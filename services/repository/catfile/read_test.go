package catfile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gitlab.com/glmcp/glmcp/services/repository/gitcmd"
)

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
