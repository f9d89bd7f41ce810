package sanitize

import (
	"encoding/json"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/services/tools"
)

// TestResult: the text and the structured content are cleaned
// alike, the tool's own result is left untouched, and the counts go to
// _meta; a clean result is returned as it is, without _meta.
func TestResult(t *testing.T) {
	doc := `{"title":"Fix\u200b it","body":"ok <!-- steer the agent -->"}`
	in := &tools.Result{Text: doc, Structured: tools.CompactJSON(doc)}
	out, meta := Result("get_work_item", in)
	want := `{"title":"Fix it","body":"ok "}`
	if string(out.Structured.(tools.CompactJSON)) != want || out.Text != want {
		t.Errorf("result = %q / %s, want %s in both", out.Text, out.Structured, want)
	}
	if in.Text != doc || string(in.Structured.(tools.CompactJSON)) != doc {
		t.Errorf("the tool's result was modified: %q", in.Text)
	}
	b, _ := json.Marshal(meta)
	if string(b) != `{"com.gitlab/sanitized":{"tagCharacters":0,"zeroWidthCharacters":1,"bidiControls":0,"htmlComments":1}}` {
		t.Errorf("meta = %s", b)
	}

	clean := &tools.Result{Text: `{"a":"b"}`, Structured: tools.CompactJSON(`{"a":"b"}`)}
	if out, meta := Result("get_work_item", clean); out != clean || meta != nil {
		t.Errorf("clean result: %v %v", out, meta)
	}

	// A plain-text result of a code tool is flagged, not changed.
	code := &tools.Result{Text: "x\u202e"}
	out, meta = Result("get_repository_file", code)
	b, _ = json.Marshal(meta)
	if out.Text != "x\u202e" || string(b) != `{"com.gitlab/hiddenCharactersInCode":{"tagCharacters":0,"zeroWidthCharacters":0,"bidiControls":1}}` {
		t.Errorf("code: %q %s", out.Text, b)
	}
}

// BenchmarkResult: the sanitiser's cost on a clean get_issue-sized
// result (the common case) and on one with hidden text.
func BenchmarkResult(b *testing.B) {
	clean := `{"id":2,"iid":2,"title":"Tools reorder between list calls","description":"` +
		strings.Repeat("Steps: call tools/list twice — the order differs; expected “stable” order. ", 40) + `","labels":["bug","mcp"]}`
	for _, tc := range []struct{ name, doc string }{
		{"clean", clean},
		{"hidden", strings.Replace(clean, "Steps", "Steps\u200b<!-- x -->", 3)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			in := &tools.Result{Text: tc.doc, Structured: tools.CompactJSON(tc.doc)}
			b.SetBytes(int64(len(tc.doc)))
			for b.Loop() {
				Result("get_issue", in)
			}
		})
	}
}
