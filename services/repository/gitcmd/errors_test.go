package gitcmd

import (
	"errors"
	"strings"
	"syscall"
	"testing"
)

// A git command that failed on a full, over-quota or read-only disk is
// that errno too (git prints only strerror's words); any other failure
// is not.
func TestError_storageErrno(t *testing.T) {
	exit := errors.New("exit status 128")
	for stderr, want := range map[string]error{
		"error: file write error: No space left on device\nfatal: unable to write loose object file": syscall.ENOSPC,
		"fatal: unable to create temporary file: Disk quota exceeded":                                syscall.EDQUOT,
		"error: unable to create file HEAD.lock: Read-only file system":                              syscall.EROFS,
		"fatal: not a git repository (or any of the parent directories): .git":                       nil,
	} {
		err := error(&Error{Name: "fetch", ExitCode: 128, Stderr: stderr, Err: exit})
		for _, errno := range []error{syscall.ENOSPC, syscall.EDQUOT, syscall.EROFS} {
			if got := errors.Is(err, errno); got != (errno == want) {
				t.Errorf("%q: errors.Is(%v) = %v", stderr, errno, got)
			}
		}
		if !errors.Is(err, exit) {
			t.Errorf("%q: the exit error is lost", stderr)
		}
		if strings.Contains(err.Error(), "device") || strings.Contains(err.Error(), "HEAD.lock") {
			t.Errorf("the message carries stderr: %q", err.Error())
		}
	}
}
