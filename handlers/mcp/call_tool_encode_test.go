package mcp

import (
	"bytes"
	"encoding/json"
	"testing"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// Ensure a tools/call result writes itself byte for byte as encoding/json
// writes it, on the direct path (text blocks, structured content a tool
// encoded) and on the others.
func TestCallToolResult_AppendJSON(t *testing.T) {
	doc := map[string]any{"title": "a <b> & \"c\"\n\u2028", "n": 1, "labels": []string{"x"}}
	compact, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := encodeMeta(map[string]any{MetaServerInfo: map[string]any{"name": "GitLab <MCP>", "version": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	modern := resultFields{ResultType: "complete", Meta: meta}
	var _ jsonrpc.Appender = callToolResult{}
	for name, r := range map[string]callToolResult{
		"legacy text and compact JSON": {Content: renderContent(&tools.Result{Text: string(compact)}), StructuredContent: tools.CompactJSON(compact)},
		"modern text and compact JSON": {resultFields: modern, Content: renderContent(&tools.Result{Text: string(compact)}), StructuredContent: tools.CompactJSON(compact)},
		"modern error":                 {resultFields: modern, Content: renderContent(&tools.Result{Text: "bad \xff\x01"}), IsError: true},
		"no content":                   {Content: []any{}},
		"nil content":                  {},
		"two text blocks":              {Content: renderContent(&tools.Result{Content: []tools.Content{{Type: tools.ContentText, Text: "a"}, {Type: tools.ContentText, Text: "b\t"}}})},
		"raw structured":               {resultFields: modern, Content: renderContent(&tools.Result{Text: "x"}), StructuredContent: json.RawMessage(` { "a" : 1 } `)},
		"map structured":               {Content: renderContent(&tools.Result{Text: "x"}), StructuredContent: doc},
		"image":                        {Content: renderContent(&tools.Result{Content: []tools.Content{{Type: tools.ContentImage, Data: "AAAA", MIMEType: "image/png"}}})},
	} {
		got, err := r.AppendJSON([]byte("x"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(callToolResultJSON(r)); err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if !bytes.Equal(got, append([]byte("x"), want...)) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
}
