package spec

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// Every array argument is bounded (issue #21, item 5): list_work_items
// with 65,535 types answered 500, the query past PostgreSQL's 65,535
// parameters. Every array of every tool's schema (EE catalog, as listed)
// has a maxItems; maxItems+1 items and 65,535 items are refused as
// validation errors (tool results, never an HTTP error), nothing written.

// relArraySchema returns the array schema p admits (p itself, or its
// array alternative of anyOf/oneOf), or nil.
func relArraySchema(p map[string]any) map[string]any {
	switch v := p["type"].(type) {
	case string:
		if v == "array" {
			return p
		}
	case []any:
		if slices.Contains(v, any("array")) {
			return p
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		alts, _ := p[k].([]any)
		for _, a := range alts {
			if s := relArraySchema(asMap(a)); s != nil {
				return s
			}
		}
	}
	return nil
}

// relArrayItem is one item the array's items schema accepts, as JSON (an
// object item only approximately: {} with its required members missing).
func relArrayItem(items map[string]any) string {
	if enum, ok := items["enum"].([]any); ok && len(enum) > 0 {
		return strconvQuote(fmt.Sprint(enum[0]))
	}
	switch {
	case relTakes(items, "integer"), relTakes(items, "number"):
		return "1"
	case relTakes(items, "string"):
		return `"a"`
	}
	return "{}"
}

func TestReliability_arraysBoundedBySchema(t *testing.T) {
	// A body limit that lets 65,535 items reach the schema check.
	h := startServer(t, withEE(), withMaxBodyBytes(8<<20))
	before := toolsState(t, h)
	baseline := map[string]any{
		"id": "gitlab-org/gitlab-mcp", "project_id": "gitlab-org/gitlab-mcp", "full_path": "gitlab-org/gitlab-mcp",
		"project_full_path": "gitlab-org/gitlab-mcp", "title": "t", "body": "b", "search": "x", "semantic_query": "x",
		"scope": "issues", "is_project": true, "source_branch": "feature/server-discover", "target_branch": "main",
		"issue_iid": 1, "merge_request_iid": 1, "work_item_iid": 1, "method": "create_draft_note",
	}
	checked := 0
	for _, tool := range h.relTools(t, h.EE) {
		for _, arg := range slices.Sorted(maps.Keys(tool.InputSchema.Properties)) {
			arr := relArraySchema(tool.InputSchema.Properties[arg])
			if arr == nil {
				continue
			}
			maxItems, ok := arr["maxItems"].(float64)
			if !ok {
				t.Errorf("%s %s: the array has no maxItems", tool.Name, arg)
				maxItems = 1000
			}
			item := relArrayItem(asMap(arr["items"]))
			for _, n := range []int{int(maxItems) + 1, 65_535} {
				raw := "[" + strings.TrimSuffix(strings.Repeat(item+",", n), ",") + "]"
				r := h.relCallRaw(t, h.EE, "root", tool.Name, relArgs(t, tool, baseline, arg, raw))
				what := fmt.Sprintf("%s %s with %d items", tool.Name, arg, n)
				relExpectClean(t, what, r)
				res := toolsResult(t, h.groups()[1], "legacy", r)
				text := toolsText(t, res)
				if res["isError"] != true || !strings.HasPrefix(text, "Validation error: ") || !strings.Contains(text, "/"+arg) {
					t.Errorf("%s: %q, want a validation error naming /%s", what, text, arg)
				}
				checked++
			}
		}
	}
	if checked < 40 {
		t.Errorf("only %d oversized arrays sent: the catalog walk misses arrays", checked)
	}
	toolsExpectState(t, h, before)
}
