package gitcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// maxStderr bounds the stderr kept of one command.
const maxStderr = 16 << 10

// Process is a running git command.
type Process struct {
	r      *Runner
	cmd    *exec.Cmd
	c      Cmd
	stderr *limitedBuffer
	ctx    context.Context
	cancel context.CancelFunc
	stdout io.ReadCloser  // when streaming
	stdin  io.WriteCloser // with Cmd.StdinPipe
	once   sync.Once
	err    error
	killed atomic.Bool
}

// Stdout is the output of a process started without Cmd.Stdout; read it
// to the end (or stop reading and Wait, which kills nothing but waits).
func (p *Process) Stdout() io.Reader { return p.stdout }

// Stdin is the process's input with Cmd.StdinPipe (nil otherwise); Close
// it to send end-of-file. A write to a process that has died fails.
func (p *Process) Stdin() io.WriteCloser { return p.stdin }

// acquire takes a slot for c (none for a pooled process).
func (r *Runner) acquire(ctx context.Context, c *Cmd) error {
	if c.Pooled {
		return nil
	}
	select {
	case r.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return &Error{Name: c.Name, ExitCode: -1, Err: fmt.Errorf("waiting for a git process slot: %w", ctx.Err())}
	}
}

// release frees the slot acquire took.
func (r *Runner) release(c *Cmd) {
	if !c.Pooled {
		<-r.sem
	}
}

// Start starts c and returns at once; Wait for it. Without c.Stdout the
// output is read from Process.Stdout. The process holds one of the
// runner's slots until Wait returns; it is killed, with every process it
// started, when ctx ends.
func (r *Runner) Start(ctx context.Context, c Cmd) (*Process, error) {
	if err := ctx.Err(); err != nil {
		return nil, &Error{Name: c.Name, ExitCode: -1, Err: err}
	}
	if err := r.acquire(ctx, &c); err != nil {
		return nil, err
	}
	timeout := c.Timeout
	if _, ok := ctx.Deadline(); !ok && timeout == 0 && !c.Pooled {
		timeout = DefaultTimeout
	}
	cancel := context.CancelFunc(func() {})
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, timeout)
	}
	cmd := exec.CommandContext(ctx, r.path, c.argv()...)
	cmd.Env = append(append([]string(nil), r.env...), c.Env...)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if !c.OutliveParent {
		dieWithParent(cmd.SysProcAttr)
	}
	cmd.Cancel = func() error {
		// The whole group: git runs helpers (pack-objects, index-pack).
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 5 * time.Second
	var stdin, stdinPipe io.WriteCloser
	if c.StdinPipe {
		var err error
		if stdinPipe, err = cmd.StdinPipe(); err != nil {
			cancel()
			r.release(&c)
			return nil, &Error{Name: c.Name, ExitCode: -1, Err: err}
		}
	} else if f, ok := c.Stdin.(*os.File); ok || c.Stdin == nil {
		if ok {
			cmd.Stdin = f
		}
	} else {
		// Fed by a goroutine of ours rather than exec's: exec's Wait
		// waits for its copier even past WaitDelay, so a reader that
		// never ends (a pipe the caller keeps open) would hang Wait
		// after a kill. Ours ends at the first failed write instead.
		var err error
		if stdin, err = cmd.StdinPipe(); err != nil {
			cancel()
			r.release(&c)
			return nil, &Error{Name: c.Name, ExitCode: -1, Err: err}
		}
	}
	p := &Process{r: r, cmd: cmd, c: c, stderr: &limitedBuffer{max: maxStderr}, ctx: ctx, cancel: cancel, stdin: stdinPipe}
	if c.Stderr != nil {
		cmd.Stderr = io.MultiWriter(p.stderr, c.Stderr)
	} else {
		cmd.Stderr = p.stderr
	}
	if c.Stdout != nil {
		cmd.Stdout = c.Stdout
	} else {
		out, err := cmd.StdoutPipe()
		if err != nil {
			cancel()
			r.release(&c)
			return nil, &Error{Name: c.Name, ExitCode: -1, Err: err}
		}
		p.stdout = out
	}
	if err := cmd.Start(); err != nil {
		cancel()
		r.release(&c)
		return nil, &Error{Name: c.Name, ExitCode: -1, Err: err}
	}
	if stdin != nil {
		go func() {
			_, _ = io.Copy(stdin, c.Stdin)
			stdin.Close()
		}()
	}
	return p, nil
}

// Wait waits for the process to end and frees its slot. A non-zero exit
// is an *Error (logged with its stderr); so is a kill by the context,
// whose Err is the context's error.
func (p *Process) Wait() error {
	p.once.Do(func() {
		if p.stdout != nil && !p.killed.Load() {
			// Whatever the caller did not read: git must not block on a
			// full pipe, and a reader that stopped early wants no more.
			_, _ = io.Copy(io.Discard, p.stdout)
		}
		err := p.cmd.Wait()
		ctxErr := p.ctx.Err()
		p.cancel()
		p.r.release(&p.c)
		if err == nil {
			return
		}
		e := &Error{Name: p.c.Name, ExitCode: -1, Stderr: strings.TrimSpace(p.stderr.String()), Err: err}
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.Exited() {
			e.ExitCode = exit.ExitCode()
		}
		if ctxErr != nil && e.ExitCode < 0 {
			e.Err = ctxErr
		}
		p.err = e
		if !p.killed.Load() {
			p.r.log(e, p.c.Dir)
		}
	})
	return p.err
}

// Close ends a process whose output is no longer wanted: it is killed
// (with every process it started) unless it has exited already, and
// waited for. A kill made by Close is not an error.
func (p *Process) Close() error {
	p.killed.Store(true)
	if p.cmd.Process != nil {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
	err := p.Wait()
	var e *Error
	if errors.As(err, &e) && e.ExitCode < 0 {
		return nil
	}
	return err
}

func (r *Runner) log(e *Error, dir string) {
	if r.logger == nil {
		return
	}
	if errors.Is(e.Err, context.Canceled) {
		r.logger.Debug("git command canceled", "command", e.Name, "repository", dir)
		return
	}
	r.logger.Warn("git command failed", "command", e.Name, "exit", e.ExitCode, "repository", dir, "stderr", e.Stderr, "error", e.Err)
}

// limitedBuffer keeps the first max bytes written to it and drops the
// rest.
type limitedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.max - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (b *limitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
