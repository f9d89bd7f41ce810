package spec

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// twoProcCLI runs the glmcp binary with the shared settings of the two
// servers and returns stdout.
func twoProcCLI(t *testing.T, flags []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cliBinary(t), append(args, flags...)...)
	cmd.Env = cliEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("glmcp %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(stdout.String())
}

// startServeProcess starts `glmcp serve` with flags and returns its
// endpoint once it logs "serving"; the process is killed at the end.
func startServeProcess(t *testing.T, flags []string) string {
	t.Helper()
	endpoint, _ := startServeCmd(t, flags, nil)
	return endpoint
}

// startServeCmd is startServeProcess returning the process too (to be
// killed by the caller), its log lines also sent to logs when not nil.
func startServeCmd(t *testing.T, flags []string, logs chan<- string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(cliBinary(t), append([]string{"serve", "--listen", "127.0.0.1:0", "--rate-limit", "0", "--log-level", "info"}, flags...)...)
	cmd.Env = cliEnv()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addrs := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if logs != nil {
				select {
				case logs <- sc.Text():
				default: // nobody reads: dropped, never blocking the process
				}
			}
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "serving" {
				addrs <- line.Addr
			}
		}
	}()
	select {
	case addr := <-addrs:
		return "http://" + addr + cePath, cmd
	case <-time.After(2 * time.Minute):
		t.Fatal("glmcp serve did not start within 2 minutes")
		return "", nil
	}
}

// toolAnswer is one tools/call's outcome: the text, and whether it was a
// tool error.
type toolAnswer struct {
	isError bool
	text    string
	data    map[string]any
}

func callToolAt(t *testing.T, client *http.Client, endpoint, token, tool string, args map[string]any) toolAnswer {
	a, err := callToolErr(context.Background(), client, endpoint, token, tool, args)
	if err != nil {
		t.Error(err)
		return toolAnswer{isError: true}
	}
	return a
}

// callToolErr is callToolAt returning what went wrong (the connection, an
// HTTP status, no tool result) as an error instead of failing the test:
// for calls to a server that is being killed.
func callToolErr(ctx context.Context, client *http.Client, endpoint, token, tool string, args map[string]any) (toolAnswer, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return toolAnswer{}, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		return toolAnswer{}, fmt.Errorf("%s: %w", tool, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return toolAnswer{}, fmt.Errorf("%s: %w", tool, err)
	}
	if resp.StatusCode != http.StatusOK {
		return toolAnswer{}, fmt.Errorf("%s: HTTP %d: %s", tool, resp.StatusCode, raw)
	}
	if i := bytes.Index(raw, []byte("data: ")); i >= 0 && !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		raw = raw[i+len("data: "):]
		if j := bytes.IndexByte(raw, '\n'); j >= 0 {
			raw = raw[:j]
		}
	}
	var rpc struct {
		Result struct {
			IsError           bool             `json:"isError"`
			Content           []map[string]any `json:"content"`
			StructuredContent map[string]any   `json:"structuredContent"`
		} `json:"result"`
		Error *struct{ Message string } `json:"error"`
	}
	if err := json.Unmarshal(raw, &rpc); err != nil || rpc.Error != nil {
		return toolAnswer{}, fmt.Errorf("%s: not a tool result: %s", tool, raw)
	}
	a := toolAnswer{isError: rpc.Result.IsError, data: rpc.Result.StructuredContent}
	for _, c := range rpc.Result.Content {
		if s, ok := c["text"].(string); ok {
			a.text += s
		}
	}
	return a, nil
}

// TestRepository_twoProcessesRace: two glmcp servers on one database and
// one repositories path. In each round both get the same add_commit (on
// main, guarded by last_commit_id, so only one can apply however the two
// interleave) and the same add_branch at once: exactly one wins each race,
// the loser gets a conflict as a tool error, the branch ends at the
// winner's commit, every answered commit is still in the history, and
// git fsck --strict is clean.
func TestRepository_twoProcessesRace(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	repos := t.TempDir()
	secret := strings.Repeat("s3cret-for-two-processes-", 2)
	flags := []string{"--database-url", dsn, "--repositories-path", repos, "--secret", secret, "--demo=false"}
	twoProcCLI(t, flags, "migrate")
	twoProcCLI(t, flags, "users", "create", "--username", "alice", "--email", "alice@example.com")
	id := twoProcCLI(t, flags, "projects", "create", "--path", "race/repo")
	twoProcCLI(t, flags, "projects", "add-member", "--project", "race/repo", "--user", "alice", "--access-level", "maintainer")
	token := twoProcCLI(t, flags, "tokens", "create", "--user", "alice", "--scopes", "api,mcp")
	endpoints := []string{startServeProcess(t, flags), startServeProcess(t, flags)}
	client := &http.Client{Timeout: time.Minute}

	first := callToolAt(t, client, endpoints[0], token, "add_commit", map[string]any{"project_id": "race/repo", "branch": "main",
		"commit_message": "start", "actions": []any{map[string]any{"action": "create", "file_path": "race.txt", "content": "0\n"}}})
	if first.isError {
		t.Fatalf("first commit: %s", first.text)
	}
	gitDir := filepath.Join(repos, filepath.FromSlash(repository.HashedPath(mustAtoi(t, id))))
	head := func() string { return gitLine(t, gitDir, "rev-parse", "refs/heads/main") }
	var answered []string
	const rounds = 12
	for round := range rounds {
		parent := head()
		results := make([]toolAnswer, 4)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range 2 {
			wg.Go(func() {
				<-start
				results[i] = callToolAt(t, client, endpoints[i], token, "add_commit", map[string]any{"project_id": "race/repo", "branch": "main",
					"commit_message": fmt.Sprintf("round %d from server %d", round, i),
					"actions": []any{map[string]any{"action": "update", "file_path": "race.txt",
						"content": fmt.Sprintf("%d by %d\n", round, i), "last_commit_id": parent}}})
			})
			wg.Go(func() {
				<-start
				results[2+i] = callToolAt(t, client, endpoints[i], token, "add_branch", map[string]any{"project_id": "race/repo",
					"branch": fmt.Sprintf("round-%d", round), "ref": parent})
			})
		}
		close(start)
		wg.Wait()
		for _, pair := range [][2]int{{0, 1}, {2, 3}} {
			a, b := results[pair[0]], results[pair[1]]
			if a.isError == b.isError {
				t.Fatalf("round %d: both %v (%q / %q); want exactly one winner", round, a.isError, a.text, b.text)
			}
			loser := a
			if !a.isError {
				loser = b
			}
			if round == 0 {
				t.Logf("a loser's answer: %s", loser.text)
			}
			if !strings.Contains(strings.ToLower(loser.text), "conflict") && !strings.Contains(loser.text, "already exists") &&
				!strings.Contains(loser.text, "changed since") && !strings.Contains(loser.text, "has been modified") {
				t.Errorf("round %d: the loser's answer does not say it lost a race: %q", round, loser.text)
			}
		}
		winner := results[0]
		if winner.isError {
			winner = results[1]
		}
		commitID, _ := dig(winner.data, "commit", "sha").(string)
		if commitID == "" {
			commitID, _ = dig(winner.data, "commit", "id").(string)
		}
		if got := head(); commitID == "" || got != commitID {
			t.Fatalf("round %d: main is at %s, the winner answered %q (%v)", round, got, commitID, winner.data)
		}
		if got := gitLine(t, gitDir, "rev-parse", "refs/heads/round-"+fmt.Sprint(round)); got != parent {
			t.Errorf("round %d: branch at %s, want %s", round, got, parent)
		}
		answered = append(answered, commitID)
	}
	for _, c := range answered {
		gitLine(t, gitDir, "merge-base", "--is-ancestor", c, "refs/heads/main")
	}
	if n := gitLine(t, gitDir, "rev-list", "--count", "refs/heads/main"); n != fmt.Sprint(rounds+1) {
		t.Errorf("main has %s commits, want %d (one per round and the first)", n, rounds+1)
	}
	gitLine(t, gitDir, "fsck", "--strict", "--no-dangling")
}

func gitLine(t *testing.T, gitDir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"--git-dir", gitDir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func dig(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}

func mustAtoi(t *testing.T, s string) int64 {
	t.Helper()
	var n int64
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatalf("not a project id: %q", s)
	}
	return n
}
