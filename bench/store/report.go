package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"gitlab.com/glmcp/glmcp/bench/harness"
)

// printReport writes the results as Markdown, as doc/performance.md shows
// them.
func printReport(w io.Writer, r *report) {
	fmt.Fprintf(w, "Machine: %d CPUs, %s; load average %s at the start, %s at the end; %s in all.\n\n",
		cpus(), runtime.Version(), r.loadStart, harness.LoadAverage(), time.Since(r.began).Round(time.Second))
	fmt.Fprintf(w, "| Project | issues | merge requests | pipelines | notes | archive written | genexport peak RSS | PostgreSQL import | its peak RSS | SQLite import | its peak RSS |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, p := range []struct {
		path string
		s    size
	}{{smallPath, r.small}, {largePath, r.large}} {
		notes := p.s.issues*p.s.notes + p.s.mrs*(p.s.notes+1)
		g, i, s := r.gen[p.path], r.imports[p.path], r.sqliteImports[p.path]
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %s | %s | %s | %s | %s | %s |\n", p.path, p.s.issues, p.s.mrs, p.s.pipelines, notes,
			dur(g.wall), rss(g), dur(i.wall), rss(i), dur(s.wall), rss(s))
	}
	if r.o.postgres {
		printPostgres(w, r)
	}
	if len(r.sqliteRows) > 0 {
		fmt.Fprintf(w, "\nEmbedded SQLite store, the same archives imported; the same calls as on PostgreSQL:\n\n")
		printRows(w, r.sqliteRows)
	}
}

// printPostgres is the PostgreSQL part: every work, the instance
// searches, the concurrent searches and the server's memory.
func printPostgres(w io.Writer, r *report) {
	fmt.Fprintf(w, "\nPostgreSQL, one store: each call once cold on each project, then the median of %d warm calls, small and large alternating; every answer a 200 with a result (and items where a list is expected).\n\n", r.o.runs)
	printRows(w, r.rows)
	for _, s := range r.single {
		switch {
		case s.err != nil:
			fmt.Fprintf(w, "\n%s: **%v**", s.name, s.err)
		case s.fails > 0:
			fmt.Fprintf(w, "\n%s: %s (median of the answered calls); **%d of %d calls answered %s**.", s.name, dur(s.large), s.fails, s.calls, oneLine(s.failure))
		default:
			fmt.Fprintf(w, "\n%s: %s (median of %d).", s.name, dur(s.large), r.o.runs)
		}
	}
	fmt.Fprintln(w)
	if c := r.conc; c.conns > 0 {
		fmt.Fprintf(w, "\n%d concurrent searches on %s for %v (issues and notes, rare and common terms, merge requests, in rotation): %s.",
			c.conns, largePath, c.elapsed.Round(time.Millisecond), c.summary())
		if c.first != "" {
			fmt.Fprintf(w, " First failure: %s.", oneLine(c.first))
		}
		fmt.Fprintln(w)
	}
	if r.servePeak > 0 {
		fmt.Fprintf(w, "\n`glmcp serve` (PostgreSQL): peak RSS %s, %s at the end.\n", mb(r.servePeak), mb(r.serveRSS))
	}
}

func printRows(w io.Writer, rows []row) {
	fmt.Fprintf(w, "| Call | tool | %s | %s | large/small | ≤ %.1f× |\n|---|---|---:|---:|---:|:-:|\n", smallPath, largePath, maxRatio)
	pass, fail := 0, 0
	for _, r := range rows {
		if r.err != nil {
			fail++
			fmt.Fprintf(w, "| %s | `%s` | — | — | — | ERROR: %s |\n", r.name, r.tool, oneLine(r.err.Error()))
			continue
		}
		v := "PASS"
		switch {
		case r.fails > 0:
			v = fmt.Sprintf("FAIL: %d of %d calls answered %s", r.fails, r.calls, oneLine(r.failure))
			fail++
		case r.ratio() > maxRatio:
			v = "FAIL"
			fail++
		default:
			pass++
		}
		fmt.Fprintf(w, "| %s | `%s` | %s | %s | %.1f× | %s |\n", r.name, r.tool, dur(r.small), dur(r.large), r.ratio(), v)
	}
	fmt.Fprintf(w, "\n%d of %d within %.1f×.\n", pass, pass+fail, maxRatio)
	var same []string
	for _, r := range rows {
		if r.matches > 0 {
			same = append(same, fmt.Sprintf("%s %d", r.name, r.matches))
		}
	}
	if len(same) > 0 {
		fmt.Fprintf(w, "\nRare terms, the same matches on both projects (items answered): %s.\n", strings.Join(same, ", "))
	}
}

func oneLine(s string) string {
	out := []rune{}
	for _, c := range s {
		if c == '\n' || c == '|' {
			c = ' '
		}
		out = append(out, c)
		if len(out) > 160 {
			return string(out) + "…"
		}
	}
	return string(out)
}

// rss is a run's peak RSS, "—" for a run that did not happen.
func rss(t timed) string {
	if t.wall == 0 {
		return "—"
	}
	return mb(t.maxRSS)
}
