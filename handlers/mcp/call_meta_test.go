package mcp

import (
	"encoding/json"
	"testing"
)

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
