package catalog

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

func TestNewLister(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc     string
		secret   []byte
		pageSize int
		wantErr  bool
	}{
		{desc: "default page size", secret: testSecret, pageSize: DefaultPageSize},
		{desc: "page size 1", secret: testSecret, pageSize: 1},
		{desc: "page size 1000", secret: testSecret, pageSize: 1000},
		{desc: "page size 0", secret: testSecret, pageSize: 0, wantErr: true},
		{desc: "negative page size", secret: testSecret, pageSize: -1, wantErr: true},
		{desc: "page size 1001", secret: testSecret, pageSize: 1001, wantErr: true},
		{desc: "no secret", pageSize: 10, wantErr: true},
		{desc: "15-byte secret", secret: testSecret[:15], pageSize: 10, wantErr: true},
		{desc: "16-byte secret", secret: testSecret[:16], pageSize: 10},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			l, err := NewLister(tc.secret, tc.pageSize)
			if tc.wantErr {
				if err == nil || l != nil {
					t.Fatalf("NewLister = %v, %v; want an error", l, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewLister: %v", err)
			}
			if l.PageSize() != tc.pageSize {
				t.Errorf("PageSize() = %d, want %d", l.PageSize(), tc.pageSize)
			}
		})
	}
}

// walk pages through tools until NextCursor is empty, checking each page's
// shape, and returns every listed name in order.
func walk(tb testing.TB, l *Lister, tools []models.Tool, q Query) []string {
	tb.Helper()
	var got []string
	for pages := 0; ; pages++ {
		if pages > len(tools)+1 {
			tb.Fatalf("walk did not end after %d pages", pages)
		}
		p, err := pageTools(l, tools, q)
		if err != nil {
			tb.Fatalf("page %d: %v", pages, err)
		}
		if p.Tools == nil {
			tb.Fatalf("page %d: Tools is nil", pages)
		}
		if len(p.Tools) > l.PageSize() {
			tb.Fatalf("page %d: %d tools, page size %d", pages, len(p.Tools), l.PageSize())
		}
		got = append(got, names(p.Tools)...)
		if p.NextCursor == "" {
			return got
		}
		if len(p.Tools) != l.PageSize() {
			tb.Fatalf("page %d: %d tools, a page with a next cursor must be full (%d)", pages, len(p.Tools), l.PageSize())
		}
		if len(p.NextCursor) > MaxCursorLen {
			tb.Fatalf("page %d: minted a %d-character cursor", pages, len(p.NextCursor))
		}
		q.Cursor = p.NextCursor
	}
}

func TestLister_Page_walk(t *testing.T) {
	t.Parallel()
	catalog := syntheticCatalog(5000)
	queries := []struct {
		desc string
		q    Query
	}{
		{desc: "CE, no filter", q: Query{Edition: models.EditionCE}},
		{desc: "EE, read-only", q: Query{Edition: models.EditionEE, ReadOnly: true}},
		{desc: "EE, tools and toolsets", q: Query{Edition: models.EditionEE, Filter: mustFilter(t, "alpha_00001,alias_00013,x_04998,get__04993", "ci", "")}},
		{desc: "CE, read-only, toolsets and prefix", q: Query{Edition: models.EditionCE, ReadOnly: true, Filter: mustFilter(t, "", "core,Work_Items", "gl-")}},
	}
	for _, size := range []int{1, 7, 100} {
		l := mustLister(t, size)
		for _, qc := range queries {
			t.Run(qc.desc+", page size "+strconv.Itoa(size), func(t *testing.T) {
				t.Parallel()
				q := qc.q
				q.Verb = VerbToolsList
				want := visibleNames(catalog, q)
				if len(want) == 0 {
					t.Fatal("test query sees no tools")
				}
				got := walk(t, l, catalog, q)
				equalNames(t, "walked names", got, want)
			})
		}
	}
}

func TestLister_Page_firstPage(t *testing.T) {
	t.Parallel()
	catalog := fixtureCatalog()
	tests := []struct {
		desc     string
		pageSize int
		tools    []models.Tool
		q        Query
		want     []string
		wantNext bool
	}{
		{desc: "empty catalog", pageSize: 10, q: Query{Edition: models.EditionCE}, want: []string{}},
		{desc: "filter leaves nothing", pageSize: 10, tools: catalog, q: Query{Edition: models.EditionCE, Filter: mustFilter(t, "semantic_code_search", "", "")}, want: []string{}},
		{
			desc: "exactly one page of visible tools, invisible ones after", pageSize: 7, tools: catalog,
			q:    Query{Edition: models.EditionCE, ReadOnly: true},
			want: []string{"get_issue", "get_mcp_server_version", "get_merge_request", "get_pipeline_jobs", "get_workitem_notes", "search", "search_labels"},
		},
		{
			desc: "more visible tools than a page", pageSize: 6, tools: catalog,
			q:        Query{Edition: models.EditionCE, ReadOnly: true},
			want:     []string{"get_issue", "get_mcp_server_version", "get_merge_request", "get_pipeline_jobs", "get_workitem_notes", "search"},
			wantNext: true,
		},
		{
			desc: "prefix is added to listed names", pageSize: 3, tools: catalog,
			q:        Query{Edition: models.EditionCE, Filter: mustFilter(t, "", "merge_requests", "gl_")},
			want:     []string{"gl_create_merge_request", "gl_get_mcp_server_version", "gl_get_merge_request"},
			wantNext: false,
		},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			tc.q.Verb = VerbToolsList
			p, err := pageTools(mustLister(t, tc.pageSize), tc.tools, tc.q)
			if err != nil {
				t.Fatalf("Page: %v", err)
			}
			if p.Tools == nil {
				t.Fatal("Tools is nil")
			}
			equalNames(t, "page", names(p.Tools), tc.want)
			if (p.NextCursor != "") != tc.wantNext {
				t.Errorf("NextCursor = %q, want next: %v", p.NextCursor, tc.wantNext)
			}
		})
	}
}

func TestLister_Page_doesNotModifyInput(t *testing.T) {
	t.Parallel()
	catalog := fixtureCatalog()
	before := names(catalog)
	q := Query{Edition: models.EditionEE, Verb: VerbToolsList, Filter: mustFilter(t, "", "", "p_")}
	if _, err := pageTools(mustLister(t, 3), catalog, q); err != nil {
		t.Fatalf("Page: %v", err)
	}
	equalNames(t, "catalog after Page", names(catalog), before)
}

// TestLister_Page_catalogChanges resumes a listing after the tools around
// the cursor changed.
func TestLister_Page_catalogChanges(t *testing.T) {
	t.Parallel()
	base := syntheticCatalog(200)
	q := Query{Edition: models.EditionEE, Verb: VerbToolsList}
	l := mustLister(t, 10)
	first, err := pageTools(l, base, q)
	if err != nil {
		t.Fatalf("first page: %v", err)
	}
	last := first.Tools[len(first.Tools)-1].Name
	idx, _ := slices.BinarySearchFunc(base, last, func(t models.Tool, n string) int { return strings.Compare(t.Name, n) })
	all := visibleNames(base, q)
	pos := slices.Index(all, last)

	tests := []struct {
		desc   string
		change func([]models.Tool) []models.Tool
		want   []string // start of the next page
	}{
		{
			desc:   "unchanged",
			change: func(c []models.Tool) []models.Tool { return c },
			want:   all[pos+1 : pos+11],
		},
		{
			desc:   "cursor's tool deleted",
			change: func(c []models.Tool) []models.Tool { return slices.Delete(c, idx, idx+1) },
			want:   all[pos+1 : pos+11],
		},
		{
			desc: "cursor's tool and the next visible one deleted",
			change: func(c []models.Tool) []models.Tool {
				next := slices.IndexFunc(c, func(t models.Tool) bool { return t.Name == all[pos+1] })
				return slices.Delete(c, idx, next+1)
			},
			want: all[pos+2 : pos+12],
		},
		{
			desc:   "cursor's tool disabled",
			change: func(c []models.Tool) []models.Tool { c[idx].Enabled = false; return c },
			want:   all[pos+1 : pos+11],
		},
		{
			desc: "tools added before and after the cursor",
			change: func(c []models.Tool) []models.Tool {
				c = append(c, tool(last[:len(last)-1], models.ToolsetCore, models.EditionCE, true), tool(last+"_new", models.ToolsetCore, models.EditionCE, true))
				SortTools(c)
				return c
			},
			want: append([]string{last + "_new"}, all[pos+1:pos+10]...),
		},
		{
			desc: "every later tool deleted",
			change: func(c []models.Tool) []models.Tool {
				return c[:idx+1]
			},
			want: []string{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			changed := tc.change(slices.Clone(base))
			p, err := pageTools(l, changed, Query{Edition: q.Edition, Verb: q.Verb, Cursor: first.NextCursor})
			if err != nil {
				t.Fatalf("Page: %v", err)
			}
			equalNames(t, "next page", names(p.Tools), tc.want)
		})
	}
}

func TestLister_Page_queryErrors(t *testing.T) {
	t.Parallel()
	l := mustLister(t, 10)
	tests := []struct {
		desc string
		q    Query
	}{
		{desc: "empty verb", q: Query{Edition: models.EditionCE}},
		{desc: "unknown edition", q: Query{Edition: "xe", Verb: VerbToolsList}},
		{desc: "empty edition", q: Query{Verb: VerbToolsList}},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			_, err := pageTools(l, fixtureCatalog(), tc.q)
			if err == nil {
				t.Fatal("Page succeeded")
			}
			if errors.Is(err, models.ErrInvalidInput) {
				t.Errorf("err = %v: a caller bug must not read as the client's invalid input", err)
			}
		})
	}
}

func TestLister_Page_nameTooLongForCursor(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", mustLister(t, 1).signer.MaxPosition()+1)
	catalog := []models.Tool{tool(long, models.ToolsetCore, models.EditionCE, true), tool(long+"b", models.ToolsetCore, models.EditionCE, true)}
	_, err := pageTools(mustLister(t, 1), catalog, Query{Edition: models.EditionCE, Verb: VerbToolsList})
	if !errors.Is(err, errNameTooLong) || errors.Is(err, models.ErrInvalidInput) {
		t.Errorf("err = %v, want errNameTooLong (not invalid input)", err)
	}
}

// TestLister_Page_allocations guards the hot path: allocations do not grow
// with the page size or the catalog.
func TestLister_Page_allocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	catalog := syntheticCatalog(5000)
	q := Query{Edition: models.EditionEE, ReadOnly: true, Verb: VerbToolsList, Filter: mustFilter(t, "alpha_00001,alias_00013", "core,ci", "")}
	allocs := func(pageSize int) float64 {
		l := mustLister(t, pageSize)
		first, err := pageTools(l, catalog, q)
		if err != nil {
			t.Fatalf("Page: %v", err)
		}
		resumed := q
		resumed.Cursor = first.NextCursor
		return testing.AllocsPerRun(20, func() {
			if _, err := pageTools(l, catalog, resumed); err != nil {
				t.Fatalf("Page: %v", err)
			}
		})
	}
	small, large := allocs(5), allocs(500)
	const limit = 32
	if large > small+1 || large > limit {
		t.Errorf("Page allocates %v times (page size 5) and %v times (page size 500), want the same, at most %d", small, large, limit)
	}
}
