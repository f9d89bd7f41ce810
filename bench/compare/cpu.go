package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// cpuMeter measures what a run costs in CPU time rather than in wall
// time, which on a shared machine moves with everyone else's load: the
// glmcp process's user+system time (/proc/PID/stat, all its threads),
// the on-CPU time of the database's PostgreSQL backends (/proc/PID/schedstat,
// nanoseconds; the backends are pg_stat_activity's rows of the
// database, the meter's own left out) and the WAL the server wrote
// (pg_current_wal_lsn; server-wide, so another database's writes on the
// same server count too); and the load generator's own CPU time (this
// process), which the servers share the machine with.
type cpuMeter struct {
	conn *pgx.Conn
	name string
}

func newCPUMeter(ctx context.Context, url, name string) (*cpuMeter, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, err
	}
	return &cpuMeter{conn: conn, name: name}, nil
}

func (m *cpuMeter) close() { _ = m.conn.Close(context.Background()) }

// cpuSnapshot is the counters at one moment.
type cpuSnapshot struct {
	proc     time.Duration
	load     time.Duration // this process: the load generator
	backends map[int]time.Duration
	wal      int64
}

func (m *cpuMeter) snapshot(ctx context.Context, pid int) (cpuSnapshot, error) {
	s := cpuSnapshot{backends: map[int]time.Duration{}}
	var err error
	if s.proc, err = procCPU(pid); err != nil {
		return s, err
	}
	if s.load, err = procCPU(os.Getpid()); err != nil {
		return s, err
	}
	rows, err := m.conn.Query(ctx, "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", m.name)
	if err != nil {
		return s, err
	}
	var pids []int
	for rows.Next() {
		var p int
		if err := rows.Scan(&p); err != nil {
			return s, err
		}
		pids = append(pids, p)
	}
	if err := rows.Err(); err != nil {
		return s, err
	}
	for _, p := range pids {
		if d, err := schedCPU(p); err == nil { // a backend that just exited is skipped
			s.backends[p] = d
		}
	}
	err = m.conn.QueryRow(ctx, "SELECT pg_current_wal_lsn() - '0/0'::pg_lsn").Scan(&s.wal)
	return s, err
}

// cpuUse is a run's CPU time and WAL.
type cpuUse struct {
	proc, backends time.Duration
	load           time.Duration // the load generator's (this process's)
	wal            int64
	elapsed        time.Duration // the window measured
	err            error
}

// diff is what was used between a and b; a backend that b lists and a
// does not (opened during the run) counts from zero.
func (a cpuSnapshot) diff(b cpuSnapshot) cpuUse {
	u := cpuUse{proc: b.proc - a.proc, load: b.load - a.load, wal: b.wal - a.wal}
	for p, d := range b.backends {
		u.backends += d - a.backends[p]
	}
	return u
}

// window waits wait, then measures pid and the backends over the next
// length.
func (m *cpuMeter) window(ctx context.Context, pid int, wait, length time.Duration) cpuUse {
	time.Sleep(wait)
	a, err := m.snapshot(ctx, pid)
	if err != nil {
		return cpuUse{err: err}
	}
	began := time.Now()
	time.Sleep(length)
	b, err := m.snapshot(ctx, pid)
	if err != nil {
		return cpuUse{err: err}
	}
	u := a.diff(b)
	u.elapsed = time.Since(began)
	return u
}

// procCPU is the user+system time of process pid, all its threads.
func procCPU(pid int) (time.Duration, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command name (in parentheses, which may hold
	// spaces): utime and stime are the 14th and 15th of the line.
	s := string(raw)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: utime %q stime %q", pid, f[11], f[12])
	}
	const hz = 100 // USER_HZ on Linux
	return time.Duration(ut+st) * time.Second / hz, nil
}

// schedCPU is the on-CPU time of the single-threaded process pid (a
// PostgreSQL backend) in nanoseconds, /proc/PID/schedstat's first field.
func schedCPU(pid int) (time.Duration, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(raw))
	if len(f) == 0 {
		return 0, fmt.Errorf("/proc/%d/schedstat: empty", pid)
	}
	ns, err := strconv.ParseInt(f[0], 10, 64)
	return time.Duration(ns), err
}
