package jsonrpc

import (
	"bytes"
	"encoding/json"
	"testing"
)

// encodingJSON is s as encoding/json writes it without HTML escaping.
func encodingJSON(t testing.TB, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// Ensure AppendString writes every string as encoding/json does.
func TestAppendString(t *testing.T) {
	cases := []string{"", "plain", `quote " and \ backslash`, "<html> & co", "tab\tnew\nline\r\b\f\x00\x01\x1f\x7f",
		"é ü 日本 🚀", "line\u2028para\u2029", "bad \xff utf-8 \xc3", "\xe2\x80", "{\"a\":[1,2]}"}
	for c := 0; c < 0x100; c++ {
		cases = append(cases, string([]byte{byte(c)}), "x"+string([]byte{byte(c)})+"y")
	}
	for _, s := range cases {
		if got, want := AppendString([]byte("pre"), s), append([]byte("pre"), encodingJSON(t, s)...); !bytes.Equal(got, want) {
			t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("a\u2028\xff\"\\\x00")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := AppendString(nil, s), encodingJSON(t, s); !bytes.Equal(got, want) {
			t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
		}
	})
}
