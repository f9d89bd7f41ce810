package repository_test

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
)

// searchFixture: a history with messages to grep, a rename, a binary
// file, a submodule entry and files whose names hold spaces and unicode.
func searchFixture(t *testing.T) (*fixture, *repository.Local) {
	f := newFixture(t)
	f.commit("Add the Nebula plan\n\nBody line.\n\nSigned-off-by: A <a@example.com>", "2026-01-01T10:00:00+02:00", map[string]string{
		"docs/plan.md": "the nebula is near\n", "src/main.c": "int main(void) { return 0; }\n",
	})
	f.commit("  leading spaces and trailing   \n\n\n", "2026-01-02T10:00:00-05:30", map[string]string{
		"src/util.c": "/* NEBULA util */\n", "bin/blob.bin": "nebula\x00binary",
	})
	f.git(f.work, "mv", "docs/plan.md", "docs/über plan.md")
	f.commit("rename plan", "2026-01-03T10:00:00Z", nil)
	f.commit("nothing nebulous", "2026-01-04T10:00:00Z", map[string]string{"README": "readme\n"})
	f.push()
	return f, f.open()
}

// Commits read from git log equal the commit objects read one by one.
func TestLog_commitsEqualCommitObjects(t *testing.T) {
	_, l := searchFixture(t)
	ctx := context.Background()
	page, err := l.Log(ctx, repository.LogOptions{})
	if err != nil || len(page.Commits) != 4 {
		t.Fatalf("Log = %+v, %v", page, err)
	}
	for _, c := range page.Commits {
		one, err := l.Commit(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if c.ID != one.ID || c.TreeID != one.TreeID || c.Message != one.Message || c.Title != one.Title ||
			!reflect.DeepEqual(c.ParentIDs, one.ParentIDs) ||
			c.Author.Name != one.Author.Name || c.Author.Email != one.Author.Email || !c.Author.When.Equal(one.Author.When) ||
			c.Author.When.Format("-07:00") != one.Author.When.Format("-07:00") ||
			c.Committer.When.Format("-07:00") != one.Committer.When.Format("-07:00") {
			t.Errorf("from git log:\n%+v\nfrom the object:\n%+v", c, *one)
		}
	}
}

func TestLog_grepReverseCount(t *testing.T) {
	_, l := searchFixture(t)
	ctx := context.Background()
	titles := func(opt repository.LogOptions) []string {
		t.Helper()
		page, err := l.Log(ctx, opt)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range page.Commits {
			out = append(out, c.Title)
		}
		return out
	}
	if got := titles(repository.LogOptions{Grep: "NEBUL"}); !reflect.DeepEqual(got, []string{"nothing nebulous", "Add the Nebula plan"}) {
		t.Errorf("grep, ignoring case = %q", got)
	}
	// A regular expression is a fixed string.
	if got := titles(repository.LogOptions{Grep: "neb.la"}); got != nil {
		t.Errorf("grep neb.la = %q, want nothing", got)
	}
	if got := titles(repository.LogOptions{Reverse: true, Limit: 2}); !reflect.DeepEqual(got, []string{"rename plan", "nothing nebulous"}) {
		t.Errorf("reverse page = %q", got)
	}
	total := func(opt repository.LogOptions) (int, []string) {
		t.Helper()
		page, n, err := l.LogTotal(ctx, opt)
		if err != nil {
			t.Fatalf("LogTotal(%+v): %v", opt, err)
		}
		var out []string
		for _, c := range page {
			out = append(out, c.Title)
		}
		return n, out
	}
	if n, got := total(repository.LogOptions{Grep: "nebul"}); n != 2 || !reflect.DeepEqual(got, []string{"nothing nebulous", "Add the Nebula plan"}) {
		t.Errorf("LogTotal(grep) = %d %q", n, got)
	}
	if n, got := total(repository.LogOptions{Path: "docs", Limit: 1, Offset: 1}); n != 2 || len(got) != 1 {
		t.Errorf("LogTotal(path docs, second page of 1) = %d %q", n, got)
	}
	// Oldest first, the page is counted from the oldest commit; the same
	// commits as the newest-first list read backwards.
	all, newest := total(repository.LogOptions{Limit: 100})
	n, oldest := total(repository.LogOptions{Reverse: true, Offset: 1, Limit: 2})
	if n != all || len(oldest) != 2 || oldest[0] != newest[all-2] || oldest[1] != newest[all-3] {
		t.Errorf("LogTotal(reverse, offset 1, limit 2) = %d %q; newest first %q", n, oldest, newest)
	}
	if n, got := total(repository.LogOptions{Offset: all, Limit: 5}); n != all || len(got) != 0 {
		t.Errorf("LogTotal past the end = %d %q", n, got)
	}
	if _, _, err := l.LogTotal(ctx, repository.LogOptions{Ref: "nope"}); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("LogTotal of a missing ref = %v", err)
	}
	// Revision syntax glmcp does not serve is not found, never resolved.
	if _, err := l.Log(ctx, repository.LogOptions{Ref: "main:README"}); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("Log(main:README) = %v", err)
	}
	if _, err := l.Log(ctx, repository.LogOptions{Ref: "--all"}); !errors.Is(err, models.ErrInvalidInput) {
		t.Errorf("Log(--all) = %v", err)
	}
	// A path with glob characters is literal.
	if got := titles(repository.LogOptions{Path: "src/*"}); got != nil {
		t.Errorf("Log(path src/*) = %q, want nothing (no such file)", got)
	}
}

func TestListFilesAndGrepFiles(t *testing.T) {
	f, l := searchFixture(t)
	ctx := context.Background()
	files, err := l.ListFiles(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(f.git("", "-c", "core.quotePath=false", "ls-tree", "-r", "--name-only", "main"), "\n")
	if !reflect.DeepEqual(files, want) {
		t.Errorf("ListFiles = %q, want git's %q", files, want)
	}
	hits, err := l.GrepFiles(ctx, "main", "Nebula")
	if err != nil {
		t.Fatal(err)
	}
	// The binary file is not searched; the renamed file keeps its match.
	if want := []string{"docs/über plan.md", "src/util.c"}; !reflect.DeepEqual(hits, want) {
		t.Errorf("GrepFiles = %q, want %q", hits, want)
	}
	if hits, err := l.GrepFiles(ctx, "main", "no such words"); err != nil || hits != nil {
		t.Errorf("GrepFiles without a match = %q, %v", hits, err)
	}
	if hits, err := l.GrepFiles(ctx, "main", "-e"); err != nil || hits != nil {
		t.Errorf("GrepFiles(-e) = %q, %v: a term is never an option", hits, err)
	}
	if _, err := l.GrepFiles(ctx, "nope", "x"); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("GrepFiles of a missing ref = %v", err)
	}
	if _, err := l.ListFiles(ctx, "-h"); !errors.Is(err, models.ErrInvalidInput) {
		t.Errorf("ListFiles(-h) = %v", err)
	}
}

func TestIsAncestor(t *testing.T) {
	f, l := searchFixture(t)
	ctx := context.Background()
	first := f.git("", "rev-list", "--max-parents=0", "main")
	if ok, err := l.IsAncestor(ctx, first, "main"); err != nil || !ok {
		t.Errorf("root is ancestor of main = %v, %v", ok, err)
	}
	if ok, err := l.IsAncestor(ctx, "main", first); err != nil || ok {
		t.Errorf("main is ancestor of root = %v, %v", ok, err)
	}
	if _, err := l.IsAncestor(ctx, "nope", "main"); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("IsAncestor of a missing ref = %v", err)
	}
}

// LogTotal with a CountLimit counts as GitLab's commit search does: at
// most Offset + max(CountLimit, Limit) commits, newest first git stopping
// there; oldest first the page is still the oldest commits and the total
// capped alike; fewer matches than the bound are counted exactly.
func TestLogTotal_countLimit(t *testing.T) {
	st, err := repository.OpenStorage(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ctx := context.Background()
	if err := st.Create(ctx, 1, "main"); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "--git-dir", st.Path(1), "fast-import", "--quiet")
	cmd.Stdin = bytes.NewReader(historyStream(250)) // "change 0" … "change 249"
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	l, err := st.Open(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	for _, c := range []struct {
		opt         repository.LogOptions
		total       int
		first, last string
	}{
		{repository.LogOptions{Grep: "change", CountLimit: 100}, 100, "change 249", "change 230"},
		{repository.LogOptions{Grep: "change", CountLimit: 100, Offset: 40, Limit: 20}, 140, "change 209", "change 190"},
		{repository.LogOptions{Grep: "change", CountLimit: 100, Offset: 200, Limit: 20}, 250, "change 49", "change 30"},
		{repository.LogOptions{Grep: "change", CountLimit: 100, Offset: 240, Limit: 20}, 250, "change 9", "change 0"},
		{repository.LogOptions{Grep: "change", CountLimit: 5, Limit: 20}, 20, "change 249", "change 230"},
		{repository.LogOptions{Grep: "change", CountLimit: 100, Reverse: true}, 100, "change 0", "change 19"},
		{repository.LogOptions{Grep: "change", CountLimit: 100, Reverse: true, Offset: 230}, 250, "change 230", "change 249"},
		// A rare term: every match counted (7 and 70–79).
		{repository.LogOptions{Grep: "change 7", CountLimit: 100}, 11, "change 79", "change 7"},
		{repository.LogOptions{Grep: "change", Limit: 20}, 250, "change 249", "change 230"},
	} {
		page, total, err := l.LogTotal(ctx, c.opt)
		if err != nil {
			t.Fatalf("LogTotal(%+v): %v", c.opt, err)
		}
		if total != c.total || len(page) == 0 || page[0].Title != c.first || page[len(page)-1].Title != c.last {
			t.Errorf("LogTotal(%+v) = %d commits, %d on the page (%v…), want %d, %s … %s", c.opt, total, len(page), page[:min(len(page), 1)], c.total, c.first, c.last)
		}
	}
	if _, _, err := l.LogTotal(ctx, repository.LogOptions{CountLimit: -1}); !errors.Is(err, models.ErrInvalidInput) {
		t.Errorf("a negative count limit = %v", err)
	}
}
