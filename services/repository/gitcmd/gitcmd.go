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
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"runtime"
	"sync"
	"time"
)

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
