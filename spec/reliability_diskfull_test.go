package spec

import (
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReliability_fullRepositoriesDisk: the repositories on a tmpfs of
// their own (mounted by the spec, which needs root), filled to the last
// byte. Every write that needs the disk (add_commit, add_branch,
// accept_merge_request, fork_repository) answers the tool error
// "Insufficient storage: …" naming no path (before: HTTP 500 -32603), and
// leaves nothing behind: no lock, no temporary object, no fork repository
// (before: @hashed/….git with a 0-byte HEAD), no fork row; every
// repository passes git fsck --strict. /-/readiness says the repositories
// failed, glmcp_storage_errors_total counts each tool. Once space is
// freed, the same writes succeed and readiness is ok again. Remounted
// read-only (EROFS), the same.
func TestReliability_fullRepositoriesDisk(t *testing.T) {
	repos := mountTmpfs(t, 4<<20)
	s := newCrashSetup(t, repos)
	ep, _ := startServeCmd(t, s.flags, nil)
	base := strings.TrimSuffix(ep, cePath)
	call := func(tool string, args map[string]any) toolAnswer {
		return callToolAt(t, s.client, ep, s.token, tool, args)
	}
	if a := call("add_commit", crashCommitArgs("main", "base.txt", false)); a.isError {
		t.Fatal(a.text)
	}
	feature := call("add_commit", crashCommitArgs("feature", "feature.txt", true))
	if feature.isError {
		t.Fatal(feature.text)
	}
	head := dig(feature.data, "commit", "sha").(string)
	mr := call("save_merge_request", map[string]any{"project_id": "crash/repo", "title": "Full", "source_branch": "feature", "target_branch": "main"})
	if mr.isError {
		t.Fatal(mr.text)
	}
	iid := int64(mr.data["iid"].(float64))
	refsBefore := gitLine(t, s.gitDir, "for-each-ref", "--format=%(refname) %(objectname)")

	// Fill the disk to the last byte.
	filler := filepath.Join(repos, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	for n := 4096; n > 0; n /= 2 { // the tail of the last page
		for {
			if _, err := f.Write(chunk[:n]); err != nil {
				break
			}
		}
	}
	f.Close()

	if code, body := httpGet(t, base+"/-/readiness"); code != http.StatusServiceUnavailable ||
		!strings.Contains(body, `"repositories":"failed"`) || !strings.Contains(body, `"database":"ok"`) || strings.Contains(body, repos) {
		t.Errorf("readiness on a full disk: %d %s", code, body)
	}
	writes := []struct {
		tool string
		args map[string]any
	}{
		{"add_commit", map[string]any{"project_id": "crash/repo", "branch": "main", "commit_message": "big",
			"actions": []any{map[string]any{"action": "create", "file_path": "big.txt", "content": strings.Repeat("incompressible? no, but a page at least\n", 4096)}}}},
		{"add_branch", map[string]any{"project_id": "crash/repo", "branch": "full", "ref": "main"}},
		{"accept_merge_request", map[string]any{"project_id": "crash/repo", "merge_request_iid": iid, "sha": head}},
		{"fork_repository", map[string]any{"id": "crash/repo", "namespace_path": "crash", "path": "fork", "name": "fork"}},
	}
	const want = "Insufficient storage: the server has no space left to store this change; nothing was written. Retry later"
	for _, w := range writes {
		a := call(w.tool, w.args)
		if !a.isError || a.text != want {
			t.Errorf("%s on a full disk: isError %v, %q", w.tool, a.isError, a.text)
		}
	}
	// Nothing half written: the same refs, no lock, temporary file or
	// repository left; the fork has no row; every repository is whole.
	if got := gitLine(t, s.gitDir, "for-each-ref", "--format=%(refname) %(objectname)"); got != refsBefore {
		t.Errorf("refs changed:\n%s\nwere\n%s", got, refsBefore)
	}
	var residue, repositories []string
	_ = filepath.WalkDir(repos, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		switch {
		case strings.HasSuffix(name, ".git") && d.IsDir() && strings.Contains(p, "@hashed"):
			repositories = append(repositories, p)
		case strings.HasPrefix(name, "tmp_"), strings.HasSuffix(name, ".lock"), strings.HasPrefix(name, "glmcp-lock-"),
			strings.HasPrefix(name, "import-"), strings.HasPrefix(name, ".glmcp-write-check"):
			residue = append(residue, p)
		}
		return nil
	})
	if len(residue) > 0 {
		t.Errorf("left behind on the full disk: %v", residue)
	}
	if len(repositories) != 1 || repositories[0] != s.gitDir {
		t.Errorf("repositories on disk: %v, want only %s", repositories, s.gitDir)
	}
	for _, r := range repositories {
		gitLine(t, r, "fsck", "--strict", "--no-dangling")
	}
	if a := call("get_project", map[string]any{"id": "crash/fork"}); !a.isError {
		t.Errorf("the failed fork has a project: %v", a.data)
	}
	if a := call("get_merge_request", map[string]any{"project_id": "crash/repo", "merge_request_iid": iid}); a.isError || a.data["state"] != "opened" {
		t.Errorf("the merge request after a failed accept: %v %s", a.data["state"], a.text)
	}
	_, metrics := httpGet(t, base+"/metrics")
	for _, w := range writes {
		if line := `glmcp_storage_errors_total{tool="` + w.tool + `"} 1`; !strings.Contains(metrics, line) {
			t.Errorf("metrics lack %s", line)
		}
	}

	// Space again: the same writes succeed.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if code, body := httpGet(t, base+"/-/readiness"); code != http.StatusOK || !strings.Contains(body, `"repositories":"ok"`) {
		t.Errorf("readiness with space again: %d %s", code, body)
	}
	for _, w := range writes {
		if a := call(w.tool, w.args); a.isError {
			t.Errorf("%s with space again: %s", w.tool, a.text)
		}
	}
	gitLine(t, s.gitDir, "fsck", "--strict", "--no-dangling")

	// A read-only disk (EROFS) answers the same, then writes again.
	remount := func(mode string) {
		t.Helper()
		// A file open for writing (housekeeping's git, started by the
		// writes above, in the background) makes a remount read-only
		// busy until it ends: retry while the kernel says so.
		deadline := time.Now().Add(time.Minute)
		for {
			out, err := exec.Command("mount", "-o", "remount,"+mode, repos).CombinedOutput()
			if err == nil {
				return
			}
			if !strings.Contains(string(out), "busy") || time.Now().After(deadline) {
				t.Fatalf("remount %s: %v %s", mode, err, out)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	remount("ro")
	refsBefore = gitLine(t, s.gitDir, "for-each-ref", "--format=%(refname) %(objectname)")
	if a := call("add_commit", crashCommitArgs("main", "read-only.txt", false)); !a.isError || a.text != want {
		t.Errorf("add_commit on a read-only disk: isError %v, %q", a.isError, a.text)
	}
	if a := call("add_branch", map[string]any{"project_id": "crash/repo", "branch": "read-only", "ref": "main"}); !a.isError || a.text != want {
		t.Errorf("add_branch on a read-only disk: isError %v, %q", a.isError, a.text)
	}
	if code, body := httpGet(t, base+"/-/readiness"); code != http.StatusServiceUnavailable || !strings.Contains(body, `"repositories":"failed"`) {
		t.Errorf("readiness on a read-only disk: %d %s", code, body)
	}
	remount("rw")
	if got := gitLine(t, s.gitDir, "for-each-ref", "--format=%(refname) %(objectname)"); got != refsBefore {
		t.Errorf("refs changed on a read-only disk:\n%s\nwere\n%s", got, refsBefore)
	}
	if a := call("add_commit", crashCommitArgs("main", "read-only.txt", false)); a.isError {
		t.Errorf("add_commit once writable again: %s", a.text)
	}
}

// httpGet returns the status and body of a GET of url.
func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
