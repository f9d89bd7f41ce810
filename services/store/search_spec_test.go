package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// The search semantics, pinned on both stores with the same fixture and
// the same expected answers: a case-insensitive substring of the searched
// columns, LIKE's wildcards matching themselves, terms shorter than a
// trigram, newest first (or oldest with Ascending), pages by offset, and
// totals exact up to models.SearchCountCap and "more" past it.

// searchFixture imports one project's records at fixed times (one minute
// apart, in the order given) and returns the project and a reader.
func searchFixture(t *testing.T, s *store.Store) (*models.Project, *models.User) {
	t.Helper()
	ctx := context.Background()
	author := mustCreateUser(t, s, "author")
	reader := mustCreateUser(t, s, "reader")
	p := mustCreateProject(t, s, "search", "spec")
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	next := func() time.Time { at = at.Add(time.Minute); return at }
	issues := []struct{ title, desc string }{
		{"Nebula launch", "the first one"},
		{"Rename NEBULA before the announcement", ""},
		{"Board deck", "pricing for the nebula decision"},
		{"Cut costs by 50% now", "percent"},
		{"Cut costs by 500 now", "no percent"},
		{"snake a_b case", ""},
		{"plain aXb case", ""},
		{`Say "hi" to Ünïcode ÄBC`, ""},
		{"go vet", "ab"},
	}
	r := &store.ProjectRecords{}
	for k, i := range issues {
		t := next()
		r.Issues = append(r.Issues, store.RecordIssue{Issue: models.Issue{IID: int64(k + 1), Title: i.title,
			Description: i.desc, State: models.IssueOpened, AuthorID: author.ID, CreatedAt: t, UpdatedAt: t}})
	}
	for k, title := range []string{"Discover tools over nebula", "Fix the 100% CPU loop"} {
		t := next()
		r.MergeRequests = append(r.MergeRequests, store.RecordMergeRequest{MergeRequest: models.MergeRequest{
			IID: int64(k + 1), Title: title, Description: "merge request " + title, State: models.MergeRequestOpened,
			SourceBranch: fmt.Sprintf("topic-%d", k), TargetBranch: "main", AuthorID: author.ID, CreatedAt: t, UpdatedAt: t}})
	}
	for k, body := range []string{"Root cause: the nebula cache", "root CAUSE again", "unrelated", "the 50% case"} {
		t := next()
		r.Notes = append(r.Notes, store.RecordNote{NoteableIID: 1, Note: models.Note{NoteableType: models.NoteableIssue,
			AuthorID: author.ID, Body: body, DiscussionID: fmt.Sprintf("%040d", k+1), CreatedAt: t, UpdatedAt: t}})
	}
	t0 := next()
	r.Milestones = []models.Milestone{{IID: 1, Title: "18.8", Description: "Protocol work", State: "active", CreatedAt: t0, UpdatedAt: t0}}
	t1 := next()
	r.WikiPages = []models.WikiPage{{Slug: "guides/toolsets", Title: "Toolsets", Format: "markdown", Content: "Always on", CreatedAt: t1, UpdatedAt: t1}}
	if err := s.WithTx(ctx, func(tx *store.Store) error { return tx.Imports.InsertProjectRecords(ctx, p.ID, r) }); err != nil {
		t.Fatal(err)
	}
	return p, reader
}

func TestSearch_sameOnBothStores(t *testing.T) { forEachStore(t, testSearchSemantics) }

// TestSearch_sameOnBothStoresScanning is TestSearch_sameOnBothStores with
// SQLite reading the rows instead of the FTS5 index (what it does for a
// term whose trigrams are all common): the same answers.
func TestSearch_sameOnBothStoresScanning(t *testing.T) {
	t.Cleanup(store.SetFTSSelectiveDocs(0))
	forEachStore(t, testSearchSemantics)
}

func testSearchSemantics(t *testing.T, s *store.Store) {
	ctx := context.Background()
	p, reader := searchFixture(t, s)
	q := func(term string) models.SearchQuery {
		return models.SearchQuery{Viewer: reader, Term: term, ProjectID: p.ID, Limit: 20}
	}
	issues := func(q models.SearchQuery) string {
		t.Helper()
		is, total, err := s.Search.SearchIssues(ctx, q)
		if err != nil {
			t.Fatalf("SearchIssues(%q): %v", q.Term, err)
		}
		var iids []string
		for _, i := range is {
			iids = append(iids, fmt.Sprint(i.IID))
		}
		return fmt.Sprintf("%d:%s", total, strings.Join(iids, ","))
	}
	for _, c := range []struct {
		name string
		q    models.SearchQuery
		want string // total:iids in order
	}{
		{"any case, title or description, newest first", q("nebula"), "3:3,2,1"},
		{"upper-case term", q("NEBULA"), "3:3,2,1"},
		{"title only", func() models.SearchQuery { x := q("nebula"); x.TitleOnly = true; return x }(), "2:2,1"},
		{"oldest first", func() models.SearchQuery { x := q("nebula"); x.Ascending = true; return x }(), "3:1,2,3"},
		{"% matches itself", q("50%"), "1:4"},
		{"_ matches itself", q("a_b"), "1:6"},
		{"quotes in the term", q(`"hi"`), "1:8"},
		{"non-ASCII, any case", q("äbc"), "1:8"},
		{"a two-character term", q("ab"), "1:9"},
		{"a one-character term", q("%"), "1:4"},
		{"surrounding blanks ignored", q("  deck  "), "1:3"},
		{"no match", q("zzzz"), "0:"},
		{"page 2 of 2 per page", func() models.SearchQuery { x := q("nebula"); x.Limit, x.Offset = 2, 2; return x }(), "3:1"},
		{"state filter", func() models.SearchQuery { x := q("nebula"); x.State = "closed"; return x }(), "0:"},
	} {
		if got := issues(c.q); got != c.want {
			t.Errorf("%s: SearchIssues(%q) = %s, want %s", c.name, c.q.Term, got, c.want)
		}
	}

	notes, total, err := s.Search.SearchNotes(ctx, q("root cause"))
	if got := noteBodies(notes); err != nil || total != 2 || !slices.Equal(got, []string{"root CAUSE again", "Root cause: the nebula cache"}) {
		t.Errorf("SearchNotes(root cause) = %v, %d, %v", got, total, err)
	}
	notes, total, err = s.Search.SearchNotes(ctx, q("50%"))
	if got := noteBodies(notes); err != nil || total != 1 || !slices.Equal(got, []string{"the 50% case"}) {
		t.Errorf("SearchNotes(50%%) = %v, %d, %v", got, total, err)
	}
	mrs, total, err := s.Search.SearchMergeRequests(ctx, q("100%"))
	if err != nil || total != 1 || len(mrs) != 1 || mrs[0].IID != 2 {
		t.Errorf("SearchMergeRequests(100%%) = %v, %d, %v", mrs, total, err)
	}
	mrs, total, err = s.Search.SearchMergeRequests(ctx, q("NEBULA"))
	if err != nil || total != 1 || len(mrs) != 1 || mrs[0].IID != 1 {
		t.Errorf("SearchMergeRequests(NEBULA) = %v, %d, %v", mrs, total, err)
	}
	ms, total, err := s.Search.SearchMilestones(ctx, q("protocol"))
	if err != nil || total != 1 || len(ms) != 1 || ms[0].Title != "18.8" {
		t.Errorf("SearchMilestones(protocol) = %v, %d, %v", ms, total, err)
	}
	for _, term := range []string{"always ON", "toolsets", "guides/"} {
		wps, total, err := s.Search.SearchWikiPages(ctx, q(term))
		if err != nil || total != 1 || len(wps) != 1 || wps[0].Slug != "guides/toolsets" {
			t.Errorf("SearchWikiPages(%q) = %v, %d, %v", term, wps, total, err)
		}
	}
	page, err := s.Issues.ListWorkItems(ctx, models.WorkItemQuery{Viewer: reader, ProjectID: p.ID, Search: "Nebula", Limit: 2})
	if err != nil || len(page.Items) != 2 || page.Items[0].IID != 3 || page.Items[1].IID != 2 || !page.HasNext {
		t.Fatalf("ListWorkItems(search Nebula) = %+v, %v", page, err)
	}
	page, err = s.Issues.ListWorkItems(ctx, models.WorkItemQuery{Viewer: reader, ProjectID: p.ID, Search: "Nebula", Limit: 2,
		AfterKey: page.EndKey, AfterID: page.EndID})
	if err != nil || len(page.Items) != 1 || page.Items[0].IID != 1 || page.HasNext {
		t.Errorf("ListWorkItems(search Nebula) page 2 = %+v, %v", page, err)
	}
	// Changed text is found by what it says now (the indexes follow).
	if _, err := s.Issues.UpdateWorkItem(ctx, page.Items[0].ID, models.WorkItemUpdate{Title: ptr("Comet launch")}); err != nil {
		t.Fatal(err)
	}
	if got := issues(q("nebula")); got != "2:3,2" {
		t.Errorf("after the rename, SearchIssues(nebula) = %s, want 2:3,2", got)
	}
	if got := issues(q("comet")); got != "1:1" {
		t.Errorf("after the rename, SearchIssues(comet) = %s, want 1:1", got)
	}
}

func noteBodies(ns []models.Note) []string {
	out := []string{}
	for _, n := range ns {
		out = append(out, n.Body)
	}
	return out
}

// Past models.SearchCountCap matches the total stops counting: it is more
// than the cap, and larger than the page's end exactly when a next page
// exists.
func TestSearch_cappedCount(t *testing.T) { forEachStore(t, testSearchCappedCount) }

// TestSearch_cappedCountScanning is TestSearch_cappedCount with SQLite
// reading the rows instead of the FTS5 index.
func TestSearch_cappedCountScanning(t *testing.T) {
	t.Cleanup(store.SetFTSSelectiveDocs(0))
	forEachStore(t, testSearchCappedCount)
}

func testSearchCappedCount(t *testing.T, s *store.Store) {
	ctx := context.Background()
	author := mustCreateUser(t, s, "author")
	p := mustCreateProject(t, s, "search", "many")
	const n = models.SearchCountCap + 3
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := &store.ProjectRecords{}
	for k := range n {
		t := at.Add(time.Duration(k) * time.Second)
		r.Issues = append(r.Issues, store.RecordIssue{Issue: models.Issue{IID: int64(k + 1), Title: fmt.Sprintf("bulk issue %d", k+1),
			State: models.IssueOpened, AuthorID: author.ID, CreatedAt: t, UpdatedAt: t}})
	}
	r.Issues = append(r.Issues, store.RecordIssue{Issue: models.Issue{IID: n + 1, Title: "the odd one",
		State: models.IssueOpened, AuthorID: author.ID, CreatedAt: at, UpdatedAt: at}})
	if err := s.WithTx(ctx, func(tx *store.Store) error { return tx.Imports.InsertProjectRecords(ctx, p.ID, r) }); err != nil {
		t.Fatal(err)
	}
	if err := s.Imports.AnalyzeBulkWrite(ctx); err != nil {
		t.Fatalf("AnalyzeBulkWrite: %v", err)
	}
	// The planner's statistics know the rows now.
	stats := "SELECT count(*) FROM sqlite_stat1 WHERE tbl = 'issues'"
	if s.Dialect() == "postgres" {
		stats = "SELECT CAST(reltuples AS bigint) FROM pg_class WHERE relname = 'issues'"
	}
	var known int64
	if err := s.DB().Raw(stats).Scan(&known).Error; err != nil || known < 1 || (s.Dialect() == "postgres" && known < n) {
		t.Errorf("statistics of issues after AnalyzeBulkWrite: %d, %v", known, err)
	}
	if s.Dialect() == "postgres" {
		// The trigram indexes' pending lists, which every search through
		// them reads, were merged: nothing is left to merge.
		var pending int64
		err := s.DB().Raw("SELECT gin_clean_pending_list('index_issues_on_title_lower_trigram'::regclass)").Scan(&pending).Error
		if err != nil || pending != 0 {
			t.Errorf("pending pages of index_issues_on_title_lower_trigram after AnalyzeBulkWrite: %d, %v", pending, err)
		}
	}
	for _, c := range []struct {
		offset, limit int
		wantTotal     int64
		wantFirst     int64 // iid of the first hit
		wantLen       int
		wantNext      bool
	}{
		{0, 20, models.SearchCountCap + 1, n, 20, true},
		{980, 20, models.SearchCountCap + 1, n - 980, 20, true},
		{1000, 20, n, 3, 3, false},
		{990, 20, n, n - 990, 13, false},
		{2000, 20, 2000, 0, 0, false}, // past the end: no next page
	} {
		is, total, err := s.Search.SearchIssues(ctx, models.SearchQuery{Viewer: author, Term: "BULK", ProjectID: p.ID,
			Limit: c.limit, Offset: c.offset})
		if err != nil {
			t.Fatal(err)
		}
		first := int64(0)
		if len(is) > 0 {
			first = is[0].IID
		}
		next := int64(c.offset+len(is)) < total
		if total != c.wantTotal || len(is) != c.wantLen || first != c.wantFirst || next != c.wantNext {
			t.Errorf("offset %d: total %d, %d hits from #%d, next %v; want %d, %d from #%d, next %v",
				c.offset, total, len(is), first, next, c.wantTotal, c.wantLen, c.wantFirst, c.wantNext)
		}
	}
	// A page that ends before its limit holds the last match: its total
	// needs no count (a rare term's index scan is not run twice); a full
	// page is counted.
	rec := recordStatements(t, s)
	counts := func(term string, wantTotal int64) int {
		t.Helper()
		n := 0
		for _, st := range rec.during(func(ctx context.Context) {
			_, total, err := s.Search.SearchIssues(ctx, models.SearchQuery{Viewer: author, Term: term, ProjectID: p.ID, Limit: 20})
			if err != nil || total != wantTotal {
				t.Errorf("SearchIssues(%s) total = %d, %v; want %d", term, total, err, wantTotal)
			}
		}) {
			if strings.Contains(strings.ToLower(st.sql), "count(") {
				n++
			}
		}
		return n
	}
	if n := counts("odd", 1); n != 0 {
		t.Errorf("SearchIssues(odd), one match: %d count statements, want none", n)
	}
	if n := counts("bulk", models.SearchCountCap+1); n != 1 {
		t.Errorf("SearchIssues(bulk), a full page: %d count statements, want 1", n)
	}
}

// On SQLite the FTS5 index is chosen when one of the term's trigrams is in
// few rows (counted through the index, up to the threshold), or in none.
func TestFTSSelective_sqlite(t *testing.T) {
	s := storetest.OpenSQLite(t)
	searchFixture(t, s)
	t.Cleanup(store.SetFTSSelectiveDocs(2))
	for _, c := range []struct {
		term string
		want bool
	}{
		{"nebula", false},     // every trigram in 3 issues
		{"nebula deck", true}, // "dec" in one
		{"Board", true},       // "boa" in one
		{"zzzz", true},        // in none: no match, found at once
		{`"hi"`, true},        // quotes in a trigram
	} {
		if got := store.FTSSelective(s, "issues", c.term); got != c.want {
			t.Errorf("FTSSelective(issues, %q) = %v, want %v", c.term, got, c.want)
		}
	}
}
