package catfile

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"
)

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
