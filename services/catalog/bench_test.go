package catalog

import (
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

// benchQueries are the shapes measured: no filter, and the slow path (filter
// headers plus a read-only token, which scans annotations).
var benchQueries = []struct {
	name string
	q    func(testing.TB) Query
}{
	{name: "nofilter", q: func(testing.TB) Query { return Query{Edition: models.EditionEE, Verb: VerbToolsList} }},
	{name: "filtered_readonly", q: func(tb testing.TB) Query {
		return Query{Edition: models.EditionEE, ReadOnly: true, Verb: VerbToolsList, Filter: mustFilter(tb, "alpha_00001,alias_00013", "core,ci", "")}
	}},
}

func BenchmarkPageFirst(b *testing.B) {
	catalog := syntheticCatalog(5000)
	l := mustLister(b, DefaultPageSize)
	for _, bq := range benchQueries {
		b.Run(bq.name, func(b *testing.B) {
			q := bq.q(b)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := pageTools(l, catalog, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPageDeep resumes from a cursor near the end of the catalog, so it
// measures the binary search and cursor verification.
func BenchmarkPageDeep(b *testing.B) {
	catalog := syntheticCatalog(5000)
	l := mustLister(b, DefaultPageSize)
	for _, bq := range benchQueries {
		b.Run(bq.name, func(b *testing.B) {
			q := bq.q(b)
			q.Cursor = deepCursor(b, l, catalog, q)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := pageTools(l, catalog, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// deepCursor returns the cursor of the second-to-last page of q.
func deepCursor(tb testing.TB, l *Lister, catalog []models.Tool, q Query) string {
	tb.Helper()
	var prev, cur string
	for {
		q.Cursor = cur
		p, err := pageTools(l, catalog, q)
		if err != nil {
			tb.Fatal(err)
		}
		if p.NextCursor == "" {
			if prev == "" {
				tb.Fatal("catalog fits on one page")
			}
			return prev
		}
		prev, cur = cur, p.NextCursor
	}
}
