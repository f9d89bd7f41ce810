package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"gitlab.com/glmcp/glmcp/bench/harness"
)

type reportEnv struct {
	o                   options
	shape               shape
	built               *built
	imp, clone          timed
	importNote          string
	rows                []row
	serveRSS, servePeak int64
	procs, procsPeak    int
	cpus                int
}

// printReport writes the results as Markdown, as doc/performance.md shows
// them.
func printReport(w io.Writer, e reportEnv) {
	fmt.Fprintf(w, "Machine: %s, %d CPUs, %s; %s; %s.\n\n", cpuModel(), e.cpus, runtime.Version(), e.built.GitVersion, "load average "+harness.LoadAverage()+" at the end")
	if e.o.source != "" {
		fmt.Fprintf(w, "Repository (`-source`, its own history): %s. `glmcp projects import` took %s (peak RSS %s).\n\n",
			e.shape, dur(e.imp.wall), mb(e.imp.maxRSS))
	} else {
		fmt.Fprintf(w, "Repository (seed %d, generator v%d): %s; largest files %s. Built in %v (generator and `git fast-import` %v, `git repack -a -d -f` %v).\n\n",
			e.o.p.Seed, e.o.p.Generator, e.shape, strings.Join([]string{largeText, largeBinary, largePO}, ", "),
			(e.built.Generate + e.built.Repack).Round(time.Second), e.built.Generate.Round(time.Second), e.built.Repack.Round(time.Second))
		printImport(w, e)
	}
	fmt.Fprintf(w, "Tools: one cold call (the first), then the median of %d warm calls, each alternating with the git command; every answer checked against git's.\n\n", e.o.runs)
	printRows(w, e)
}

// printImport is the import's row against git clone's.
func printImport(w io.Writer, e reportEnv) {
	fmt.Fprintf(w, "| Import | glmcp | git | ratio | ≤ %.1f× |\n|---|---:|---:|---:|:-:|\n", maxRatio)
	tr := float64(e.imp.wall) / float64(e.clone.wall)
	mr := float64(e.imp.maxRSS) / float64(max(1, e.clone.maxRSS))
	fmt.Fprintf(w, "| time: `glmcp projects import` vs `git clone --mirror --no-local` | %s | %s | %.2f× | %s |\n",
		dur(e.imp.wall), dur(e.clone.wall), tr, passFail(tr))
	fmt.Fprintf(w, "| peak RSS (with children) | %s | %s | %.2f× | %s |\n\n", mb(e.imp.maxRSS), mb(e.clone.maxRSS), mr, passFail(mr))
	if e.importNote != "" {
		fmt.Fprintf(w, "Import: %s.\n\n", e.importNote)
	}
}

// printRows is the table of the works, then their notes.
func printRows(w io.Writer, e reportEnv) {
	fmt.Fprintf(w, "| Work | git equivalent | glmcp cold | glmcp median | git median | ratio | ≤ %.1f× |\n|---|---|---:|---:|---:|---:|:-:|\n", maxRatio)
	pass, fail := 0, 0
	for _, r := range e.rows {
		gitCmd := "`git " + shortGit(r.gitArgs) + "`"
		if r.err != nil {
			fail++
			fmt.Fprintf(w, "| %s | %s | — | — | — | — | ERROR |\n", r.name, gitCmd)
			continue
		}
		verdict := passFail(r.ratio())
		switch {
		case r.informational:
			verdict = "(scale)"
		case r.ratio() <= maxRatio:
			pass++
		default:
			fail++
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %.1f× | %s |\n", r.name, gitCmd, dur(r.cold), dur(r.glmcp), dur(r.git), r.ratio(), verdict)
	}
	fmt.Fprintf(w, "\n%d of %d within %.1f×.", pass, pass+fail, maxRatio)
	if e.servePeak > 0 {
		fmt.Fprintf(w, " `glmcp serve`: peak RSS %s (%s at the end); child processes: %d in all, at most %d at once.", mb(e.servePeak), mb(e.serveRSS), e.procs, e.procsPeak)
	}
	fmt.Fprintln(w)
	var notes []string
	for _, r := range e.rows {
		if r.err != nil {
			notes = append(notes, fmt.Sprintf("* %s: **%v**", r.name, oneLine(r.err)))
		} else if r.note != "" {
			notes = append(notes, fmt.Sprintf("* %s: %s.", r.name, r.note))
		}
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "\n%s\n", strings.Join(notes, "\n"))
	}
}

// shortGit is the git command of the table, without the format string.
func shortGit(args []string) string {
	var out []string
	for _, a := range args {
		switch {
		case a == commitFormat:
			out = append(out, "--format=…")
		case len(a) == 40 && strings.Trim(a, "0123456789abcdef") == "":
			out = append(out, a[:10])
		default:
			out = append(out, a)
		}
	}
	return strings.Join(out, " ")
}

func oneLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.ReplaceAll(s, "|", "\\|")
}

func passFail(ratio float64) string {
	if ratio <= maxRatio {
		return "PASS"
	}
	return "FAIL"
}

func dur(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return fmt.Sprintf("%.0f s", d.Seconds())
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	default:
		return fmt.Sprintf("%.1f ms", float64(d)/1e6)
	}
}

func cpuModel() string {
	raw, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for line := range strings.Lines(string(raw)) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}
