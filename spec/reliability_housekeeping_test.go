package spec

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Eight agents writing to one project while its repository is maintained
// (issue #33, part 1): before, 2 of 4,930 requests answered HTTP 500
// "object not found" — go-git read the pack directory while housekeeping
// repacked it. The real binary on PostgreSQL, real git, real HTTP.
//
// Two variants: housekeeping at its real thresholds (every 50 ref
// updates), and an operator's repack forced every 300 ms besides it
// (alternately git repack -d, --geometric=2 -d and -a -d, each followed
// by prune-packed). Each runs 6 s; scripts/reliability --long runs them a
// minute each. Every answer must be a result (no HTTP status ≥ 500, no
// JSON-RPC error); a tool error only a Conflict of a lost race; every
// commit answered is in its branch (every merge in main); git fsck
// --strict is clean.
func TestReliability_writersBesideHousekeeping(t *testing.T) {
	for _, forced := range []bool{false, true} {
		name := "thresholds"
		if forced {
			name = "forcedRepack"
		}
		t.Run(name, func(t *testing.T) { relWritersBesideHousekeeping(t, forced) })
	}
}

// relWriterCounts are one run's outcomes.
type relWriterCounts struct {
	ok, conflicts, failures atomic.Int64
}

func relWritersBesideHousekeeping(t *testing.T, forced bool) {
	duration := 6 * time.Second
	if *relLong {
		duration = time.Minute
	}
	s := newCrashSetup(t, t.TempDir())
	logs := make(chan string, 4096)
	ep, _ := startServeCmd(t, s.flags, logs)
	var logMu sync.Mutex
	var serverErrors []string
	stopLogs := make(chan struct{})
	defer close(stopLogs)
	go func() {
		for {
			select {
			case <-stopLogs:
				return
			case line := <-logs:
				if strings.Contains(line, `"level":"ERROR"`) || strings.Contains(line, "object not found") {
					logMu.Lock()
					serverErrors = append(serverErrors, line)
					logMu.Unlock()
				}
			}
		}
	}()
	call := func(ctx context.Context, tool string, args map[string]any) (toolAnswer, error) {
		return callToolErr(ctx, s.client, ep, s.token, tool, args)
	}
	for _, b := range []string{"main", "shared"} {
		if a, err := call(context.Background(), "add_commit", crashCommitArgs(b, "first-"+b, b != "main")); err != nil || a.isError {
			t.Fatalf("first commit on %s: %v %s", b, err, a.text)
		}
	}
	if a, err := call(context.Background(), "create_issue", map[string]any{"id": "crash/repo", "title": "Notes go here"}); err != nil || a.isError {
		t.Fatalf("create_issue: %v %s", err, a.text)
	}

	ctx, cancel := context.WithTimeout(context.Background(), duration)
	defer cancel()
	var counts relWriterCounts
	var mu sync.Mutex
	answered := map[string][]string{} // branch → commits answered on it
	keep := func(branch, sha string) {
		if sha != "" {
			mu.Lock()
			answered[branch] = append(answered[branch], sha)
			mu.Unlock()
		}
	}
	// outcome classifies one answer; it reports whether the call succeeded.
	outcome := func(w int, tool string, a toolAnswer, err error) bool {
		switch {
		case err != nil && ctx.Err() != nil:
			return false // the run ended under it
		case err != nil:
			counts.failures.Add(1)
			t.Errorf("worker %d %s: %v", w, tool, err)
			return false
		case a.isError && strings.HasPrefix(a.text, "Conflict: "):
			counts.conflicts.Add(1)
			return false
		case a.isError:
			counts.failures.Add(1)
			t.Errorf("worker %d %s: %s", w, tool, a.text)
			return false
		}
		counts.ok.Add(1)
		return true
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				file := fmt.Sprintf("w%d-%d", w, i)
				switch w {
				case 0, 1: // one branch shared by two writers
					a, err := call(ctx, "add_commit", crashCommitArgs("shared", file, false))
					if outcome(w, "add_commit", a, err) {
						keep("shared", stringAt(a.data, "commit", "sha"))
					}
				case 2, 3: // a branch each
					branch := fmt.Sprintf("own-%d", w)
					a, err := call(ctx, "add_commit", crashCommitArgs(branch, file, i == 0))
					if outcome(w, "add_commit", a, err) {
						keep(branch, stringAt(a.data, "commit", "sha"))
					}
				case 4, 5: // a merge request from a new branch, merged
					branch := "mr-" + file
					a, err := call(ctx, "add_branch", map[string]any{"project_id": "crash/repo", "branch": branch, "ref": "main"})
					if !outcome(w, "add_branch", a, err) {
						continue
					}
					a, err = call(ctx, "add_commit", crashCommitArgs(branch, file, false))
					if !outcome(w, "add_commit", a, err) {
						continue
					}
					head := stringAt(a.data, "commit", "sha")
					keep(branch, head)
					a, err = call(ctx, "save_merge_request", map[string]any{"project_id": "crash/repo", "title": file,
						"source_branch": branch, "target_branch": "main"})
					if !outcome(w, "save_merge_request", a, err) {
						continue
					}
					iid, _ := a.data["iid"].(float64)
					a, err = call(ctx, "accept_merge_request", map[string]any{"project_id": "crash/repo",
						"merge_request_iid": int64(iid), "sha": head})
					if outcome(w, "accept_merge_request", a, err) {
						keep("main", stringAt(a.data, "merge_commit_sha"))
					}
				default: // notes, and reads of what the others write
					a, err := call(ctx, "save_note", map[string]any{"project_id": "crash/repo", "work_item_iid": 1, "body": file})
					outcome(w, "save_note", a, err)
					a, err = call(ctx, "get_repository_file", map[string]any{"project_id": "crash/repo", "file_path": "first-shared", "ref": "shared"})
					outcome(w, "get_repository_file", a, err)
				}
			}
		})
	}
	repacks := 0
	if forced {
		tick := time.NewTicker(300 * time.Millisecond)
		for ctx.Err() == nil {
			select {
			case <-ctx.Done():
			case <-tick.C:
				flags := [][]string{{"-d"}, {"--geometric=2", "-d"}, {"-a", "-d"}}[repacks%3]
				if err := relGit(s.gitDir, append([]string{"repack", "-q"}, flags...)...); err != nil {
					t.Errorf("forced repack: %v", err)
				}
				if err := relGit(s.gitDir, "prune-packed"); err != nil {
					t.Errorf("prune-packed: %v", err)
				}
				repacks++
			}
		}
		tick.Stop()
	}
	<-ctx.Done()
	wg.Wait()
	packs, _ := filepath.Glob(filepath.Join(s.gitDir, "objects", "pack", "*.pack"))
	_, graphErr := os.Stat(filepath.Join(s.gitDir, "objects", "info", "commit-graphs", "commit-graph-chain"))
	t.Logf("%s: %d answered, %d conflicts, %d failures; %d forced repacks; %d packs at the end, commit-graph written: %v",
		duration, counts.ok.Load(), counts.conflicts.Load(), counts.failures.Load(), repacks, len(packs), graphErr == nil)
	if counts.ok.Load() == 0 {
		t.Fatal("no call succeeded")
	}
	if !forced && graphErr != nil {
		t.Errorf("housekeeping never ran beside the writes (no commit-graph): %v", graphErr)
	}
	n := 0
	for branch, shas := range answered {
		for _, sha := range shas {
			if err := relGit(s.gitDir, "merge-base", "--is-ancestor", sha, "refs/heads/"+branch); err != nil {
				t.Errorf("commit %s answered on %s is not in it: %v", sha, branch, err)
			}
			n++
		}
	}
	t.Logf("%d answered commits, each in its branch", n)
	if err := relGit(s.gitDir, "fsck", "--strict", "--no-dangling", "--no-progress"); err != nil {
		t.Errorf("git fsck --strict: %v", err)
	}
	time.Sleep(100 * time.Millisecond) // the last log lines
	logMu.Lock()
	defer logMu.Unlock()
	for _, line := range serverErrors {
		t.Errorf("server log: %s", line)
	}
}

// stringAt is the string at keys in m ("" when there is none).
func stringAt(m map[string]any, keys ...string) string {
	s, _ := dig(m, keys...).(string)
	return s
}

// relGit runs git on the repository gitDir, the error carrying its
// output.
func relGit(gitDir string, args ...string) error {
	cmd := exec.Command("git", append([]string{"--git-dir", gitDir, "-c", "gc.auto=0"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME=/nonexistent")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return nil
}
