// Package gitcmd runs the git command line on the projects' repositories,
// the way Gitaly runs it: argv only (never a shell), a scrubbed
// environment that reads no system or global configuration, a deadline
// tied to the request with the whole process group killed on cancel,
// stderr kept for the log and never handed to a client, and at most a
// fixed number of git processes at once per instance.
//
// A Runner is safe for concurrent use. Callers build a [Cmd] from constant
// options and validated input; user input goes in Args (after
// --end-of-options, so it can never be read as an option) or Paths (after
// "--", read literally: every command runs with --literal-pathspecs).
package gitcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// MinVersion is the oldest git glmcp runs: --end-of-options everywhere,
// fetch --atomic, commit-graph changed-path filters, repack --geometric
// and GIT_CONFIG_GLOBAL are all older than it, and it is Debian 12's.
var MinVersion = Version{2, 39, 0}

// Version is a git release, major.minor.patch.
type Version [3]int

func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2]) }

// Less reports whether v is older than w.
func (v Version) Less(w Version) bool {
	for i := range v {
		if v[i] != w[i] {
			return v[i] < w[i]
		}
	}
	return false
}

var versionRE = regexp.MustCompile(`^git version (\d+)\.(\d+)(?:\.(\d+))?`)

// ParseVersion reads the output of `git version` ("git version 2.39.5",
// "git version 2.45.1.windows.1").
func ParseVersion(out string) (Version, error) {
	m := versionRE.FindStringSubmatch(strings.TrimSpace(out))
	if m == nil {
		return Version{}, fmt.Errorf("unrecognised git version %q", strings.TrimSpace(out))
	}
	var v Version
	for i := range 3 {
		if m[i+1] != "" {
			v[i], _ = strconv.Atoi(m[i+1])
		}
	}
	return v, nil
}

// Options configure a Runner.
type Options struct {
	// Path is the git executable (default: "git" looked up on PATH).
	Path string
	// MaxProcesses bounds the git processes running at once; a command
	// past it waits for a slot (within its context). 0 = the default,
	// four per CPU and at least 8.
	MaxProcesses int
	// Logger receives a line for every failed command, with its stderr.
	Logger *slog.Logger
}

// Runner starts git processes.
type Runner struct {
	path    string
	version Version
	env     []string
	sem     chan struct{}
	logger  *slog.Logger
}

// New finds git, checks that it is at least MinVersion and returns a
// Runner. The error says what to install.
func New(opt Options) (*Runner, error) {
	path := opt.Path
	if path == "" {
		path = "git"
	}
	abs, err := exec.LookPath(path)
	if err != nil {
		return nil, fmt.Errorf("glmcp needs git ≥ %s on PATH: %w", MinVersion, err)
	}
	n := opt.MaxProcesses
	if n <= 0 {
		n = max(8, 4*runtime.NumCPU())
	}
	global, err := globalConfigFile()
	if err != nil {
		return nil, fmt.Errorf("git configuration for glmcp: %w", err)
	}
	r := &Runner{path: abs, env: environment(global), sem: make(chan struct{}, n), logger: opt.Logger}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := r.Output(ctx, Cmd{Name: "version"})
	if err != nil {
		return nil, fmt.Errorf("glmcp needs git ≥ %s on PATH: %s does not run: %w", MinVersion, abs, err)
	}
	if r.version, err = ParseVersion(string(out)); err != nil {
		return nil, fmt.Errorf("glmcp needs git ≥ %s on PATH: %s: %w", MinVersion, abs, err)
	}
	if r.version.Less(MinVersion) {
		return nil, fmt.Errorf("glmcp needs git ≥ %s on PATH: %s is git %s", MinVersion, abs, r.version)
	}
	return r, nil
}

var (
	defaultOnce   sync.Once
	defaultRunner *Runner
	defaultErr    error
)

// Default is the process-wide Runner with default options, made on first
// use.
func Default() (*Runner, error) {
	defaultOnce.Do(func() { defaultRunner, defaultErr = New(Options{}) })
	return defaultRunner, defaultErr
}

// Version returns the git version found.
func (r *Runner) Version() Version { return r.version }

// Path returns the git executable.
func (r *Runner) Path() string { return r.path }

// SetLogger sets where failed commands are logged (nil: nowhere).
func (r *Runner) SetLogger(l *slog.Logger) { r.logger = l }

// environment is the environment of every git process: nothing of the
// server's own (no GIT_* variable, no proxy, no credentials) but PATH, a
// C locale, and the settings that keep git from reading any
// configuration but the repository's own and from prompting.
func environment(global string) []string {
	env := []string{
		"HOME=/nonexistent",
		"XDG_CONFIG_HOME=/nonexistent",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + global,
		"GIT_ATTR_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_NO_REPLACE_OBJECTS=1",
		"GIT_OPTIONAL_LOCKS=0",
		"GIT_ALLOW_PROTOCOL=file",
		"LANG=C",
		"LC_ALL=C",
		"TZ=UTC",
	}
	if p := os.Getenv("PATH"); p != "" {
		env = append(env, "PATH="+p)
	} else {
		env = append(env, "PATH=/usr/local/bin:/usr/bin:/bin")
	}
	return env
}

// globalConfigText is glmcp's own "global" git configuration. Only
// safe.directory is there: git reads it from protected configuration only
// (system, global, command line), and the git processes a fetch from a
// local path starts (upload-pack on the source) get neither glmcp's -c
// options nor GIT_CONFIG_PARAMETERS, so a source or repository owned by
// another user (a mounted directory in the container) would be refused
// as "dubious ownership" without it.
const globalConfigText = "[safe]\n\tdirectory = *\n"

// globalConfigFile returns a file holding globalConfigText that only this
// user can write: <tmp>/glmcp-<uid>.gitconfig, made (atomically) when
// missing, or a private temporary file when that path is someone else's.
func globalConfigFile() (string, error) {
	path := filepath.Join(os.TempDir(), "glmcp-"+strconv.Itoa(os.Getuid())+".gitconfig")
	if ownConfig(path) {
		return path, nil
	}
	f, err := os.CreateTemp(os.TempDir(), "glmcp-gitconfig-*")
	if err != nil {
		return "", err
	}
	_, werr := f.WriteString(globalConfigText)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(f.Name())
		return "", werr
	}
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		if os.Rename(f.Name(), path) == nil && ownConfig(path) {
			return path, nil
		}
	}
	return f.Name(), nil // the shared name is taken by someone else: a private copy
}

// ownConfig reports whether path is a regular file of this user, writable
// by nobody else, holding globalConfigText.
func ownConfig(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o022 != 0 {
		return false
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
		return false
	}
	b, err := os.ReadFile(path)
	return err == nil && string(b) == globalConfigText
}

// globalConfig is passed with -c to every command: no hooks, no automatic
// gc or maintenance (housekeeping is glmcp's), paths unquoted, no colour,
// every directory trusted (the repositories are the server's own, whoever
// owns the files).
var globalConfig = []string{
	"-c", "core.hooksPath=/dev/null",
	"-c", "safe.directory=*",
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
	"-c", "core.quotePath=false",
	"-c", "color.ui=false",
	"-c", "core.useReplaceRefs=false",
	"-c", "log.showSignature=false",
	"-c", "fetch.writeCommitGraph=false",
	"-c", "advice.detachedHead=false",
}

// Cmd is one git command. Flags come from glmcp's code; Args and Paths may
// hold user input that has been validated.
type Cmd struct {
	// Dir is the repository (--git-dir); empty for commands that need none.
	Dir string
	// Name is the subcommand ("log", "grep", "update-ref").
	Name string
	// Flags are the subcommand's options.
	Flags []string
	// Args follow --end-of-options (revisions, ref names, patterns),
	// when there are any.
	Args []string
	// Paths follow "--" when not nil (read literally).
	Paths []string
	// NoEndOfOptions leaves --end-of-options out, for the few commands
	// that do not parse it; Args must then be safe on their own.
	NoEndOfOptions bool
	// Env adds GIT_* settings of glmcp's own (GIT_DIR is never needed).
	Env []string
	// Stdin feeds the process.
	Stdin io.Reader
	// Stdout receives the output (Run); Output collects it instead.
	Stdout io.Writer
	// Stderr, when set, receives stderr as it comes (progress on a
	// terminal); it is still kept for the log.
	Stderr io.Writer
	// Timeout bounds the command on top of its context (0: the
	// context's own deadline, else DefaultTimeout).
	Timeout time.Duration
	// OutliveParent lets the command finish when glmcp dies (every other
	// command is killed with it): for a short command that takes git's
	// own locks, such as pack-refs --prune, which locks each loose ref it
	// prunes. Killed midway, it would leave those locks to a ten-minute
	// staleness rule, since no glmcp process owns them.
	OutliveParent bool
	// Pooled marks a long-lived process that a pool keeps and reuses
	// (cat-file --batch-command, see services/repository/catfile): it
	// takes none of the runner's slots, since its pool bounds its own
	// processes and an idle one must not keep a request waiting for a
	// slot, and it gets no DefaultTimeout: it lives until its context ends
	// or it is closed.
	Pooled bool
	// StdinPipe gives the process a pipe its caller writes to
	// (Process.Stdin) instead of Stdin: a request-response protocol.
	StdinPipe bool
}

// DefaultTimeout bounds a command whose context has no deadline.
const DefaultTimeout = 10 * time.Minute

// argv returns the full argument list of c.
func (c *Cmd) argv() []string {
	args := make([]string, 0, 4+len(globalConfig)+len(c.Flags)+len(c.Args)+len(c.Paths))
	args = append(args, "--literal-pathspecs")
	if c.Dir != "" {
		args = append(args, "--git-dir="+c.Dir)
	}
	args = append(args, globalConfig...)
	args = append(args, c.Name)
	args = append(args, c.Flags...)
	if len(c.Args) > 0 {
		if !c.NoEndOfOptions {
			args = append(args, "--end-of-options")
		}
		args = append(args, c.Args...)
	}
	if c.Paths != nil {
		args = append(args, "--")
		args = append(args, c.Paths...)
	}
	return args
}

// Error is a git command that failed. Its message names the subcommand
// and the exit status only; Stderr is for the caller to classify and for
// the log, never for a client.
type Error struct {
	Name     string
	ExitCode int // -1 when killed or not started
	Stderr   string
	Err      error
}

func (e *Error) Error() string {
	if e.ExitCode >= 0 {
		return fmt.Sprintf("git %s: exit status %d", e.Name, e.ExitCode)
	}
	return fmt.Sprintf("git %s: %v", e.Name, e.Err)
}

// Unwrap returns the error that ended the command and, when git said on
// stderr that a disk was full, over quota or read-only, that errno too: a
// caller tests such a failure with errors.Is(err, syscall.ENOSPC) as it
// would one of its own writes.
func (e *Error) Unwrap() []error {
	out := []error{e.Err}
	if errno := storageErrno(e.Stderr); errno != 0 {
		out = append(out, errno)
	}
	return out
}

// storageErrno returns the errno whose message (strerror, what git
// prints after a failed write) stderr carries, or 0.
func storageErrno(stderr string) syscall.Errno {
	lower := strings.ToLower(stderr)
	for _, errno := range []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT, syscall.EROFS} {
		if strings.Contains(lower, errno.Error()) {
			return errno
		}
	}
	return 0
}

// ExitCode returns the exit status of the git command that returned err:
// 0 for nil, -1 when err is no git exit.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var e *Error
	if errors.As(err, &e) {
		return e.ExitCode
	}
	return -1
}

// Stderr returns what a failed git command in err wrote to stderr.
func Stderr(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Stderr
	}
	return ""
}

// maxStderr bounds the stderr kept of one command.
const maxStderr = 16 << 10

// Run runs c to its end, its output to c.Stdout (discarded when nil).
func (r *Runner) Run(ctx context.Context, c Cmd) error {
	p, err := r.Start(ctx, c)
	if err != nil {
		return err
	}
	return p.Wait()
}

// Output runs c and returns its output.
func (r *Runner) Output(ctx context.Context, c Cmd) ([]byte, error) {
	var buf bytes.Buffer
	c.Stdout = &buf
	err := r.Run(ctx, c)
	return buf.Bytes(), err
}

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
