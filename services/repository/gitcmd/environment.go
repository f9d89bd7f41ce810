package gitcmd

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

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
