package conformance_test

import (
	"encoding/json"
	"testing"

	"gitlab.com/glmcp/glmcp/services/resources/conformance"
)

// Ensure the fixture reads answer exactly the suite's URIs: the static
// resources and the template with one non-empty path segment as its id.
func TestContent_read(t *testing.T) {
	read := conformance.Content().Read
	for _, tt := range []struct {
		uri, mime, text string
		blob            int // bytes of a blob; 0: text
	}{
		{"test://static-text", "text/plain", "This is the content of the static text resource.", 0},
		{"test://static-binary", "image/png", "", 70},
		{"test://watched-resource", "text/plain", "Watched resource content.", 0},
		{"test://template/42/data", "application/json", `{"data":"Data for ID: 42","id":"42","templateTest":"true"}`, 0},
	} {
		c, ok := read(tt.uri)
		if !ok || len(c) != 1 {
			t.Errorf("read %s = %+v, %v", tt.uri, c, ok)
			continue
		}
		if c[0].URI != tt.uri || c[0].MimeType != tt.mime || c[0].Text != tt.text || c[0].IsBlob != (tt.blob > 0) || len(c[0].Blob) != tt.blob {
			t.Errorf("read %s = %+v (blob %d bytes)", tt.uri, c[0], len(c[0].Blob))
		}
		if c[0].MimeType == "application/json" && !json.Valid([]byte(c[0].Text)) {
			t.Errorf("read %s: not JSON: %s", tt.uri, c[0].Text)
		}
	}
	for _, uri := range []string{"test://template//data", "test://template/a/b/data", "test://template/42", "test://static-text/", "https://gitlab.example.com/a/b"} {
		if c, ok := read(uri); ok {
			t.Errorf("read %s = %+v, want not a fixture", uri, c)
		}
	}
}

// Ensure the completion answers test_prompt_with_arguments only, by prefix.
func TestContent_complete(t *testing.T) {
	complete := conformance.Content().Complete
	c, ok := complete("test_prompt_with_arguments", "arg1", "par")
	if !ok || len(c.Values) != 3 || c.Values[0] != "paris" || c.Values[2] != "party" || c.Total != 3 {
		t.Errorf("complete par = %+v, %v", c, ok)
	}
	if c, ok := complete("test_prompt_with_arguments", "arg1", "zzz"); !ok || len(c.Values) != 0 || c.Values == nil {
		t.Errorf("complete zzz = %+v, %v; want an empty list", c, ok)
	}
	if _, ok := complete("test_simple_prompt", "arg1", ""); ok {
		t.Error("completed test_simple_prompt, which has no arguments")
	}
}
