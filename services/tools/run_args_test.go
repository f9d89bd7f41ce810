package tools

import (
	"bytes"
	"reflect"
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
		p := parseArgs([]byte(tc.args))
		if p.err != nil {
			t.Fatal(p.err)
		}
		if got := nulIn(p.value); got != tc.want {
			t.Errorf("nulIn(%s) = %q, want %q", tc.args, got, tc.want)
		}
	}
	for _, tc := range []struct {
		args, want string
	}{
		{"{\"b\":\"ok\",\"a\":\"\xff\"}", "/a: is not valid UTF-8 text"},
		{"{\"\xff\":\"x\"}", "argument names must be valid UTF-8 text"},
	} {
		if got := invalidUTF8(parseArgs([]byte(tc.args)).texts()); got != tc.want {
			t.Errorf("invalidUTF8(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

// Ensure that the one parse of the arguments reads what the schema
// validator's own reader reads, keeps each top-level member's text as
// sent, and refuses what is not one JSON value.
func TestParseArgs(t *testing.T) {
	for _, raw := range []string{
		`{}`, ` { "a" : "x" , "b":[1, 2.50,{"c":null}], "n":-0.1e3 } `, `{"a":1,"a":2}`, `[1,"x"]`, `"s"`, `12`,
	} {
		want, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(raw)))
		if err != nil {
			t.Fatal(err)
		}
		p := parseArgs([]byte(raw))
		if p.err != nil || !reflect.DeepEqual(p.value, want) {
			t.Errorf("parseArgs(%s) = %#v, %v; want %#v", raw, p.value, p.err, want)
		}
	}
	p := parseArgs([]byte(` { "a" : "x" , "b":[1, 2.50,{"c":null}]}`))
	want := map[string]string{"a": `"x"`, "b": `[1, 2.50,{"c":null}]`}
	texts := p.texts()
	if len(texts) != len(want) {
		t.Errorf("member texts %q, want %q", texts, want)
	}
	for k, v := range want {
		if string(texts[k]) != v {
			t.Errorf("member %s = %q, want %q", k, texts[k], v)
		}
	}
	for _, raw := range []string{``, `{`, `{"a":1,}`, `{"a" 1}`, `{"a":1} {}`, `{"a":1}x`, `{1:2}`, `[1] 2`} {
		if p := parseArgs([]byte(raw)); p.err == nil || p.value != nil || p.texts() != nil {
			t.Errorf("parseArgs(%q) = %#v, %q, %v; want an error only", raw, p.value, p.texts(), p.err)
		}
	}
}
