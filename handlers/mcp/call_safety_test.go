package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/services/tools"
)

// TestSanitizeResult: the text and the structured content are cleaned
// alike, the tool's own result is left untouched, and the counts go to
// _meta; a clean result is returned as it is, without _meta.
func TestSanitizeResult(t *testing.T) {
	doc := `{"title":"Fix\u200b it","body":"ok <!-- steer the agent -->"}`
	in := &tools.Result{Text: doc, Structured: tools.CompactJSON(doc)}
	out, meta := sanitizeResult("get_work_item", in)
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
	if out, meta := sanitizeResult("get_work_item", clean); out != clean || meta != nil {
		t.Errorf("clean result: %v %v", out, meta)
	}

	// A plain-text result of a code tool is flagged, not changed.
	code := &tools.Result{Text: "x\u202e"}
	out, meta = sanitizeResult("get_repository_file", code)
	b, _ = json.Marshal(meta)
	if out.Text != "x\u202e" || string(b) != `{"com.gitlab/hiddenCharactersInCode":{"tagCharacters":0,"zeroWidthCharacters":0,"bidiControls":1}}` {
		t.Errorf("code: %q %s", out.Text, b)
	}
}

func TestWithMeta(t *testing.T) {
	base := json.RawMessage(`{"io.modelcontextprotocol/serverInfo":{"name":"x"}}`)
	got := withMeta(base, map[string]any{"com.gitlab/sanitized": 1})
	if want := `{"io.modelcontextprotocol/serverInfo":{"name":"x"},"com.gitlab/sanitized":1}`; string(got) != want {
		t.Errorf("withMeta = %s, want %s", got, want)
	}
	if got := withMeta(nil, map[string]any{"k": 1}); string(got) != `{"k":1}` {
		t.Errorf("withMeta(nil) = %s", got)
	}
	if got := withMeta(base, nil); string(got) != string(base) {
		t.Errorf("withMeta(base, nil) = %s", got)
	}
}

// BenchmarkSanitizeResult: the sanitiser's cost on a clean get_issue-sized
// result (the common case) and on one with hidden text.
func BenchmarkSanitizeResult(b *testing.B) {
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
				sanitizeResult("get_issue", in)
			}
		})
	}
}

// BenchmarkAuditArguments: what the audit hook reads of a call's
// arguments.
func BenchmarkAuditArguments(b *testing.B) {
	args := json.RawMessage(`{"project_id":"gitlab-org/gitlab-mcp","work_item_iid":1,"body":"` + strings.Repeat("text ", 200) + `"}`)
	for b.Loop() {
		auditArguments(args)
	}
}
