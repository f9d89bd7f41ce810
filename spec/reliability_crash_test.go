package spec

import (
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// crashSetup is one instance for the crash specs: a fresh PostgreSQL
// database, a repositories directory, alice (an administrator, so that
// she may fork into group crash too, and a maintainer of the project) and
// her token, and project crash/repo, empty.
type crashSetup struct {
	dsn, repos, token string
	flags             []string
	gitDir            string
	client            *http.Client
}

func newCrashSetup(t *testing.T, repos string) *crashSetup {
	t.Helper()
	s := &crashSetup{dsn: storetest.PostgresDSN(t), repos: repos, client: &http.Client{Timeout: time.Minute}}
	s.flags = []string{"--database-url", s.dsn, "--repositories-path", repos, "--secret", strings.Repeat("crash-spec-secret-", 3), "--demo=false"}
	twoProcCLI(t, s.flags, "migrate")
	twoProcCLI(t, s.flags, "users", "create", "--username", "alice", "--email", "alice@example.com", "--admin")
	id := twoProcCLI(t, s.flags, "projects", "create", "--path", "crash/repo")
	twoProcCLI(t, s.flags, "projects", "add-member", "--project", "crash/repo", "--user", "alice", "--access-level", "maintainer")
	s.token = twoProcCLI(t, s.flags, "tokens", "create", "--user", "alice", "--scopes", "api,mcp")
	s.gitDir = filepath.Join(repos, filepath.FromSlash(repository.HashedPath(mustAtoi(t, id))))
	return s
}

// crashCommitArgs are an add_commit on branch creating file (start_branch main
// when the branch is new).
func crashCommitArgs(branch, file string, fromMain bool) map[string]any {
	args := map[string]any{"project_id": "crash/repo", "branch": branch, "commit_message": "write " + file,
		"actions": []any{map[string]any{"action": "create", "file_path": file, "content": file + "\n"}}}
	if fromMain {
		args["start_branch"] = "main"
	}
	return args
}

// refLocks lists the lock files under the repository's refs.
func refLocks(gitDir string) []string {
	var out []string
	_ = filepath.WalkDir(filepath.Join(gitDir, "refs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".lock") {
			rel, _ := filepath.Rel(gitDir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// TestReliability_sigkillDuringWrites: the real binary on PostgreSQL, 8
// clients writing to 4 branches (add_commit, add_branch), SIGKILLed in the
// middle, 3 rounds. After each restart, a write to every branch succeeds
// at its first attempt (before: a ref lock the killed writer left made
// every write to its branch a conflict, for good), every commit answered
// before the kill is in its branch, and git fsck --strict is clean.
func TestReliability_sigkillDuringWrites(t *testing.T) {
	s := newCrashSetup(t, t.TempDir())
	branches := []string{"main", "b1", "b2", "b3"}
	ep, cmd := startServeCmd(t, s.flags, nil)
	for i, b := range branches {
		if a := callToolAt(t, s.client, ep, s.token, "add_commit", crashCommitArgs(b, "first-"+b, i > 0)); a.isError {
			t.Fatalf("first commit on %s: %s", b, a.text)
		}
	}
	var mu sync.Mutex
	answered := map[string][]string{} // branch → commits answered
	leftLocks := 0
	for round := range 3 {
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Go(func() {
				branch := branches[w%len(branches)]
				for i := 0; ctx.Err() == nil && i < 500; i++ {
					var a toolAnswer
					var err error
					if i%5 == 4 {
						a, err = callToolErr(ctx, s.client, ep, s.token, "add_branch",
							map[string]any{"project_id": "crash/repo", "branch": fmt.Sprintf("r%d-w%d-%d", round, w, i), "ref": branch})
					} else {
						a, err = callToolErr(ctx, s.client, ep, s.token, "add_commit", crashCommitArgs(branch, fmt.Sprintf("r%d-w%d-%d", round, w, i), false))
					}
					if err != nil {
						return // the server was killed
					}
					if a.isError {
						// Two writers of one branch: the loser is told.
						if !strings.HasPrefix(a.text, "Conflict: ") {
							t.Errorf("round %d worker %d: %s", round, w, a.text)
						}
						continue
					}
					if sha, _ := dig(a.data, "commit", "sha").(string); sha != "" {
						mu.Lock()
						answered[branch] = append(answered[branch], sha)
						mu.Unlock()
					}
				}
			})
		}
		time.Sleep(time.Duration(500+200*round) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		cancel()
		wg.Wait()
		locks := refLocks(s.gitDir)
		leftLocks += len(locks)
		t.Logf("round %d: killed with %d writes answered so far; locks left behind: %v", round, count(answered), locks)

		ep, cmd = startServeCmd(t, s.flags, nil)
		for _, b := range branches {
			a, err := callToolErr(context.Background(), s.client, ep, s.token, "add_commit", crashCommitArgs(b, fmt.Sprintf("after-kill-%d-%s", round, b), false))
			if err != nil || a.isError {
				t.Fatalf("round %d: the first write to %s after the restart failed: %v %s", round, b, err, a.text)
			}
			answered[b] = append(answered[b], dig(a.data, "commit", "sha").(string))
		}
	}
	t.Logf("lock files left by the kills in all: %d (each removed by the next write)", leftLocks)
	for b, shas := range answered {
		for _, sha := range shas {
			gitLine(t, s.gitDir, "merge-base", "--is-ancestor", sha, "refs/heads/"+b)
		}
	}
	// A lock of a branch no later write touches (an add_branch killed
	// midway) is removed by the recovery sweep the restart runs in the
	// background, which may still be running: wait for it.
	deadline := time.Now().Add(time.Minute)
	locks := refLocks(s.gitDir)
	for len(locks) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		locks = refLocks(s.gitDir)
	}
	if len(locks) > 0 {
		t.Errorf("locks left a minute after the writes: %v", locks)
	}
	gitLine(t, s.gitDir, "fsck", "--strict", "--no-dangling")
}

func count(m map[string][]string) int {
	n := 0
	for _, v := range m {
		n += len(v)
	}
	return n
}

// TestReliability_sigkillBetweenGitAndStore: accept_merge_request killed
// after it moved the target branch in git and before the store recorded
// the merge (the spec holds a SHARE lock on merge_requests, which lets the
// accept lock its row but not update it, and kills glmcp once git's main
// moved). The store still says opened then; the restart finds the merge in
// git and finishes it in the store before serving (the next read of the
// merge request would, TestMergeIntent_finishedAfterACrash): it reads
// merged, the store records git's merge commit, accepting again merges
// nothing.
func TestReliability_sigkillBetweenGitAndStore(t *testing.T) {
	s := newCrashSetup(t, t.TempDir())
	ep, cmd := startServeCmd(t, s.flags, nil)
	if a := callToolAt(t, s.client, ep, s.token, "add_commit", crashCommitArgs("main", "base.txt", false)); a.isError {
		t.Fatal(a.text)
	}
	feature := callToolAt(t, s.client, ep, s.token, "add_commit", crashCommitArgs("feature", "feature.txt", true))
	if feature.isError {
		t.Fatal(feature.text)
	}
	head := dig(feature.data, "commit", "sha").(string)
	mr := callToolAt(t, s.client, ep, s.token, "save_merge_request",
		map[string]any{"project_id": "crash/repo", "title": "Crash me", "source_branch": "feature", "target_branch": "main"})
	if mr.isError {
		t.Fatal(mr.text)
	}
	iid := int64(mr.data["iid"].(float64))
	before := gitLine(t, s.gitDir, "rev-parse", "refs/heads/main")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := pgx.Connect(ctx, s.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	tx, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE merge_requests IN SHARE MODE"); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = callToolErr(ctx, s.client, ep, s.token, "accept_merge_request",
			map[string]any{"project_id": "crash/repo", "merge_request_iid": iid, "sha": head})
	}()
	deadline := time.Now().Add(30 * time.Second)
	for gitLine(t, s.gitDir, "rev-parse", "refs/heads/main") == before {
		if time.Now().After(deadline) {
			t.Fatal("accept_merge_request did not move main within 30 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	<-done
	_ = tx.Rollback(ctx)
	merged := gitLine(t, s.gitDir, "rev-parse", "refs/heads/main")
	var state string
	if err := db.QueryRow(ctx, "SELECT state FROM merge_requests WHERE iid = $1", iid).Scan(&state); err != nil || state != "opened" {
		t.Fatalf("after the kill the store says %q (%v); the spec needs the merge in git only", state, err)
	}

	ep, _ = startServeCmd(t, s.flags, nil)
	// Finished at start, before anyone reads it.
	if err := db.QueryRow(ctx, "SELECT state FROM merge_requests WHERE iid = $1", iid).Scan(&state); err != nil || state != "merged" {
		t.Fatalf("after the restart the store says %q (%v), want merged", state, err)
	}
	got := callToolAt(t, s.client, ep, s.token, "get_merge_request", map[string]any{"project_id": "crash/repo", "merge_request_iid": iid})
	if got.isError {
		t.Fatal(got.text)
	}
	if got.data["state"] != "merged" {
		t.Fatalf("after the restart: state %v, want merged", got.data["state"])
	}
	var sha string
	if err := db.QueryRow(ctx, "SELECT state, merge_commit_sha FROM merge_requests WHERE iid = $1", iid).Scan(&state, &sha); err != nil ||
		state != "merged" || sha != merged {
		t.Fatalf("the store says %q at %q (%v), want merged at %s", state, sha, err, merged)
	}
	again := callToolAt(t, s.client, ep, s.token, "accept_merge_request",
		map[string]any{"project_id": "crash/repo", "merge_request_iid": iid, "sha": head})
	if again.isError || again.data["status"] != "already_merged" {
		t.Fatalf("accept again: %v %s", again.data, again.text)
	}
	if after := gitLine(t, s.gitDir, "rev-parse", "refs/heads/main"); after != merged {
		t.Fatalf("main moved again: %s, was %s", after, merged)
	}
	gitLine(t, s.gitDir, "fsck", "--strict", "--no-dangling")
}

// mountTmpfs mounts a tmpfs of size bytes on a new directory and returns
// it, unmounted at the end; it skips the test where mounting is not
// allowed (not root, no CAP_SYS_ADMIN).
func mountTmpfs(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput()
	if err != nil {
		t.Skipf("cannot mount a tmpfs here (%v: %s): the full-disk spec needs root", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
			_ = exec.Command("umount", "-l", dir).Run()
		}
	})
	return dir
}
