package importexport

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// An archive is unpacked into glmcp-archive-<random> beside its lock file
// glmcp-archive-<random>.lock, which the reading process holds with
// flock(2) for as long as it lives: the kernel drops the lock when the
// process dies, however it dies, so a lock that can be taken marks a
// leftover (an import killed halfway) that the next Read removes. The
// lock file is made and locked before the directory, and removed after it.
const (
	workPrefix = "glmcp-archive-"
	workLock   = ".lock"
)

// newWorkDir makes and locks a work directory of its own under tmp ("":
// the system's temporary directory).
func newWorkDir(tmp string) (string, *os.File, error) {
	if tmp == "" {
		tmp = os.TempDir()
	}
	for {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", nil, err
		}
		dir := filepath.Join(tmp, workPrefix+hex.EncodeToString(b[:]))
		f, err := os.OpenFile(dir+workLock, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
			f.Close() // a sweep took the fresh file for a leftover
			continue
		}
		fi, err1 := f.Stat()
		pi, err2 := os.Stat(dir + workLock)
		if err1 != nil || err2 != nil || !os.SameFile(fi, pi) {
			f.Close() // a sweep removed it between creation and lock
			continue
		}
		if err := os.Mkdir(dir, 0o700); err != nil {
			os.Remove(dir + workLock)
			f.Close()
			return "", nil, err
		}
		return dir, f, nil
	}
}

// SweepArchives removes what reads of archives whose process died left
// under tmp ("": the system's temporary directory), and returns how many.
// Read calls it.
func SweepArchives(tmp string) int {
	if tmp == "" {
		tmp = os.TempDir()
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, workPrefix) {
			continue
		}
		dir := filepath.Join(tmp, strings.TrimSuffix(name, workLock))
		if strings.HasSuffix(name, workLock) {
			if sweepWorkDir(dir) {
				n++
			}
		} else if _, err := os.Stat(dir + workLock); errors.Is(err, fs.ErrNotExist) {
			// Its lock is gone (a failed sweep): nothing holds it.
			if os.RemoveAll(dir) == nil {
				n++
			}
		}
	}
	return n
}

func sweepWorkDir(dir string) bool {
	f, err := os.OpenFile(dir+workLock, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return false // a live read's
	}
	if os.RemoveAll(dir) != nil {
		return false
	}
	_ = os.Remove(dir + workLock)
	return true
}
