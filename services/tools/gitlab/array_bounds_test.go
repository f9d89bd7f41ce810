package gitlab_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"gitlab.com/glmcp/glmcp/services/tools/gitlab"
)

// maxArrayItems is the largest maxItems any array argument may have: a
// query built from one stays far below PostgreSQL's 65,535 parameters of
// a statement, and a list that long is no request a client means to send.
const maxArrayItems = 1000

// TestCatalog_everyArrayBounded walks every tool's input schema (nested
// objects, items, anyOf/oneOf included) and checks that each array has a
// maxItems within maxArrayItems (issue #21, item 5).
func TestCatalog_everyArrayBounded(t *testing.T) {
	var arrays int
	for _, d := range gitlab.Tools(gitlab.Deps{}) {
		var schema map[string]any
		if err := json.Unmarshal(d.InputSchema, &schema); err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		walkSchema(d.Name, schema, func(at string, s map[string]any) {
			if !schemaAllowsArray(s) {
				return
			}
			arrays++
			n, ok := s["maxItems"].(float64)
			switch {
			case !ok:
				t.Errorf("%s: the array has no maxItems", at)
			case n < 1 || n > maxArrayItems:
				t.Errorf("%s: maxItems %v, want 1…%d", at, n, maxArrayItems)
			}
		})
	}
	if arrays < 20 {
		t.Fatalf("found %d arrays in the catalog: the walk misses them", arrays)
	}
}

// schemaAllowsArray reports whether the schema's type is, or includes,
// "array".
func schemaAllowsArray(s map[string]any) bool {
	switch ty := s["type"].(type) {
	case string:
		return ty == "array"
	case []any:
		return slices.Contains(ty, any("array"))
	}
	return false
}

// walkSchema calls fn for s and every subschema, named by its path.
func walkSchema(at string, s map[string]any, fn func(string, map[string]any)) {
	fn(at, s)
	if props, ok := s["properties"].(map[string]any); ok {
		for name, p := range props {
			if ps, ok := p.(map[string]any); ok {
				walkSchema(at+"/"+name, ps, fn)
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		walkSchema(at+"[]", items, fn)
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		list, _ := s[k].([]any)
		for i, sub := range list {
			if ss, ok := sub.(map[string]any); ok {
				walkSchema(fmt.Sprintf("%s(%s %d)", at, k, i), ss, fn)
			}
		}
	}
}
