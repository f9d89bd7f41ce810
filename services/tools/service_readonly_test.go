package tools_test

import (
	"context"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// Ensure Entry.ReadOnly follows the row's readOnlyHint annotation (true
// only for a literal true) and is recomputed when a reload changes it.
func TestEntryReadOnly(t *testing.T) {
	st := &memStore{}
	rows := map[string]string{
		"ro":     `{"readOnlyHint":true}`,
		"rw":     `{"readOnlyHint":false,"destructiveHint":false}`,
		"string": `{"readOnlyHint":"true"}`,
		"none":   ``,
	}
	for name, ann := range rows {
		if err := st.UpsertTool(context.Background(), &models.Tool{
			Name: name, Enabled: true, Annotations: models.JSON(ann),
			InputSchema: models.JSON(`{"type":"object"}`),
		}); err != nil {
			t.Fatal(err)
		}
	}
	svc, err := tools.NewService(st, nil, tools.Options{})
	if err != nil {
		t.Fatalf("new service: %v", err)
	}
	snap, err := svc.Snapshot(context.Background())
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	want := map[string]bool{"ro": true, "rw": false, "string": false, "none": false}
	for name, w := range want {
		e, ok := snap.Lookup(name)
		if !ok {
			t.Fatalf("%s: not in the snapshot", name)
		}
		if got := e.ReadOnly(); got != w {
			t.Errorf("%s: ReadOnly() = %v, want %v", name, got, w)
		}
	}

	// A reload sees changed annotations even when nothing else changed.
	row := st.rows["rw"]
	row.Annotations = models.JSON(`{"readOnlyHint":true}`)
	st.rows["rw"] = row
	svc.Invalidate()
	snap, err = svc.Snapshot(context.Background())
	if err != nil {
		t.Fatalf("snapshot after reload: %v", err)
	}
	if e, _ := snap.Lookup("rw"); !e.ReadOnly() {
		t.Errorf("rw after reload: ReadOnly() = false, want true")
	}
}

// Ensure an entry carried over from the previous snapshot (same row) still
// validates arguments against its schema.
func TestEntryValidatesAfterReload(t *testing.T) {
	def := tools.Definition{
		Name: "typed", InputSchema: []byte(`{"type":"object","properties":{"n":{"type":"integer"}},"additionalProperties":false}`),
		Run: func(context.Context, *tools.Call) (*tools.Result, error) { return &tools.Result{Text: "ok"}, nil },
	}
	st := &memStore{}
	svc, err := tools.NewService(st, []tools.Definition{def}, tools.Options{})
	if err != nil {
		t.Fatalf("new service: %v", err)
	}
	if err := svc.Sync(context.Background()); err != nil {
		t.Fatalf("sync: %v", err)
	}
	for round := range 2 {
		snap, err := svc.Snapshot(context.Background())
		if err != nil {
			t.Fatalf("round %d: snapshot: %v", round, err)
		}
		e, ok := snap.Lookup("typed")
		if !ok {
			t.Fatalf("round %d: typed not listed", round)
		}
		res, err := e.Run(context.Background(), &tools.Call{Arguments: []byte(`{"n":"x"}`)})
		if err != nil {
			t.Fatalf("round %d: run: %v", round, err)
		}
		if !res.IsError || res.Text != "Validation error: /n: got string, want integer" {
			t.Errorf("round %d: result = %+v, want the validation error for /n", round, res)
		}
		res, err = e.Run(context.Background(), &tools.Call{Arguments: []byte(`{"n":1}`)})
		if err != nil || res.IsError || res.Text != "ok" {
			t.Errorf("round %d: valid call = %+v, %v; want ok", round, res, err)
		}
		svc.Invalidate()
	}
}
