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

// On PostgreSQL a search matches the searched columns' lower-cased twins
// (coalesce(col_lower, lower(col)) LIKE lower(pattern), migration
// 20261208010000): it must answer exactly what ILIKE answers, for case
// pairs outside ASCII and for the characters whose lower case is ASCII
// (U+212A KELVIN SIGN, U+0130 İ) or is longer, with LIKE's wildcards as
// literals; a row whose twins are empty (a migration that has not filled
// them yet) still matches; an edit reaches the twins.
func TestSearch_postgresLoweredMatchesILIKE(t *testing.T) {
	s := storetest.OpenPostgres(t)
	ctx := context.Background()
	author := mustCreateUser(t, s, "author")
	p := mustCreateProject(t, s, "lowered", "spec")
	texts := []struct{ title, desc string }{
		{"ÄBC Straße", "ΣΊΣΥΦΟΣ and the ΟΔΟΣ"},
		{"Kelvin 5 \u212A", "İstanbul and ıIiİ"},
		{"100% done", `back\slash and a_b`},
		{"plain title", "ÅNGSTRÖM \u212B and ǅ digraph"},
		{"Ⅻ roman", "ﬁ ligature and ﬀ"},
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := &store.ProjectRecords{}
	for k, x := range texts {
		at = at.Add(time.Minute)
		r.Issues = append(r.Issues, store.RecordIssue{Issue: models.Issue{IID: int64(k + 1), Title: x.title,
			Description: x.desc, State: models.IssueOpened, AuthorID: author.ID, CreatedAt: at, UpdatedAt: at}})
	}
	if err := s.WithTx(ctx, func(tx *store.Store) error { return tx.Imports.InsertProjectRecords(ctx, p.ID, r) }); err != nil {
		t.Fatal(err)
	}
	// The last issue's twins empty, as before a migration filled them.
	for _, q := range []string{
		"ALTER TABLE issues DISABLE TRIGGER issues_lower_text",
		fmt.Sprintf("UPDATE issues SET title_lower = NULL, description_lower = NULL WHERE project_id = %d AND iid = 5", p.ID),
		"ALTER TABLE issues ENABLE TRIGGER issues_lower_text",
	} {
		if err := s.DB().Exec(q).Error; err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if n := storetest.Int(t, s, "SELECT count(*) FROM issues WHERE project_id = ? AND title_lower IS NULL", p.ID); n != 1 {
		t.Fatalf("issues without twins: %d, want 1", n)
	}
	search := func(term string) []int64 {
		t.Helper()
		is, _, err := s.Search.SearchIssues(ctx, models.SearchQuery{Viewer: author, Term: term, ProjectID: p.ID, Limit: 20, Ascending: true})
		if err != nil {
			t.Fatalf("SearchIssues(%q): %v", term, err)
		}
		var iids []int64
		for _, i := range is {
			iids = append(iids, i.IID)
		}
		return iids
	}
	ilike := func(term string) []int64 {
		t.Helper()
		pat := "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(term) + "%"
		return storetest.Ints(t, s, `SELECT iid FROM issues WHERE project_id = ? AND (title ILIKE ? ESCAPE '\' OR description ILIKE ? ESCAPE '\')
			ORDER BY created_at, id`, p.ID, pat, pat)
	}
	terms := []string{"äbc", "STRASSE", "straße", "σίσυφος", "οδοσ", "οδος", "kelvin 5 k", "\u212A", "k",
		"istanbul", "i̇stanbul", "ıiiİ", "İ", "100%", "0% d", `k\s`, `h\s`, "a_b", "a%b", "ångström", "\u212B", "å",
		"ǆ", "ǅ", "Ǆ", "ⅻ", "fi", "ﬁ", "ﬀ", "PLAIN", "roman", "ligature"}
	for _, term := range terms {
		got, want := search(term), ilike(term)
		if !slices.Equal(got, want) {
			t.Errorf("search %q = %v; ILIKE answers %v", term, got, want)
		}
	}
	if got := search("ligature"); !slices.Equal(got, []int64{5}) {
		t.Errorf(`search "ligature" = %v; want the issue without twins, [5]`, got)
	}

	// An edit, by any writer, reaches the twins: the old words no longer
	// match and the new ones do.
	if err := s.DB().Exec("UPDATE issues SET description = 'Nothing Else', title_lower = 'stale' WHERE project_id = ? AND iid = 2", p.ID).Error; err != nil {
		t.Fatal(err)
	}
	if got := search("istanbul"); len(got) != 0 {
		t.Errorf(`search "istanbul" after the edit = %v; want none`, got)
	}
	if got := search("else"); !slices.Equal(got, []int64{2}) {
		t.Errorf(`search "else" after the edit = %v; want [2]`, got)
	}
	if n := storetest.Int(t, s, "SELECT count(*) FROM issues WHERE title_lower IS DISTINCT FROM lower(title) AND title_lower IS NOT NULL"); n != 0 {
		t.Errorf("%d issues' title twin differs from lower(title)", n)
	}
}

// A column a newer migration adds (as 20261208010000 added the twins)
// does not break the reads an instance has already prepared: they name
// the models' columns instead of SELECT *, whose result PostgreSQL
// refuses to change under a cached plan ("cached plan must not change
// result type").
func TestStore_postgresReadsSurviveAnAddedColumn(t *testing.T) {
	s := storetest.OpenPostgres(t)
	ctx := context.Background()
	author := mustCreateUser(t, s, "author")
	p := mustCreateProject(t, s, "added", "column")
	r := &store.ProjectRecords{Issues: []store.RecordIssue{{Issue: models.Issue{IID: 1, Title: "One", State: models.IssueOpened,
		AuthorID: author.ID, CreatedAt: time.Now(), UpdatedAt: time.Now()}}}}
	if err := s.WithTx(ctx, func(tx *store.Store) error { return tx.Imports.InsertProjectRecords(ctx, p.ID, r) }); err != nil {
		t.Fatal(err)
	}
	sqlDB, err := s.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	// One connection, so the second read runs where the first was prepared.
	sqlDB.SetMaxOpenConns(1)
	read := func() error {
		_, _, err := s.Search.SearchIssues(ctx, models.SearchQuery{Viewer: author, Term: "one", ProjectID: p.ID, Limit: 20})
		return err
	}
	if err := read(); err != nil {
		t.Fatal(err)
	}
	if err := s.DB().Exec("ALTER TABLE issues ADD COLUMN added_later integer").Error; err != nil {
		t.Fatal(err)
	}
	if err := read(); err != nil {
		t.Errorf("the same read after a column was added: %v", err)
	}
}
