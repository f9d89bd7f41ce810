package gitcmd

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
)

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
