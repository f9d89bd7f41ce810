package gitcmd

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestStart_canceledIsKilled(t *testing.T) {
	var logs bytes.Buffer
	r := newRunner(t, Options{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	repo := initRepo(t, r)
	pr, pw := io.Pipe() // stdin that never ends
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	p, err := r.Start(ctx, Cmd{Dir: repo, Name: "hash-object", Flags: []string{"--stdin"}, Stdin: pr})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	done := make(chan error, 1)
	go func() { done <- p.Wait() }()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || ExitCode(err) != -1 {
			t.Errorf("Wait after cancel = %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a canceled git process was not killed")
	}
	if strings.Contains(logs.String(), "level=WARN") {
		t.Errorf("a canceled command was logged as a failure:\n%s", logs.String())
	}
}

func TestStart_processLimit(t *testing.T) {
	r := newRunner(t, Options{MaxProcesses: 1})
	repo := initRepo(t, r)
	pr, pw := io.Pipe()
	p, err := r.Start(context.Background(), Cmd{Dir: repo, Name: "hash-object", Flags: []string{"--stdin"}, Stdin: pr})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = r.Output(ctx, Cmd{Dir: repo, Name: "version"})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "slot") {
		t.Errorf("second process past the limit: err = %v", err)
	}
	pw.Close()
	if err := p.Wait(); err != nil {
		t.Fatalf("first process: %v", err)
	}
	if _, err := r.Output(context.Background(), Cmd{Dir: repo, Name: "version"}); err != nil {
		t.Errorf("the slot was not freed: %v", err)
	}
}

func TestFailure_loggedWithStderr(t *testing.T) {
	var logs bytes.Buffer
	r := newRunner(t, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	repo := initRepo(t, r)
	_, err := r.Output(context.Background(), Cmd{Dir: repo, Name: "cat-file", Flags: []string{"-t"}, Args: []string{"0123456789012345678901234567890123456789"}})
	if ExitCode(err) != 128 {
		t.Fatalf("cat-file of a missing object: %v", err)
	}
	if !strings.Contains(logs.String(), "git command failed") || !strings.Contains(logs.String(), "command=cat-file") || !strings.Contains(logs.String(), "stderr=") {
		t.Errorf("log = %s", logs.String())
	}
}

func TestClose_stopsEarlyReader(t *testing.T) {
	r := newRunner(t, Options{})
	repo := initRepo(t, r)
	pr, pw := io.Pipe()
	defer pw.Close()
	p, err := r.Start(context.Background(), Cmd{Dir: repo, Name: "cat-file", Flags: []string{"--batch-check"}, Stdin: pr})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close of a running process = %v, want nil", err)
	}
}

// A pooled process (a long-lived cat-file) takes no slot, lives without
// the default timeout, and talks through its stdin pipe.
func TestStart_pooledTakesNoSlot(t *testing.T) {
	r := newRunner(t, Options{MaxProcesses: 1})
	repo := initRepo(t, r)
	p, err := r.Start(context.Background(), Cmd{Dir: repo, Name: "cat-file", Flags: []string{"--batch-command"},
		Pooled: true, StdinPipe: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.ctx.Deadline(); ok {
		t.Error("a pooled process got a deadline")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := r.Output(ctx, Cmd{Dir: repo, Name: "version"}); err != nil {
		t.Errorf("a command beside a pooled process: %v", err)
	}
	if _, err := io.WriteString(p.Stdin(), "info "+strings.Repeat("0", 40)+"\n"); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 49)
	if _, err := io.ReadFull(p.Stdout(), line); err != nil || string(line) != strings.Repeat("0", 40)+" missing\n" {
		t.Fatalf("answer %q, %v", line, err)
	}
	p.Stdin().Close()
	if err := p.Wait(); err != nil {
		t.Fatalf("cat-file at end of input: %v", err)
	}
	if _, err := r.Output(ctx, Cmd{Dir: repo, Name: "version"}); err != nil {
		t.Errorf("after the pooled process: %v", err)
	}
}
