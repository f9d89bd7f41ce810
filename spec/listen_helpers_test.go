package spec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/app"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/subscriptions"
)

// listenCall is a Modern subscriptions/listen request to url ("": the
// CE endpoint) as user, asking for notifications (nil: no filter member).
func listenCall(url, user string, id any, notifications map[string]any) call {
	c := call{Era: modern, URL: url, User: user, ID: id, Method: "subscriptions/listen", Params: map[string]any{}}
	if notifications != nil {
		c.Params["notifications"] = notifications
	}
	return c
}

// toolsOnly is the filter asking for tool list changes.
func toolsOnly() map[string]any { return map[string]any{"toolsListChanged": true} }

// listen opens the stream of c (a listenCall), checks the response
// headers and the acknowledgement, and returns the stream positioned after
// it.
func (h *harness) listen(t testing.TB, c call) *sseStream {
	t.Helper()
	s := h.stream(t, c)
	checkStreamHeaders(t, s.Resp)
	notifications, _ := c.Params["notifications"].(map[string]any)
	wantTools, _ := notifications["toolsListChanged"].(bool)
	expectAck(t, s, c.ID, wantTools)
	return s
}

// checkStreamHeaders asserts what every SSE response of glmcp carries.
func checkStreamHeaders(t testing.TB, r *http.Response) {
	t.Helper()
	if r.StatusCode != http.StatusOK {
		t.Errorf("status = %d, want 200", r.StatusCode)
	}
	for name, want := range map[string]string{
		"Content-Type":      "text/event-stream",
		"X-Accel-Buffering": "no",
		"Cache-Control":     "no-cache",
	} {
		if got := r.Header.Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

// expectAck reads the first event, which must be the acknowledgement (not
// even a keep-alive comes first), validates it and checks its subscription
// id (the request id, same JSON type) and honoured filter.
func expectAck(t testing.TB, s *sseStream, id any, wantTools bool) {
	t.Helper()
	ev, ok := s.next(t)
	if !ok || ev.IsComment {
		t.Fatalf("first event = %+v (stream open %v), want the acknowledgement", ev, ok)
	}
	validateMessage(t, revModern, "JSONRPCNotification", ev.Data)
	validateMessage(t, revModern, "SubscriptionsAcknowledgedNotification", ev.Data)
	var ack struct {
		Method string `json:"method"`
		Params struct {
			Meta          map[string]json.RawMessage `json:"_meta"`
			Notifications map[string]any             `json:"notifications"`
		} `json:"params"`
	}
	decodeJSONInto(t, ev.Data, &ack)
	if ack.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first message method = %q, want notifications/subscriptions/acknowledged", ack.Method)
	}
	checkSubscriptionID(t, ack.Params.Meta, id, ev.Data)
	want := map[string]any{}
	if wantTools {
		want["toolsListChanged"] = true
	}
	if !sameJSON(t, ack.Params.Notifications, want) {
		t.Errorf("acknowledged notifications = %v, want %v", ack.Params.Notifications, want)
	}
}

// expectListChanged checks that msg is a tools/list_changed notification
// tagged with the subscription id.
func expectListChanged(t testing.TB, msg []byte, id any) {
	t.Helper()
	validateMessage(t, revModern, "ToolListChangedNotification", msg)
	var n struct {
		Method string `json:"method"`
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	decodeJSONInto(t, msg, &n)
	if n.Method != "notifications/tools/list_changed" {
		t.Fatalf("message = %s, want notifications/tools/list_changed", msg)
	}
	checkSubscriptionID(t, n.Params.Meta, id, msg)
}

// expectFinal checks the graceful final subscriptions/listen result.
func expectFinal(t testing.TB, msg []byte, id any) {
	t.Helper()
	validateMessage(t, revModern, "SubscriptionsListenResultResponse", msg)
	validateResult(t, revModern, "SubscriptionsListenResult", msg)
	var r struct {
		ID     json.RawMessage `json:"id"`
		Result struct {
			ResultType string                     `json:"resultType"`
			Meta       map[string]json.RawMessage `json:"_meta"`
		} `json:"result"`
	}
	decodeJSONInto(t, msg, &r)
	if want := encodeJSONOf(t, id); string(r.ID) != string(want) {
		t.Errorf("final result id = %s, want %s", r.ID, want)
	}
	if r.Result.ResultType != "complete" {
		t.Errorf("resultType = %q, want complete", r.Result.ResultType)
	}
	checkSubscriptionID(t, r.Result.Meta, id, msg)
	var info struct{ Name, Version string }
	if raw, ok := r.Result.Meta["io.modelcontextprotocol/serverInfo"]; !ok || json.Unmarshal(raw, &info) != nil || info.Name == "" || info.Version == "" {
		t.Errorf("final result _meta lacks serverInfo {name, version}: %s", msg)
	}
}

// expectTranscript reads a stream that the server is ending (after
// BeginShutdown) to its end and checks it holds changes list_changed
// notifications and then the final result, nothing else.
func expectTranscript(t testing.TB, s *sseStream, id any, changes int) {
	t.Helper()
	msgs := s.rest(t)
	if len(msgs) != changes+1 {
		t.Fatalf("stream carried %d messages after the acknowledgement, want %d list_changed and the final result:\n%s",
			len(msgs), changes, bytes.Join(msgs, []byte("\n")))
	}
	for _, m := range msgs[:changes] {
		expectListChanged(t, m, id)
	}
	expectFinal(t, msgs[changes], id)
}

func checkSubscriptionID(t testing.TB, meta map[string]json.RawMessage, id any, msg []byte) {
	t.Helper()
	got, ok := meta["io.modelcontextprotocol/subscriptionId"]
	if want := encodeJSONOf(t, id); !ok || string(got) != string(want) {
		t.Errorf("_meta subscriptionId = %s, want %s (the request id, same type): %s", got, want, msg)
	}
}

func decodeJSONInto(t testing.TB, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
}

func encodeJSONOf(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sameJSON(t testing.TB, a, b any) bool {
	t.Helper()
	return string(encodeJSONOf(t, a)) == string(encodeJSONOf(t, b))
}

// withKeepAlive sets the listen keep-alive interval.
func withKeepAlive(d time.Duration) option { return func(c *app.Config) { c.KeepAlive = d } }

// withStreamCaps sets the per-user and instance caps on listen streams.
func withStreamCaps(perUser, total int) option {
	return func(c *app.Config) { c.MaxUserStreams, c.MaxStreams = perUser, total }
}

// eventually polls cond until it holds, failing the test after liveBound.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(liveBound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, liveBound)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// settledGoroutines returns the goroutine count once it has stopped
// moving (the same over several polls), or the last count after a while.
func settledGoroutines() int {
	last, same := runtime.NumGoroutine(), 0
	for range 100 {
		time.Sleep(20 * time.Millisecond)
		n := runtime.NumGoroutine()
		if n == last {
			if same++; same >= 5 {
				return n
			}
			continue
		}
		last, same = n, 0
	}
	return last
}

// waitGoroutinesAtMost waits until at most n goroutines run, and reports the
// goroutines still running when they do not get there within liveBound.
func waitGoroutinesAtMost(t testing.TB, n int) {
	t.Helper()
	deadline := time.Now().Add(liveBound)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%d goroutines after %v, want at most %d (the baseline); stacks:\n%s", runtime.NumGoroutine(), liveBound, n, buf)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// publishChange sends a catalog event straight to the instance's hub — the path
// a change takes once the instance has learned of it.
func (h *harness) publishChange(tool string, edition models.Edition) {
	h.Server.Hub().Publish(subscriptions.Event{Kind: subscriptions.KindTools, Tool: tool, Edition: edition})
}

// mintScopedToken mints a token for a demo user with the given scopes,
// expiring in a week (see authMint).
func (h *harness) mintScopedToken(t testing.TB, username string, scopes ...string) string {
	t.Helper()
	raw, _ := authMint(t, h, username, scopes, authDay(7))
	return raw
}

var (
	cliOnce sync.Once
	cliPath string
	cliErr  error
)

// cliBinary builds cmd/glmcp once per test binary and returns its path.
// Builds left by earlier runs (older than an hour) are removed first.
// GLMCP_SPEC_GLMCP_BINARY names one already built instead (scripts/test
// builds it once for all its spec shards, which would otherwise each link
// their own).
func cliBinary(t testing.TB) string {
	t.Helper()
	cliOnce.Do(func() {
		if p := os.Getenv("GLMCP_SPEC_GLMCP_BINARY"); p != "" {
			if _, err := os.Stat(p); err != nil {
				cliErr = errors.New("GLMCP_SPEC_GLMCP_BINARY: " + err.Error())
			}
			cliPath = p
			return
		}
		stale, _ := filepath.Glob(filepath.Join(os.TempDir(), "glmcp-spec-cli-*"))
		for _, d := range stale {
			if fi, err := os.Stat(d); err == nil && time.Since(fi.ModTime()) > time.Hour {
				_ = os.RemoveAll(d)
			}
		}
		dir, err := os.MkdirTemp("", "glmcp-spec-cli-")
		if err != nil {
			cliErr = err
			return
		}
		cliPath = filepath.Join(dir, "glmcp")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, "go", "build", "-o", cliPath, "gitlab.com/glmcp/glmcp/cmd/glmcp").CombinedOutput()
		if err != nil {
			cliErr = errors.New("go build ./cmd/glmcp: " + err.Error() + "\n" + string(out))
		}
	})
	if cliErr != nil {
		t.Fatal(cliErr)
	}
	return cliPath
}

// runGlmcp runs the glmcp CLI against h's store (its database URL, or its
// embedded store's data directory) with h's secret, and returns stdout.
func (h *harness) runGlmcp(t testing.TB, args ...string) string {
	t.Helper()
	bin := cliBinary(t)
	args = append(args, "--secret", h.Cfg.Secret, "--log-level", "error")
	if h.Env.Embedded {
		args = append(args, "--data-dir", h.Cfg.DataDir)
	} else {
		args = append(args, "--database-url", h.Cfg.DatabaseURL, "--repositories-path", h.Cfg.RepositoriesPath)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = cliEnv()
	if err := cmd.Run(); err != nil {
		t.Fatalf("glmcp %s: %v\nstderr: %s", strings.Join(args[:2], " "), err, stderr.String())
	}
	return stdout.String()
}

// cliEnv is the test's environment without GLMCP_* settings, so only the
// flags configure the CLI.
func cliEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GLMCP_") {
			env = append(env, kv)
		}
	}
	return env
}

// listedToolNames lists the tool names of a Modern tools/list as user on
// endpoint (first page), which must be a valid, non-empty ListToolsResult
// (so a "not listed" assertion cannot pass on a failed or empty listing).
func (h *harness) listedToolNames(t testing.TB, endpoint, user string) []string {
	t.Helper()
	r := h.send(t, call{Era: modern, URL: endpoint, User: user, ID: "list", Method: "tools/list"})
	names := toolNames(t, r.ok(t))
	if len(names) == 0 {
		t.Fatalf("tools/list as %s lists no tools: %s", user, r.Body)
	}
	return names
}
