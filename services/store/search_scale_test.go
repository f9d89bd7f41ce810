package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// Search at scale: a large project beside a small one on one store, the
// plans PostgreSQL chooses for both, and searches running concurrently.
// The sizes default to what a test run affords; GLMCP_SEARCH_SCALE_ISSUES
// (e.g. 100000) and GLMCP_SEARCH_LOAD_SECONDS (e.g. 15) give the issue's
// figures (doc/performance.md, "Search at scale").

// scaleVocabulary are the words titles, descriptions and notes are made
// of: each appears in about a fifth of the issues.
var scaleVocabulary = strings.Fields(`pipeline runner deploy cache merge review branch commit label milestone
	token project group member release wiki search index query table column schema migration backup restore
	metrics alert dashboard latency timeout retry queue worker job artifact registry image container cluster
	node pod service ingress secret config template variable script stage rule trigger webhook email user
	admin guest reporter developer owner access audit`)

// scaleRare is in one issue's title, one note and one merge request only.
const scaleRare = "quasar"

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// scaleProject creates a public project with issues issues (three notes
// each, one merge request per 20 issues), one minute apart, and returns it.
func scaleProject(tb testing.TB, s *store.Store, author *models.User, name string, issues int) *models.Project {
	tb.Helper()
	ctx := context.Background()
	p := mustCreateProject(&testing.T{}, s, "scale", name)
	rng := rand.New(rand.NewPCG(uint64(issues), 7))
	words := func(n int) string {
		w := make([]string, n)
		for k := range w {
			w[k] = scaleVocabulary[rng.IntN(len(scaleVocabulary))]
		}
		return strings.Join(w, " ")
	}
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	const batch = 1000
	err := s.WithTx(ctx, func(tx *store.Store) error {
		db := tx.DB().WithContext(ctx).Session(&gorm.Session{CreateBatchSize: batch})
		for lo := 1; lo <= issues; lo += batch {
			hi := min(issues, lo+batch-1)
			rows := make([]models.Issue, 0, hi-lo+1)
			for n := lo; n <= hi; n++ {
				t := start.Add(time.Duration(n) * time.Minute)
				title := fmt.Sprintf("Issue %d: %s", n, words(4))
				if n == issues/2+1 {
					title += " " + scaleRare
				}
				rows = append(rows, models.Issue{ProjectID: p.ID, IID: int64(n), Title: title, Description: words(20),
					State: models.IssueOpened, Labels: models.StringList{}, AuthorID: author.ID, CreatedAt: t, UpdatedAt: t})
			}
			if err := db.Omit("Author", "Assignees").Create(&rows).Error; err != nil {
				return err
			}
			var notes []models.Note
			var mrs []models.MergeRequest
			for _, i := range rows {
				for k := range 3 {
					body := words(12)
					if i.IID == int64(issues/3+1) && k == 1 {
						body += " " + scaleRare
					}
					t := i.CreatedAt.Add(time.Duration(k+1) * time.Second)
					notes = append(notes, models.Note{NoteableType: models.NoteableIssue, NoteableID: i.ID, ProjectID: p.ID,
						AuthorID: author.ID, Body: body, DiscussionID: fmt.Sprintf("%020d%020d", i.ID, k), CreatedAt: t, UpdatedAt: t})
				}
				if i.IID%20 == 0 {
					title := "Resolve " + words(4)
					if i.IID == int64(issues/4/20*20+20) {
						title += " " + scaleRare
					}
					mrs = append(mrs, models.MergeRequest{ProjectID: p.ID, IID: i.IID / 20, Title: title, Description: words(20),
						State: models.MergeRequestOpened, SourceBranch: fmt.Sprintf("topic-%d", i.IID), TargetBranch: "main",
						AuthorID: author.ID, Labels: models.StringList{}, MergeStatus: "can_be_merged", CreatedAt: i.CreatedAt, UpdatedAt: i.CreatedAt})
				}
			}
			if err := db.Omit("Author", "Position").Create(&notes).Error; err != nil {
				return err
			}
			if len(mrs) > 0 {
				if err := db.Omit("Author", "Assignees", "Reviewers").Create(&mrs).Error; err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatalf("build project %s (%d issues): %v", name, issues, err)
	}
	return p
}

// scaleStores builds the large and the small project on s, analyzed.
type scaleFixture struct {
	s            *store.Store
	viewer       *models.User
	large, small *models.Project
	largeIssues  int
}

func newScaleFixture(tb testing.TB, s *store.Store) *scaleFixture {
	tb.Helper()
	large := envInt("GLMCP_SEARCH_SCALE_ISSUES", 6000)
	author := mustCreateUser(&testing.T{}, s, "author")
	viewer := mustCreateUser(&testing.T{}, s, "viewer")
	began := time.Now()
	f := &scaleFixture{s: s, viewer: viewer, largeIssues: large,
		large: scaleProject(tb, s, author, "large", large),
		small: scaleProject(tb, s, author, "small", max(100, large/100))}
	if err := s.Imports.AnalyzeBulkWrite(context.Background()); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("%s: built %d + %d issues (3 notes each) in %v", s.Dialect(), large, max(100, large/100), time.Since(began).Round(time.Millisecond))
	return f
}

// scaleCalls are the reads measured on each project.
func (f *scaleFixture) calls(p *models.Project) []struct {
	name string
	run  func(context.Context) error
} {
	sq := func(term string) models.SearchQuery {
		return models.SearchQuery{Viewer: f.viewer, Term: term, ProjectID: p.ID, Limit: 20}
	}
	search := func(scope string, term string) func(context.Context) error {
		return func(ctx context.Context) error {
			var err error
			switch scope {
			case "issues":
				_, _, err = f.s.Search.SearchIssues(ctx, sq(term))
			case "notes":
				_, _, err = f.s.Search.SearchNotes(ctx, sq(term))
			case "merge_requests":
				_, _, err = f.s.Search.SearchMergeRequests(ctx, sq(term))
			}
			return err
		}
	}
	list := func(q models.WorkItemQuery, pages int) func(context.Context) error {
		return func(ctx context.Context) error {
			for range pages {
				pg, err := f.s.Issues.ListWorkItems(ctx, q)
				if err != nil {
					return err
				}
				q.AfterKey, q.AfterID = pg.EndKey, pg.EndID
			}
			return nil
		}
	}
	wq := models.WorkItemQuery{Viewer: f.viewer, ProjectID: p.ID, Limit: 20}
	wqs := wq
	wqs.Search = "pipeline"
	return []struct {
		name string
		run  func(context.Context) error
	}{
		{"search_issues_rare", search("issues", scaleRare)},
		{"search_issues_common", search("issues", "pipeline")},
		{"search_notes_rare", search("notes", scaleRare)},
		{"search_notes_common", search("notes", "pipeline")},
		{"search_merge_requests_common", search("merge_requests", "pipeline")},
		{"list_work_items_first_page", list(wq, 1)},
		{"list_work_items_search", list(wqs, 1)},
		{"list_work_items_21_pages", list(wq, 21)},
	}
}

// BenchmarkSearchScale runs each read on the large and the small project
// of one store, side by side (GLMCP_SEARCH_SCALE_ISSUES sets the size).
func BenchmarkSearchScale(b *testing.B) {
	for _, dialect := range []string{"postgres", "sqlite"} {
		b.Run(dialect, func(b *testing.B) {
			var s *store.Store
			if dialect == "postgres" {
				s = storetest.OpenPostgres(b)
			} else {
				s = storetest.OpenSQLite(b)
			}
			f := newScaleFixture(b, s)
			large, small := f.calls(f.large), f.calls(f.small)
			for k := range large {
				for _, c := range []struct {
					size string
					run  func(context.Context) error
				}{{"large", large[k].run}, {"small", small[k].run}} {
					b.Run(large[k].name+"/"+c.size, func(b *testing.B) {
						for b.Loop() {
							if err := c.run(context.Background()); err != nil {
								b.Fatal(err)
							}
						}
					})
				}
			}
		})
	}
}

// TestSearchScale builds the two projects on PostgreSQL once for its
// subtests.
func TestSearchScale(t *testing.T) {
	s := storetest.OpenPostgres(t)
	f := newScaleFixture(t, s)
	t.Run("plans", func(t *testing.T) { testSearchScalePlans(t, f) })
	t.Run("concurrent", func(t *testing.T) { testSearchScaleConcurrent(t, f) })
}

// testSearchScalePlans checks what PostgreSQL's planner does with the
// search queries on a large and a small project: no JIT, custom plans on
// every session, no visibility filter reading every issue, and (on a
// project large enough for it to matter) the trigram indexes used for a
// rare term.
func testSearchScalePlans(t *testing.T, f *scaleFixture) {
	s := f.s
	ctx := context.Background()
	for setting, want := range map[string]string{"jit": "off", "plan_cache_mode": "force_custom_plan", "random_page_cost": "1.1"} {
		var got string
		if err := s.DB().WithContext(ctx).Raw("SHOW " + setting).Scan(&got).Error; err != nil || got != want {
			t.Errorf("SHOW %s = %q, %v; want %q", setting, got, err, want)
		}
	}
	rec := recordStatements(t, s)
	sqlDB, err := s.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*models.Project{f.large, f.small} {
		for _, c := range f.calls(p) {
			stmts := rec.during(func(ctx context.Context) {
				if err := c.run(ctx); err != nil {
					t.Fatalf("%s on %s: %v", c.name, p.Path, err)
				}
			})
			if len(stmts) == 0 {
				t.Fatalf("%s: no statement recorded", c.name)
			}
			for _, st := range stmts {
				if !strings.Contains(st.sql, "FROM \"issues\"") && !strings.Contains(st.sql, "FROM \"notes\"") &&
					!strings.Contains(st.sql, "FROM \"merge_requests\"") {
					continue // preloads of authors and the like
				}
				plan := explain(t, sqlDB, st)
				switch {
				case strings.Contains(plan, "JIT"):
					t.Errorf("%s on project %s: the plan is compiled (JIT):\n%s", c.name, p.Path, plan)
				case strings.Contains(plan, "Seq Scan on issues ni"):
					t.Errorf("%s on project %s: the visibility filter reads every issue:\n%s", c.name, p.Path, plan)
				case strings.HasSuffix(c.name, "_rare") && p == f.large && f.largeIssues >= 20_000 &&
					!strings.Contains(plan, "_trigram"):
					// Below some thousands of rows a sequential scan is
					// the cheaper plan, and the planner knows it.
					t.Errorf("%s on project %s: a rare term not answered through a trigram index:\n%s\n%s", c.name, p.Path, st.sql, plan)
				}
			}
		}
	}
}

// testSearchScaleConcurrent runs 16 searches at once on the large project
// for a while, with the store's default statement deadline: every one
// answers.
func testSearchScaleConcurrent(t *testing.T, f *scaleFixture) {
	calls := f.calls(f.large)
	var search []func(context.Context) error
	for _, c := range calls {
		if strings.HasPrefix(c.name, "search_") || c.name == "list_work_items_search" {
			search = append(search, c.run)
		}
	}
	duration := time.Duration(envInt("GLMCP_SEARCH_LOAD_SECONDS", 3)) * time.Second
	const workers = 16
	var (
		mu        sync.Mutex
		latencies []time.Duration
		failures  []error
	)
	stop := time.Now().Add(duration)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for k := w; time.Now().Before(stop); k++ {
				began := time.Now()
				err := search[k%len(search)](context.Background())
				took := time.Since(began)
				mu.Lock()
				latencies = append(latencies, took)
				if err != nil {
					failures = append(failures, err)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Errorf("%d of %d concurrent searches failed; first: %v", len(failures), len(latencies), failures[0])
	}
	slices.Sort(latencies)
	t.Logf("%d workers, %v: %d searches (%.0f/s), p50 %v, p99 %v, max %v", workers, duration, len(latencies),
		float64(len(latencies))/duration.Seconds(), latencies[len(latencies)/2].Round(time.Microsecond),
		latencies[len(latencies)*99/100].Round(time.Microsecond), latencies[len(latencies)-1].Round(time.Microsecond))
}

// statementRecorder keeps the SQL and arguments of the queries run with a
// context it marked.
type statementRecorder struct {
	mu    sync.Mutex
	stmts []recordedStatement
}

type recordedStatement struct {
	sql  string
	vars []any
}

type recorderKey struct{}

func recordStatements(t *testing.T, s *store.Store) *statementRecorder {
	r := &statementRecorder{}
	err := s.DB().Callback().Query().After("gorm:query").Register("search_scale:record", func(db *gorm.DB) {
		if db.Statement.Context == nil || db.Statement.Context.Value(recorderKey{}) != r {
			return
		}
		r.mu.Lock()
		r.stmts = append(r.stmts, recordedStatement{sql: db.Statement.SQL.String(), vars: slices.Clone(db.Statement.Vars)})
		r.mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *statementRecorder) during(fn func(ctx context.Context)) []recordedStatement {
	r.mu.Lock()
	r.stmts = nil
	r.mu.Unlock()
	fn(context.WithValue(context.Background(), recorderKey{}, r))
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.stmts)
}

// explain returns PostgreSQL's EXPLAIN ANALYZE of st, run on db (a
// connection of the store, with its session settings).
func explain(t *testing.T, db *sql.DB, st recordedStatement) string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), "EXPLAIN (ANALYZE, BUFFERS OFF) "+st.sql, st.vars...)
	if err != nil {
		t.Fatalf("EXPLAIN %s: %v", st.sql, err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}
