package spec

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
	"gitlab.com/glmcp/glmcp/services/subscriptions"
)

// BenchmarkListen10000 opens 10,000 subscriptions/listen streams on one
// glmcp instance running as its own process (`glmcp serve`, built from
// this tree) on PostgreSQL, and measures per operation the time from one
// pg_notify (what `glmcp tools …` sends) until every stream has its
// notifications/tools/list_changed (issue #12: under a second).
//
// The server is a separate process so that its memory is measured alone
// (and so that client and server each fit the open-file limit): the
// extra metrics are the server's own, read from its /metrics and
// /proc before and after the streams are open: heap-B/stream
// (go_memstats_heap_inuse_bytes), rss-B/stream (VmRSS) and
// goroutines/stream (go_goroutines), rss-delivered-B/stream, the
// resident memory per stream again once the measured changes have been
// delivered, and server-cpu-ms/op, the server's CPU time per change.
//
//	go test ./spec/ -run '^$' -bench BenchmarkListen10000 -benchtime 5x
func BenchmarkListen10000(b *testing.B) {
	const n = 10000
	raiseFileLimit(b, n+2048)
	dsn := storetest.PostgresDSN(b)
	h := startServer(b, withDSN(dsn)) // migrates and seeds the database, mints tokens

	port := freePort(b)
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	cmd := exec.Command(cliBinary(b), "serve", "--secret", h.Cfg.Secret, "--log-level", "error",
		"--database-url", dsn, "--repositories-path", h.Cfg.RepositoriesPath,
		"--listen", fmt.Sprintf("127.0.0.1:%d", port), "--public-url", url, "--rate-limit", "0",
		"--max-streams", strconv.Itoa(n), "--max-user-streams", strconv.Itoa(n))
	cmd.Env = cliEnv()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() }()
	waitReady(b, url)

	remote := *h
	remote.CE = url + cePath
	before := serverStats(b, url, cmd.Process.Pid)
	got := make(chan struct{}, n)
	streams := openRawListeners(b, &remote, h.Tokens["alice"], n, got)
	defer func() {
		for _, c := range streams {
			_ = c.Close()
		}
	}()
	runtime.GC()
	time.Sleep(500 * time.Millisecond) // let the server settle after the burst
	after := serverStats(b, url, cmd.Process.Pid)

	db, err := sql.Open("pgx", dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	pub := subscriptions.NewPGPublisher(db)
	ev := subscriptions.Event{Kind: subscriptions.KindTools, Tool: "get_merge_request", Edition: models.EditionCE}
	cpu0 := serverCPU(b, cmd.Process.Pid)
	for b.Loop() {
		if err := pub.Publish(context.Background(), ev); err != nil {
			b.Fatal(err)
		}
		deadline := time.After(liveBound)
		for range n {
			select {
			case <-got:
			case <-deadline:
				b.Fatalf("not every stream got the change within %v", liveBound)
			}
		}
	}
	b.StopTimer()
	// CPU time the server spent per change (all its threads), which the
	// load of a shared machine does not inflate the way it does wall time.
	b.ReportMetric((serverCPU(b, cmd.Process.Pid)-cpu0).Seconds()*1000/float64(b.N), "server-cpu-ms/op")
	runtime.GC()
	time.Sleep(500 * time.Millisecond)
	delivered := serverStats(b, url, cmd.Process.Pid)
	per := func(k string) float64 { return (after[k] - before[k]) / n }
	b.ReportMetric(per("heap"), "heap-B/stream")
	b.ReportMetric(per("rss"), "rss-B/stream")
	b.ReportMetric(per("goroutines"), "goroutines/stream")
	b.ReportMetric(after["rss"]/(1<<20), "server-RSS-MiB")
	// Writing the changes grows what each stream holds (its goroutine's
	// stack, buffers not yet collected): the resident memory once they
	// have been delivered is the figure a busy instance lives with.
	b.ReportMetric((delivered["rss"]-before["rss"])/n, "rss-delivered-B/stream")
}

func freePort(b testing.TB) int {
	b.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func waitReady(b testing.TB, url string) {
	b.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if r, err := http.Get(url + "/-/readiness"); err == nil {
			r.Body.Close()
			if r.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.Fatalf("glmcp serve at %s not ready within a minute", url)
}

// serverCPU returns the user and system CPU time the process pid has used
// (/proc/<pid>/stat, clock ticks of 10 ms).
func serverCPU(b *testing.B, pid int) time.Duration {
	b.Helper()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// The command name (field 2) may hold spaces; fields after ")" are fixed.
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		b.Fatalf("unexpected /proc/%d/stat: %q", pid, s)
	}
	utime, _ := strconv.ParseInt(fields[11], 10, 64) // field 14
	stime, _ := strconv.ParseInt(fields[12], 10, 64) // field 15
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// serverStats reads the server process's heap in use and goroutines from
// its /metrics, and its resident set from /proc.
func serverStats(b *testing.B, url string, pid int) map[string]float64 {
	b.Helper()
	out := map[string]float64{}
	r, err := http.Get(url + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	defer r.Body.Close()
	sc := bufio.NewScanner(r.Body)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		v, _ := strconv.ParseFloat(value, 64)
		switch name {
		case "go_memstats_heap_inuse_bytes":
			out["heap"] = v
		case "go_goroutines":
			out["goroutines"] = v
		}
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			out["rss"] = kb * 1024
		}
	}
	if out["heap"] == 0 || out["goroutines"] == 0 || out["rss"] == 0 {
		b.Fatalf("server stats incomplete: %v", out)
	}
	return out
}
