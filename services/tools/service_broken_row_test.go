package tools

import (
	"context"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

type rowsStore struct{ rows []models.Tool }

func (r *rowsStore) UpsertTool(context.Context, *models.Tool) error   { return nil }
func (r *rowsStore) ListTools(context.Context) ([]models.Tool, error) { return r.rows, nil }

// A row whose definition cannot be encoded (raw SQL can put invalid JSON in
// an SQLite text column) is left out; the rest of the catalog is served.
func TestSnapshot_skipsUnencodableRow(t *testing.T) {
	schema := models.JSON(`{"type":"object"}`)
	st := &rowsStore{rows: []models.Tool{
		{Name: "a_tool", InputSchema: schema, Annotations: models.JSON(`{"readOnlyHint":true}`), Enabled: true, Edition: models.EditionCE},
		{Name: "broken", InputSchema: schema, Annotations: models.JSON(`{not json`), Enabled: true, Edition: models.EditionCE},
		{Name: "z_tool", InputSchema: schema, Enabled: true, Edition: models.EditionCE},
	}}
	s, err := NewService(st, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := s.Snapshot(context.Background())
	if err != nil {
		t.Fatalf("Snapshot = %v, want the healthy rows served", err)
	}
	if len(snap.Entries) != 2 || snap.Entries[0].Tool.Name != "a_tool" || snap.Entries[1].Tool.Name != "z_tool" {
		t.Fatalf("%d tools, want a_tool and z_tool", len(snap.Entries))
	}
	if _, ok := snap.Lookup("broken"); ok {
		t.Fatal("the broken row is served")
	}
	for i := range snap.Entries {
		if e, _ := snap.Lookup(snap.Entries[i].Tool.Name); e != &snap.Entries[i] {
			t.Fatalf("Lookup(%q) is not Entries[%d]", snap.Entries[i].Tool.Name, i)
		}
	}
	if e, _ := snap.Lookup("a_tool"); !e.ReadOnly() {
		t.Fatal("a_tool lost its read-only annotation")
	}
}
