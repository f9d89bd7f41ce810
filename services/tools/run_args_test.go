package tools

import (
	"bytes"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Ensure that the text checks name the first argument, in name order, at
// any depth, and that valid text passes.
func TestArgumentText(t *testing.T) {
	for _, tc := range []struct {
		args, want string
	}{
		{`{"a":"x","b":[1,{"c":"y"}]}`, ""},
		{`{"b":"x\u0000","a":"ok"}`, `/b: must not contain NUL characters (\u0000)`},
		{`{"a":{"c":["ok","\u0000"]}}`, `/a/c/1: must not contain NUL characters (\u0000)`},
		{`{"z/~":"\u0000"}`, `/z~1~0: must not contain NUL characters (\u0000)`},
		{`{"a\u0000":"x"}`, `argument names must not contain NUL characters (\u0000)`},
		{`[1]`, ""},
	} {
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(tc.args)))
		if err != nil {
			t.Fatal(err)
		}
		if got := nulIn(inst); got != tc.want {
			t.Errorf("nulIn(%s) = %q, want %q", tc.args, got, tc.want)
		}
	}
	for _, tc := range []struct {
		args, want string
	}{
		{"{\"b\":\"ok\",\"a\":\"\xff\"}", "/a: is not valid UTF-8 text"},
		{"{\"\xff\":\"x\"}", "argument names must be valid UTF-8 text"},
	} {
		if got := invalidUTF8([]byte(tc.args)); got != tc.want {
			t.Errorf("invalidUTF8(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}
