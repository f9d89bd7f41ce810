package catalog

import (
	"encoding/json"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

func TestReadOnly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, doc string
		want      bool
	}{
		{desc: "true", doc: `{"readOnlyHint":true}`, want: true},
		{desc: "true among others", doc: annotRO, want: true},
		{desc: "true with whitespace", doc: " {\n\t\"title\" : \"x\" ,\r\n \"readOnlyHint\" :\ttrue\n} ", want: true},
		{desc: "true after nested values", doc: `{"a":{"readOnlyHint":false,"b":[1,"}",{"c":null}]},"s":"a\"b\\","readOnlyHint":true}`, want: true},
		{desc: "escaped key", doc: `{"readOnly\u0048int":true}`, want: true},
		{desc: "last duplicate wins (true)", doc: `{"readOnlyHint":false,"readOnlyHint":true}`, want: true},
		{desc: "last duplicate wins (false)", doc: `{"readOnlyHint":true,"readOnlyHint":false}`},
		{desc: "false", doc: annotRW},
		{desc: "missing", doc: `{"title":"x"}`},
		{desc: "empty object", doc: `{}`},
		{desc: "empty document"},
		{desc: "null", doc: `null`},
		{desc: "string true", doc: `{"readOnlyHint":"true"}`},
		{desc: "number", doc: `{"readOnlyHint":1}`},
		{desc: "other case key", doc: `{"readonlyhint":true}`},
		{desc: "only nested", doc: `{"meta":{"readOnlyHint":true}}`},
		{desc: "in a string value", doc: `{"title":"\"readOnlyHint\":true"}`},
		{desc: "array", doc: `[{"readOnlyHint":true}]`},
		{desc: "trailing garbage", doc: `{"readOnlyHint":true} x`},
		{desc: "truncated", doc: `{"readOnlyHint":true`},
		{desc: "trailing comma", doc: `{"readOnlyHint":true,}`},
		{desc: "bad literal", doc: `{"readOnlyHint":truex}`},
		{desc: "malformed elsewhere", doc: `{"a":[1,,2],"readOnlyHint":true}`},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			tl := &models.Tool{Annotations: models.JSON(tc.doc)}
			if got := ReadOnly(tl); got != tc.want {
				t.Errorf("ReadOnly(%s) = %v, want %v", tc.doc, got, tc.want)
			}
		})
	}
	if ReadOnly(nil) {
		t.Error("ReadOnly(nil) = true")
	}
}

// FuzzReadOnlyHint checks the allocation-free scanner against encoding/json:
// on valid JSON they agree; on invalid JSON the scanner says false.
func FuzzReadOnlyHint(f *testing.F) {
	for _, seed := range []string{
		annotRO, annotRW, `{}`, `null`, `{"readOnlyHint":true,"readOnlyHint":false}`,
		`{"a":{"readOnlyHint":true}}`, `{"readOnly\u0048int":true}`, `{"a":"\\","readOnlyHint":true}`,
		`{"readOnlyHint":true`, `[true]`, `{"a":[{"b":"]"}],"readOnlyHint":true}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		got := readOnlyHint(doc)
		if !json.Valid(doc) {
			if got {
				t.Fatalf("readOnlyHint(%q) = true on invalid JSON", doc)
			}
			return
		}
		var m map[string]any
		want := json.Unmarshal(doc, &m) == nil && m["readOnlyHint"] == true
		if got != want {
			t.Fatalf("readOnlyHint(%q) = %v, encoding/json says %v", doc, got, want)
		}
	})
}
