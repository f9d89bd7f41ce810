package main

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"
)

// measurement is one run of one request against one server.
type measurement struct {
	rate           float64
	p50, p99       time.Duration
	bytes          int
	sessionsPerSec float64 // glmcp only: new PostgreSQL sessions per second
	cpu            cpuUse  // the two glmcp servers only
}

// calls is how many requests the CPU window saw (at the run's rate).
func (m measurement) calls() float64 { return m.rate * m.cpu.elapsed.Seconds() }

// procPerCall, pgPerCall (CPU µs) and walPerCall (bytes) are a run's CPU
// and WAL per request; 0 for a run not metered.
func procPerCall(m measurement) float64 { return perCall(m, float64(m.cpu.proc)/1e3) }
func pgPerCall(m measurement) float64   { return perCall(m, float64(m.cpu.backends)/1e3) }
func walPerCall(m measurement) float64  { return perCall(m, float64(m.cpu.wal)) }
func loadPerCall(m measurement) float64 { return perCall(m, float64(m.cpu.load)/1e3) }

// allPerCall is the CPU µs per call of everything a call runs: glmcp, its
// PostgreSQL backends and the load generator.
func allPerCall(m measurement) float64 { return procPerCall(m) + pgPerCall(m) + loadPerCall(m) }

func perCall(m measurement, v float64) float64 {
	if n := m.calls(); n > 0 {
		return v / n
	}
	return 0
}

func (m measurement) cpuLine() string {
	if m.cpu.elapsed == 0 {
		return ""
	}
	return fmt.Sprintf("  cpu/call: glmcp %.1f µs, postgres %.1f µs, load %.1f µs; WAL %.0f B", procPerCall(m), pgPerCall(m), loadPerCall(m), walPerCall(m))
}

type report struct {
	o         options
	scenarios []scenario
	runs      map[[2]string][]measurement // (scenario, server) → rounds
}

type reportEnv struct {
	loadBefore, loadAfter  string
	glmcpRSS, glmcpPeakRSS int64
}

func newReport(o options, scenarios []scenario) *report {
	return &report{o: o, scenarios: scenarios, runs: map[[2]string][]measurement{}}
}

func (r *report) add(sc, server string, m measurement) {
	k := [2]string{sc, server}
	r.runs[k] = append(r.runs[k], m)
}

// median of one field over the rounds.
func (r *report) median(sc, server string, f func(measurement) float64) (float64, bool) {
	ms := r.runs[[2]string{sc, server}]
	if len(ms) == 0 {
		return 0, false
	}
	v := make([]float64, len(ms))
	for i, m := range ms {
		v[i] = f(m)
	}
	slices.Sort(v)
	if n := len(v); n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2, true
	}
	return v[len(v)/2], true
}

func rate(m measurement) float64 { return m.rate }
func p50(m measurement) float64  { return float64(m.p50) }
func p99(m measurement) float64  { return float64(m.p99) }

func (r *report) print(w io.Writer, env reportEnv) {
	fmt.Fprintf(w, "glmcp comparison: %d connections, %d interleaved rounds × %v (+%v warm-up), loopback; %d CPUs, GOMAXPROCS %d; load average %s → %s\n\n",
		r.o.conns, r.o.rounds, r.o.duration, r.o.warmup, runtime.NumCPU(), runtime.GOMAXPROCS(0), env.loadBefore, env.loadAfter)
	fmt.Fprintf(w, "| request | server | req/s (median) | req/s (rounds) | p50 | p99 | response bytes |\n")
	fmt.Fprintf(w, "|---|---|---:|---|---:|---:|---:|\n")
	for _, sc := range r.scenarios {
		for _, srv := range serverOrder(sc) {
			ms := r.runs[[2]string{sc.name, srv}]
			if len(ms) == 0 {
				continue
			}
			var rounds []string
			for _, m := range ms {
				rounds = append(rounds, fmt.Sprintf("%.0f", m.rate))
			}
			rt, _ := r.median(sc.name, srv, rate)
			l50, _ := r.median(sc.name, srv, p50)
			l99, _ := r.median(sc.name, srv, p99)
			fmt.Fprintf(w, "| %s | %s | %.0f | %s | %s | %s | %d |\n", sc.name, srv, rt, strings.Join(rounds, ", "),
				ms2(l50), ms2(l99), ms[len(ms)-1].bytes)
		}
	}
	fmt.Fprintf(w, "\nRatios (medians; the issue's targets in brackets):\n\n")
	ratio := func(label, sc, a, b string, f func(measurement) float64, target string) {
		x, ok1 := r.median(sc, a, f)
		y, ok2 := r.median(sc, b, f)
		if !ok1 || !ok2 || y == 0 {
			return
		}
		fmt.Fprintf(w, "- %-46s %5.2f×  [%s]\n", label, x/y, target)
		if b == srvPlain { // the two glmcps ran back to back each round: their ratio round by round
			ra, rb := r.runs[[2]string{sc, a}], r.runs[[2]string{sc, b}]
			var each []string
			for i := range min(len(ra), len(rb)) {
				if v := f(rb[i]); v != 0 {
					each = append(each, fmt.Sprintf("%.2f", f(ra[i])/v))
				}
			}
			fmt.Fprintf(w, "  %-46s round by round %s\n", "", strings.Join(each, ", "))
		}
	}
	for _, sc := range r.scenarios {
		switch {
		case strings.Contains(sc.name, "tools/list"):
			ratio("tools/list req/s, glmcp / bare", sc.name, srvGlmcp, srvBare, rate, "≥ 0.5×")
			ratio("tools/list req/s, glmcp / go-sdk", sc.name, srvGlmcp, srvSDK, rate, "≥ 4×")
			ratio("tools/list p99, glmcp / bare", sc.name, srvGlmcp, srvBare, p99, "≤ 3×")
		case strings.Contains(sc.name, "server/discover"):
			ratio("server/discover req/s, glmcp / go-sdk", sc.name, srvGlmcp, srvSDK, rate, "—")
		case strings.Contains(sc.name, "tools/call get_issue"):
			ratio("get_issue req/s, glmcp / go-sdk echo", sc.name, srvGlmcp, srvSDK, rate, "≥ 2×")
			ratio("get_issue req/s, glmcp / sanitize+audit off", sc.name, srvGlmcp, srvPlain, rate, "≥ 0.95×")
		case strings.Contains(sc.name, "tools/call list_work_items"):
			ratio("list_work_items req/s, glmcp / sanitize+audit off", sc.name, srvGlmcp, srvPlain, rate, "≥ 0.95×")
		}
	}
	fmt.Fprintf(w, "\nCPU time per call (medians of the rounds; load-independent: glmcp's user+system time from /proc/PID/stat, the database's backends' on-CPU time from /proc/PID/schedstat, WAL from pg_current_wal_lsn, server-wide):\n\n")
	fmt.Fprintf(w, "| request | server | glmcp CPU µs/call | postgres CPU µs/call | load generator | all | WAL bytes/call |\n|---|---|---:|---:|---:|---:|---:|\n")
	for _, sc := range r.scenarios {
		for _, srv := range []string{srvGlmcp, srvPlain} {
			if len(r.runs[[2]string{sc.name, srv}]) == 0 || r.runs[[2]string{sc.name, srv}][0].cpu.elapsed == 0 {
				continue
			}
			pc, _ := r.median(sc.name, srv, procPerCall)
			pg, _ := r.median(sc.name, srv, pgPerCall)
			ld, _ := r.median(sc.name, srv, loadPerCall)
			all, _ := r.median(sc.name, srv, allPerCall)
			wal, _ := r.median(sc.name, srv, walPerCall)
			fmt.Fprintf(w, "| %s | %s | %.1f | %.1f | %.1f | %.1f | %.0f |\n", sc.name, srv, pc, pg, ld, all, wal)
		}
		// On CPUs kept busy, req/s is CPUs / CPU time per call: the
		// ratio the CPU time predicts, whatever else the machine runs.
		on, ok1 := r.median(sc.name, srvGlmcp, allPerCall)
		off, ok2 := r.median(sc.name, srvPlain, allPerCall)
		if ok1 && ok2 && on > 0 && off > 0 {
			fmt.Fprintf(w, "\n%s: CPU time per call, sanitize+audit off / on: %.2f×  [≥ 0.95×]\n", sc.name, off/on)
			ra, rb := r.runs[[2]string{sc.name, srvGlmcp}], r.runs[[2]string{sc.name, srvPlain}]
			var each []string
			for i := range min(len(ra), len(rb)) {
				if v := allPerCall(ra[i]); v > 0 {
					each = append(each, fmt.Sprintf("%.2f", allPerCall(rb[i])/v))
				}
			}
			fmt.Fprintf(w, "  round by round %s\n", strings.Join(each, ", "))
		}
	}
	var sess []float64
	for _, sc := range r.scenarios {
		for _, m := range r.runs[[2]string{sc.name, srvGlmcp}] {
			sess = append(sess, m.sessionsPerSec)
		}
	}
	if len(sess) > 0 {
		slices.Sort(sess)
		fmt.Fprintf(w, "\nglmcp: new PostgreSQL sessions per second during its runs (pg_stat_database.sessions): median %.1f, max %.1f  [0]\n",
			sess[len(sess)/2], sess[len(sess)-1])
	}
	fmt.Fprintf(w, "glmcp: resident memory at the end %.0f MB, peak %.0f MB  [< 100 MB]\n",
		float64(env.glmcpRSS)/(1<<20), float64(env.glmcpPeakRSS)/(1<<20))
}

func ms2(ns float64) string {
	return fmt.Sprintf("%.2f ms", ns/1e6)
}
