package store_test

import (
	"context"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

func newTool(name string) *models.Tool {
	return &models.Tool{
		Name: name, Title: "Get issue", Description: "Get a single issue.",
		InputSchema: models.JSON(`{"type":"object","properties":{"id":{"type":"string"},"issue_iid":{"type":"integer"}},"required":["id","issue_iid"]}`),
		Annotations: models.JSON(`{"readOnlyHint":true}`),
		Toolset:     models.ToolsetCore, Edition: models.EditionCE, Enabled: true,
	}
}

// wantCatalogVersion fails t unless the catalog version is want.
func wantCatalogVersion(t *testing.T, s *store.Store, step string, want int64) {
	t.Helper()
	got, err := s.Tools.CatalogVersion(context.Background())
	if err != nil || got != want {
		t.Fatalf("%s: CatalogVersion() = %d, %v; want %d", step, got, err, want)
	}
}

func TestStore_UpsertTool(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		wantCatalogVersion(t, s, "fresh", 0)

		tool := newTool("get_issue")
		wantErr(t, "UpsertTool(new)", s.Tools.UpsertTool(ctx, tool), nil)
		if tool.ID == 0 || !tool.Enabled {
			t.Errorf("UpsertTool(new) left %+v, want ID set and enabled", tool)
		}
		wantCatalogVersion(t, s, "after insert", 1)

		// Same definition, keys in another order and other spacing: no write.
		same := newTool("get_issue")
		same.InputSchema = models.JSON(`{"required":["id","issue_iid"], "type":"object","properties":{"issue_iid":{"type":"integer"},"id":{"type":"string"}}}`)
		wantErr(t, "UpsertTool(same)", s.Tools.UpsertTool(ctx, same), nil)
		wantCatalogVersion(t, s, "after identical upsert", 1)
		if same.ID != tool.ID {
			t.Errorf("identical upsert: ID = %d, want %d", same.ID, tool.ID)
		}

		// The operator disables it; a new definition keeps it disabled.
		changed, err := s.Tools.SetToolEnabled(ctx, "get_issue", false)
		if err != nil || !changed {
			t.Fatalf("SetToolEnabled(false) = %t, %v; want true, nil", changed, err)
		}
		wantCatalogVersion(t, s, "after disable", 2)
		changed, err = s.Tools.SetToolEnabled(ctx, "get_issue", false)
		if err != nil || changed {
			t.Fatalf("SetToolEnabled(false) again = %t, %v; want false, nil", changed, err)
		}
		wantCatalogVersion(t, s, "after no-op disable", 2)

		v2 := newTool("get_issue") // Enabled: true in the definition
		v2.Description = "Get a single issue, with its labels."
		v2.Aliases = models.StringList{"issue_get"}
		wantErr(t, "UpsertTool(changed)", s.Tools.UpsertTool(ctx, v2), nil)
		wantCatalogVersion(t, s, "after changed upsert", 3)
		got, err := s.Tools.FindToolByName(ctx, "get_issue")
		if err != nil {
			t.Fatal(err)
		}
		if got.Enabled || v2.Enabled {
			t.Errorf("upsert re-enabled a disabled tool: stored %t, returned %t", got.Enabled, v2.Enabled)
		}
		if got.Description != v2.Description || !got.Aliases.Contains("issue_get") {
			t.Errorf("stored %+v, want the new description and alias", got)
		}

		changed, err = s.Tools.SetToolEnabled(ctx, "issue_get", true) // by alias
		if err != nil || !changed {
			t.Fatalf("SetToolEnabled(alias, true) = %t, %v", changed, err)
		}
		wantCatalogVersion(t, s, "after enable", 4)

		wantErr(t, "UpdateToolDescription", s.Tools.UpdateToolDescription(ctx, "get_issue", "Read an issue."), nil)
		wantCatalogVersion(t, s, "after description", 5)
		wantErr(t, "UpdateToolDescription(same)", s.Tools.UpdateToolDescription(ctx, "get_issue", "Read an issue."), nil)
		wantCatalogVersion(t, s, "after same description", 5)
		wantErr(t, "UpdateToolDescription(empty)", s.Tools.UpdateToolDescription(ctx, "get_issue", " "), models.ErrInvalidInput)
		wantErr(t, "UpdateToolDescription(unknown)", s.Tools.UpdateToolDescription(ctx, "nope", "x"), models.ErrNotFound)
		_, err = s.Tools.SetToolEnabled(ctx, "nope", true)
		wantErr(t, "SetToolEnabled(unknown)", err, models.ErrNotFound)
		wantCatalogVersion(t, s, "after refused changes", 5)

		// A later sync of the code's definition keeps the operator's words
		// (and changes nothing else here, so the version stays).
		wantErr(t, "UpsertTool(after describe)", s.Tools.UpsertTool(ctx, v2), nil)
		got, err = s.Tools.FindToolByName(ctx, "get_issue")
		if err != nil {
			t.Fatal(err)
		}
		if got.Description != "Read an issue." || !got.DescriptionCustomized {
			t.Errorf("after sync: description %q customized %t, want the operator's, true", got.Description, got.DescriptionCustomized)
		}
		wantCatalogVersion(t, s, "after sync keeping the description", 5)

		wantErr(t, "DeleteTool", s.Tools.DeleteTool(ctx, "get_issue"), nil)
		wantCatalogVersion(t, s, "after delete", 6)
		wantErr(t, "DeleteTool(again)", s.Tools.DeleteTool(ctx, "get_issue"), models.ErrNotFound)
		wantCatalogVersion(t, s, "after refused delete", 6)
	})
}

func TestStore_Tools_namesAndAliases(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		search := newTool("search")
		search.Aliases = models.StringList{"gitlab_search"}
		wantErr(t, "UpsertTool(search)", s.Tools.UpsertTool(ctx, search), nil)
		wantErr(t, "UpsertTool(get_issue)", s.Tools.UpsertTool(ctx, newTool("get_issue")), nil)
		wantCatalogVersion(t, s, "setup", 2)

		for _, name := range []string{"search", "gitlab_search"} {
			got, err := s.Tools.FindToolByName(ctx, name)
			if err != nil || got.Name != "search" {
				t.Errorf("FindToolByName(%q) = %+v, %v; want search", name, got, err)
			}
		}
		_, err := s.Tools.FindToolByName(ctx, "gitlab")
		wantErr(t, "FindToolByName(gitlab)", err, models.ErrNotFound)
		_, err = s.Tools.FindToolByName(ctx, "gitlab_%")
		wantErr(t, "FindToolByName(gitlab_%)", err, models.ErrNotFound)

		aliasTaken := newTool("semantic_search")
		aliasTaken.Aliases = models.StringList{"gitlab_search"}
		nameIsAlias := newTool("gitlab_search")
		aliasIsName := newTool("find")
		aliasIsName.Aliases = models.StringList{"get_issue"}
		selfAlias := newTool("x")
		selfAlias.Aliases = models.StringList{"x"}
		noSchema := newTool("y")
		noSchema.InputSchema = nil
		badJSON := newTool("z")
		badJSON.InputSchema = models.JSON(`{"type":`)
		badEdition := newTool("w")
		badEdition.Edition = "premium"
		noToolset := newTool("v")
		noToolset.Toolset = ""

		tests := []struct {
			name string
			tool *models.Tool
			want error
		}{
			{"alias used by another tool", aliasTaken, models.ErrConflict},
			{"name used as another tool's alias", nameIsAlias, models.ErrConflict},
			{"alias equal to another tool's name", aliasIsName, models.ErrConflict},
			{"alias equal to own name", selfAlias, models.ErrInvalidInput},
			{"no input schema", noSchema, models.ErrInvalidInput},
			{"invalid JSON", badJSON, models.ErrInvalidInput},
			{"unknown edition", badEdition, models.ErrInvalidInput},
			{"no toolset", noToolset, models.ErrInvalidInput},
		}
		for _, tt := range tests {
			wantErr(t, "UpsertTool("+tt.name+")", s.Tools.UpsertTool(ctx, tt.tool), tt.want)
		}
		wantCatalogVersion(t, s, "after refused upserts", 2)

		tools, err := s.Tools.ListTools(ctx)
		if err != nil || len(tools) != 2 || tools[0].Name != "get_issue" || tools[1].Name != "search" {
			t.Errorf("ListTools() = %+v, %v; want get_issue, search (by name)", tools, err)
		}
	})
}

func TestStore_UpsertTool_outputSchemaAndEE(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		tool := newTool("semantic_code_search")
		tool.Edition = models.EditionEE
		tool.OutputSchema = models.JSON(`{"type":"object"}`)
		tool.Annotations = nil
		wantErr(t, "UpsertTool", s.Tools.UpsertTool(ctx, tool), nil)
		got, err := s.Tools.FindToolByName(ctx, "semantic_code_search")
		if err != nil {
			t.Fatal(err)
		}
		if got.Edition != models.EditionEE || string(got.OutputSchema) != `{"type": "object"}` && string(got.OutputSchema) != `{"type":"object"}` {
			t.Errorf("stored edition %q, output schema %s", got.Edition, got.OutputSchema)
		}
		if string(got.Annotations) != "{}" {
			t.Errorf("annotations = %s, want {} (default)", got.Annotations)
		}
		// Dropping the output schema is a change.
		tool.OutputSchema = nil
		wantErr(t, "UpsertTool(no output schema)", s.Tools.UpsertTool(ctx, tool), nil)
		wantCatalogVersion(t, s, "after dropping the output schema", 2)
		if got, _ := s.Tools.FindToolByName(ctx, "semantic_code_search"); got.OutputSchema != nil {
			t.Errorf("output schema = %s, want NULL", got.OutputSchema)
		}
	})
}

func TestStore_CreateTools(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		wantErr(t, "UpsertTool(get_issue)", s.Tools.UpsertTool(ctx, newTool("get_issue")), nil)
		wantCatalogVersion(t, s, "after one upsert", 1)

		var bulk []models.Tool
		for _, name := range []string{"a_tool", "b_tool", "c_tool"} {
			bulk = append(bulk, *newTool(name))
		}
		bulk[2].Aliases = models.StringList{"c_alias"}
		wantErr(t, "CreateTools", s.Tools.CreateTools(ctx, bulk), nil)
		wantCatalogVersion(t, s, "after one bulk create", 2)
		for _, tool := range bulk {
			if tool.ID == 0 || tool.CreatedAt.IsZero() {
				t.Errorf("CreateTools left %s with ID %d, created_at %v", tool.Name, tool.ID, tool.CreatedAt)
			}
		}
		if all, err := s.Tools.ListTools(ctx); err != nil || len(all) != 4 {
			t.Fatalf("ListTools() = %d tools, %v; want 4", len(all), err)
		}

		// A collision with a stored name, with a stored alias, or within the
		// list writes nothing at all.
		for name, list := range map[string][]models.Tool{
			"stored name":  {*newTool("d_tool"), *newTool("get_issue")},
			"stored alias": {*newTool("c_alias")},
			"within list":  {*newTool("e_tool"), *newTool("e_tool")},
		} {
			wantErr(t, "CreateTools("+name+")", s.Tools.CreateTools(ctx, list), models.ErrConflict)
		}
		invalid := []models.Tool{*newTool("f_tool"), {Name: "no_schema", Toolset: models.ToolsetCore}}
		wantErr(t, "CreateTools(invalid)", s.Tools.CreateTools(ctx, invalid), models.ErrInvalidInput)
		if all, err := s.Tools.ListTools(ctx); err != nil || len(all) != 4 {
			t.Fatalf("after refused bulk creates: ListTools() = %d tools, %v; want 4", len(all), err)
		}
		wantCatalogVersion(t, s, "after refused bulk creates", 2)
	})
}

// Ensure UnchangedTools names exactly the definitions an UpsertTool would
// leave as stored (so a sync may skip them): same definition by value, an
// operator's description kept; never a new, changed or invalid one, and it
// writes nothing.
func TestStore_UnchangedTools(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		search := newTool("search")
		search.Aliases = models.StringList{"gitlab_search"}
		wantErr(t, "UpsertTool(search)", s.Tools.UpsertTool(ctx, search), nil)
		wantErr(t, "UpsertTool(get_issue)", s.Tools.UpsertTool(ctx, newTool("get_issue")), nil)
		wantErr(t, "UpsertTool(list_issues)", s.Tools.UpsertTool(ctx, newTool("list_issues")), nil)
		wantErr(t, "UpdateToolDescription", s.Tools.UpdateToolDescription(ctx, "list_issues", "The operator's words."), nil)
		wantCatalogVersion(t, s, "setup", 4)

		same := newTool("search") // keys in another order: the same by value
		same.Aliases = models.StringList{"gitlab_search"}
		same.InputSchema = models.JSON(`{"required":["id","issue_iid"], "type":"object","properties":{"issue_iid":{"type":"integer"},"id":{"type":"string"}}}`)
		changed := newTool("get_issue")
		changed.Description = "Get a single issue, with its labels."
		customized := newTool("list_issues") // the code's words; the operator's stay
		invalid := newTool("get_issue")
		invalid.Toolset = ""
		stolen := newTool("get_issue") // an alias that is another tool's name
		stolen.Aliases = models.StringList{"search"}
		defs := []*models.Tool{same, changed, customized, invalid, stolen, newTool("brand_new")}
		got, err := s.Tools.UnchangedTools(ctx, defs)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{"search": true, "list_issues": true}
		if len(got) != len(want) || !got["search"] || !got["list_issues"] {
			t.Errorf("UnchangedTools = %v, want %v", got, want)
		}
		if invalid.Toolset != "" || customized.Description != "Get a single issue." || same.ID != 0 {
			t.Errorf("UnchangedTools modified its arguments: %+v %+v %+v", invalid, customized, same)
		}
		wantCatalogVersion(t, s, "after UnchangedTools", 4)
		// What it named, UpsertTool indeed leaves alone.
		wantErr(t, "UpsertTool(same)", s.Tools.UpsertTool(ctx, same), nil)
		wantErr(t, "UpsertTool(customized)", s.Tools.UpsertTool(ctx, customized), nil)
		wantCatalogVersion(t, s, "after upserting the unchanged", 4)
	})
}
