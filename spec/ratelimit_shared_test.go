package spec

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/services/redislimit/redistest"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// instance is one `glmcp serve` process of a cluster.
type instance struct {
	base, ce string
	cmd      *exec.Cmd
	h        *harness // for send and open against this instance

	mu   sync.Mutex
	msgs []string // the msg of every log line, in order
}

// logged counts the log lines whose msg starts with prefix.
func (in *instance) logged(prefix string) int {
	in.mu.Lock()
	defer in.mu.Unlock()
	n := 0
	for _, m := range in.msgs {
		if strings.HasPrefix(m, prefix) {
			n++
		}
	}
	return n
}

// kill ends the process at once (SIGKILL): nothing is released.
func (in *instance) kill() {
	_ = in.cmd.Process.Signal(syscall.SIGKILL)
	_ = in.cmd.Wait()
}

// cluster is n glmcp processes on one PostgreSQL database and one private
// redis-server, as behind a load balancer.
type cluster struct {
	redis     *redistest.Server
	instances []*instance
	tokens    map[string]string // alice, bob, carol
}

// startCluster starts n instances of `glmcp serve` with serveFlags, sharing
// a fresh PostgreSQL database and a fresh redis-server (the specs skip
// without redis-server, and fail under CI=true).
func startCluster(t *testing.T, n int, serveFlags ...string) *cluster {
	t.Helper()
	rs := redistest.Start(t)
	dsn := storetest.PostgresDSN(t)
	flags := []string{"--database-url", dsn, "--repositories-path", t.TempDir(),
		"--secret", strings.Repeat("shared-limits-secret-", 2), "--demo=false"}
	twoProcCLI(t, flags, "migrate")
	c := &cluster{redis: rs, tokens: map[string]string{}}
	for _, u := range []string{"alice", "bob", "carol"} {
		twoProcCLI(t, flags, "users", "create", "--username", u, "--email", u+"@example.com")
		c.tokens[u] = twoProcCLI(t, flags, "tokens", "create", "--user", u, "--scopes", "api,mcp")
	}
	serve := append(append(flags, "--redis-url", rs.URL()), serveFlags...)
	for range n {
		c.instances = append(c.instances, startInstance(t, serve, c.tokens))
	}
	return c
}

// startInstance starts `glmcp serve` and returns once it serves.
func startInstance(t *testing.T, flags []string, tokens map[string]string) *instance {
	t.Helper()
	cmd := exec.Command(cliBinary(t), append([]string{"serve", "--listen", "127.0.0.1:0", "--log-level", "info"}, flags...)...)
	cmd.Env = cliEnv()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	in := &instance{cmd: cmd}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addrs := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) != nil {
				continue
			}
			in.mu.Lock()
			in.msgs = append(in.msgs, line.Msg)
			in.mu.Unlock()
			if line.Msg == "serving" {
				addrs <- line.Addr
			}
		}
	}()
	select {
	case addr := <-addrs:
		in.base = "http://" + addr
		in.ce = in.base + cePath
		in.h = &harness{URL: in.base, CE: in.ce, Tokens: tokens}
		return in
	case <-time.After(2 * time.Minute):
		t.Fatal("glmcp serve did not start within 2 minutes")
		return nil
	}
}

// backendGauge reads glmcp_ratelimit_backend{backend=...} from /metrics.
func (in *instance) backendGauge(t *testing.T, backend string) string {
	t.Helper()
	r := in.h.send(t, call{Verb: http.MethodGet, URL: in.base + "/metrics"})
	prefix := `glmcp_ratelimit_backend{backend="` + backend + `"} `
	for _, line := range strings.Split(string(r.Body), "\n") {
		if v, ok := strings.CutPrefix(line, prefix); ok {
			return v
		}
	}
	t.Fatalf("/metrics has no %s", strings.TrimSpace(prefix))
	return ""
}

// Many instances behave as one: a user's budget is exact across three
// instances, with consistent RateLimit headers; a user's own limit set
// with the CLI reaches every instance at once; the per-user listen stream
// cap holds across instances, and a killed instance's slots free
// themselves within the lease; a ban earned on one instance refuses the
// address on all.
func TestSharedLimits_acrossInstances(t *testing.T) {
	const lease = 2 * time.Second
	c := startCluster(t, 3, "--rate-limit", "10/60s", "--auth-failure-limit", "3/60s",
		"--max-user-streams", "2", "--redis-stream-lease", lease.String())
	ins := c.instances

	t.Run("budget", func(t *testing.T) {
		start := time.Now()
		var allowed []string
		refused := 0
		for i := range 30 {
			in := ins[i%3]
			r := in.h.send(t, call{User: "alice", ID: i, Method: "ping"})
			if got := r.Header.Get("RateLimit-Limit"); got != "10" {
				t.Fatalf("request %d: RateLimit-Limit %q, want 10", i+1, got)
			}
			if got := r.Header.Get("RateLimit-Policy"); got != "10;w=60" {
				t.Fatalf("request %d: RateLimit-Policy %q, want 10;w=60", i+1, got)
			}
			switch r.Status {
			case http.StatusOK:
				allowed = append(allowed, r.Header.Get("RateLimit-Remaining"))
			case http.StatusTooManyRequests:
				refused++
				msg, _ := r.expectError(t, http.StatusTooManyRequests, -31029)
				retry, err := strconv.Atoi(r.Header.Get("Retry-After"))
				if err != nil || retry < 1 || retry > 6 {
					t.Fatalf("request %d: Retry-After %q, want 1..6 (one token per 6s)", i+1, r.Header.Get("Retry-After"))
				}
				if want := fmt.Sprintf("Rate limit exceeded, retry in %d seconds", retry); msg != want {
					t.Fatalf("request %d: message %q, want %q", i+1, msg, want)
				}
				if r.Header.Get("RateLimit-Remaining") != "0" {
					t.Fatalf("request %d refused with RateLimit-Remaining %q", i+1, r.Header.Get("RateLimit-Remaining"))
				}
			default:
				t.Fatalf("request %d: status %d: %s", i+1, r.Status, r.Body)
			}
		}
		// One token comes back every 6s: a slow run may earn one more.
		extra := int(time.Since(start) / (6 * time.Second))
		if len(allowed) != 10+extra || refused != 20-extra {
			t.Fatalf("%d allowed, %d refused in %s; want %d and %d", len(allowed), refused, time.Since(start), 10+extra, 20-extra)
		}
		if extra == 0 && strings.Join(allowed, ",") != "9,8,7,6,5,4,3,2,1,0" {
			t.Fatalf("RateLimit-Remaining of the allowed requests = %v, want 9 down to 0 across the instances", allowed)
		}
		if n := c.redis.Int(append([]string{"EXISTS"}, redisKeys(t, c, "*rl:user:*")...)...); n != 1 {
			t.Fatalf("user buckets in Redis: %d, want 1", n)
		}
	})

	t.Run("a user's own limit reaches every instance", func(t *testing.T) {
		for i, in := range ins {
			if r := in.h.send(t, call{User: "bob", ID: i, Method: "ping"}); r.Status != http.StatusOK || r.Header.Get("RateLimit-Limit") != "10" {
				t.Fatalf("bob on instance %d: %d, RateLimit-Limit %q", i, r.Status, r.Header.Get("RateLimit-Limit"))
			}
		}
		twoProcCLIFor(t, c, "users", "set-rate-limit", "bob", "3/60s")
		start := time.Now()
		okAfter, sent := 0, 0
		for i, in := range ins {
			eventually(t, fmt.Sprintf("instance %d applies bob's own limit", i), func() bool {
				r := in.h.send(t, call{User: "bob", Method: "ping"})
				sent++
				if r.Status == http.StatusOK {
					okAfter++
				}
				return r.Header.Get("RateLimit-Limit") == "3" && r.Header.Get("RateLimit-Policy") == "3;w=60"
			})
		}
		for i := range 6 {
			r := ins[i%3].h.send(t, call{User: "bob", Method: "ping"})
			sent++
			if r.Status == http.StatusOK {
				okAfter++
			}
		}
		// Whatever bob spent before, a bucket of 3 per 60s gives at most
		// 3 at once, and one more per 20s.
		if most := 3 + int(time.Since(start)/(20*time.Second)); okAfter > most {
			t.Fatalf("bob got %d of %d requests through after the change, want at most %d", okAfter, sent, most)
		}
		t.Logf("after set-rate-limit: %d of %d requests allowed, %s", okAfter, sent, time.Since(start).Round(time.Millisecond))
	})

	t.Run("stream cap and lease", func(t *testing.T) {
		for i := range 2 {
			if s, r := ins[i].h.open(t, listenCall(ins[i].ce, "carol", i, toolsOnly())); s == nil {
				t.Fatalf("carol's stream %d on instance %d: %d %s", i+1, i, r.Status, r.Body)
			}
		}
		s, r := ins[2].h.open(t, listenCall(ins[2].ce, "carol", "third", toolsOnly()))
		if s != nil {
			t.Fatal("a third stream for carol opened on the third instance, want 429")
		}
		msg, _ := r.expectError(t, http.StatusTooManyRequests, -31001)
		if want := "Too many open listen streams for this user (limit 2)"; !strings.HasPrefix(msg, want) {
			t.Fatalf("message %q, want it to start with %q", msg, want)
		}
		slots := redisKeys(t, c, "*streams:*")
		// Slots whose lease has not ended (Redis runs on this machine's clock).
		live := func() int {
			return c.redis.Int("ZCOUNT", slots[0], "("+strconv.FormatInt(time.Now().UnixMilli(), 10), "+inf")
		}
		if len(slots) != 1 || live() != 2 {
			t.Fatalf("carol's slots in Redis: keys %v, want one set of 2", slots)
		}
		killed := time.Now()
		ins[0].kill()
		// Watched in Redis: each refused attempt would spend carol's rate
		// limit.
		for live() != 1 {
			if time.Since(killed) > lease+2*time.Second {
				t.Fatalf("the killed instance's slot not free %s after the kill (lease %s)", time.Since(killed), lease)
			}
			time.Sleep(50 * time.Millisecond)
		}
		freed := time.Since(killed)
		again, r := ins[2].h.open(t, listenCall(ins[2].ce, "carol", "again", toolsOnly()))
		if again == nil {
			t.Fatalf("stream after the slot lapsed: %d %s", r.Status, r.Body)
		}
		expectAck(t, again, "again", true)
		t.Logf("slot freed %s after the kill (lease %s)", freed.Round(10*time.Millisecond), lease)
	})

	t.Run("ban on one instance refuses on all", func(t *testing.T) {
		for i := range 3 {
			r := ins[1].h.send(t, call{Token: "glpat-not-a-token-" + strconv.Itoa(i), Method: "ping"})
			r.expectStatus(t, http.StatusUnauthorized)
		}
		for _, in := range ins[1:] {
			for _, cl := range []call{{User: "carol", Method: "ping"}, {Token: "glpat-not-a-token-x", Method: "ping"}} {
				r := in.h.send(t, cl)
				r.expectError(t, http.StatusTooManyRequests, -31029)
				if r.Header.Get("Retry-After") == "" {
					t.Fatal("ban answered without Retry-After")
				}
			}
		}
	})
}

// twoProcCLIFor runs the glmcp CLI on c's database.
func twoProcCLIFor(t *testing.T, c *cluster, args ...string) {
	t.Helper()
	twoProcCLIOut(t, c, args...)
}

// twoProcCLIOut is twoProcCLIFor returning stdout.
func twoProcCLIOut(t *testing.T, c *cluster, args ...string) string {
	t.Helper()
	in := c.instances[len(c.instances)-1]
	var flags []string
	for i, a := range in.cmd.Args {
		if a == "--database-url" || a == "--secret" || a == "--repositories-path" {
			flags = append(flags, a, in.cmd.Args[i+1])
		}
	}
	return twoProcCLI(t, flags, args...)
}

// redisKeys lists the keys matching pattern (at least one, or the test fails).
func redisKeys(t *testing.T, c *cluster, pattern string) []string {
	t.Helper()
	out := c.redis.Do("--scan", "--pattern", pattern)
	keys := strings.Fields(out)
	if len(keys) == 0 {
		t.Fatalf("no Redis key matches %s", pattern)
	}
	return keys
}

// Redis frozen (SIGSTOP) and then stopped under load through three
// instances: no answer is a 5xx or a transport error, every answer comes
// within the documented bound (2 × GLMCP_REDIS_TIMEOUT added to a request),
// each instance logs each transition once and reports it in
// glmcp_ratelimit_backend, and the limits are counted in Redis again once
// it is back.
func TestSharedLimits_redisFailureUnderLoad(t *testing.T) {
	const timeout = 100 * time.Millisecond
	c := startCluster(t, 3, "--rate-limit", "100000/60s", "--redis-timeout", timeout.String())
	ins := c.instances
	for _, in := range ins {
		if got := in.backendGauge(t, "redis"); got != "1" {
			t.Fatalf("glmcp_ratelimit_backend{backend=redis} = %s before the outage, want 1", got)
		}
	}

	type answer struct {
		status  int
		err     error
		latency time.Duration
	}
	var (
		mu      sync.Mutex
		answers []answer
	)
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 30 * time.Second}
	body := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				in := ins[(w+i)%3]
				req, _ := http.NewRequest(http.MethodPost, in.ce, strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+c.tokens[[]string{"alice", "bob", "carol"}[w%3]])
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				start := time.Now()
				res, err := client.Do(req)
				a := answer{err: err}
				if err == nil {
					_, _ = io.Copy(io.Discard, res.Body)
					res.Body.Close()
					a.status = res.StatusCode
				}
				a.latency = time.Since(start)
				mu.Lock()
				answers = append(answers, a)
				mu.Unlock()
			}
		})
	}

	time.Sleep(time.Second)
	c.redis.Pause()
	time.Sleep(time.Second)
	for i, in := range ins {
		if got := in.backendGauge(t, "local"); got != "1" {
			t.Errorf("instance %d: glmcp_ratelimit_backend{backend=local} = %s with Redis frozen, want 1", i, got)
		}
	}
	time.Sleep(time.Second)
	c.redis.Resume()
	time.Sleep(1500 * time.Millisecond)
	c.redis.Stop()
	time.Sleep(2 * time.Second)
	c.redis.Restart()
	time.Sleep(2 * time.Second)
	stop()
	wg.Wait()

	var worst time.Duration
	byStatus := map[int]int{}
	for _, a := range answers {
		if a.err != nil {
			t.Fatalf("transport error under the outage: %v", a.err)
		}
		byStatus[a.status]++
		worst = max(worst, a.latency)
	}
	if byStatus[http.StatusOK] != len(answers) {
		t.Fatalf("answers by status: %v; want only 200 (%d requests)", byStatus, len(answers))
	}
	// The bound: two checks (the ban, the user's budget) each waiting at
	// most the timeout, beside a ping's own time on a shared machine.
	if bound := 2*timeout + time.Second; worst > bound {
		t.Fatalf("slowest answer %s, want within %s", worst, bound)
	}
	t.Logf("%d requests, all 200, slowest %s", len(answers), worst.Round(time.Millisecond))

	for i, in := range ins {
		// Back in Redis: the next request is counted there.
		in.h.send(t, call{User: "alice", Method: "ping"}).expectStatus(t, http.StatusOK)
		if got := in.backendGauge(t, "redis"); got != "1" {
			t.Errorf("instance %d: glmcp_ratelimit_backend{backend=redis} = %s after Redis returned, want 1", i, got)
		}
		// One line per transition: at least the two outages made here
		// (frozen, stopped), each with its recovery. A check that passes
		// its deadline on a loaded machine while Redis is up is one more
		// outage, logged once with its recovery too.
		down, up := in.logged("redis unreachable"), in.logged("redis reachable again")
		if down < 2 || up != down {
			t.Errorf("instance %d logged %d outages and %d recoveries, want at least 2 (frozen, stopped), each with its recovery", i, down, up)
		}
	}
	// Counted in Redis again: a new user allowed one request a minute gets
	// it on one instance and is refused on the others (each instance alone
	// would allow it).
	twoProcCLIFor(t, c, "users", "create", "--username", "dave", "--email", "dave@example.com")
	twoProcCLIFor(t, c, "users", "set-rate-limit", "dave", "1/60s")
	dave := strings.TrimSpace(twoProcCLIOut(t, c, "tokens", "create", "--user", "dave", "--scopes", "mcp"))
	var statuses []int
	for _, in := range ins {
		statuses = append(statuses, in.h.send(t, call{Token: dave, Method: "ping"}).Status)
	}
	if fmt.Sprint(statuses) != "[200 429 429]" {
		t.Fatalf("a 1/60s user's requests to the three instances after the outage: %v, want [200 429 429]", statuses)
	}
}
