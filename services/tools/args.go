package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// check returns the IsError result refusing args, or nil when e can run
// with them: its text is valid (no invalid UTF-8, no NUL) and it meets e's
// input schema. Both checks read the call's one parse (parsedArgs).
func (e *Entry) check(args *parsedArgs) *Result {
	if e.Def == nil || e.Def.Run == nil {
		return &Result{Text: fmt.Sprintf("Tool %q is not available on this server", e.Tool.Name), IsError: true, ErrorClass: "not_implemented"}
	}
	if msg := e.checkArgs(args); msg != "" {
		return &Result{Text: "Validation error: " + msg, IsError: true, ErrorClass: "validation"}
	}
	return nil
}

// checkArgs returns "" when args are valid text and satisfy e's schema,
// else a message naming the first failing location. Every tool gets the
// text check before its schema: no text a database or a git command
// cannot hold gets further (PostgreSQL refuses NUL and invalid UTF-8 with
// its own error text).
func (e *Entry) checkArgs(args *parsedArgs) string {
	if !utf8.Valid(args.raw) {
		// encoding/json replaces invalid UTF-8 with U+FFFD when decoding:
		// name the argument from the raw bytes (the rare path).
		return invalidUTF8(args.texts())
	}
	if args.err != nil {
		return "arguments are not valid JSON"
	}
	if msg := nulIn(args.value); msg != "" {
		return msg
	}
	return e.validate(args.value)
}

// parsedArgs is a call's arguments parsed once, for every generic link
// that reads them (the Mcp-Param header check, the text and schema
// checks, the tool rules' places): each used to parse them again. The
// tool's own struct is decoded once more, from the same bytes, by Args,
// and kept here too so a Target's resolver and the handler share it.
type parsedArgs struct {
	raw json.RawMessage
	// value is the arguments as the schema validator reads them (objects
	// map[string]any, numbers json.Number); nil when err is set.
	value any
	// err is why raw is not one JSON value.
	err error

	// members is each top-level member's text as sent, found on first
	// use (see texts).
	members     map[string]json.RawMessage
	membersDone bool

	// typed is the value Args decoded last (with typedErr), nil before.
	typed    any
	typedErr error
}

// errTrailing is the parse error of arguments with text after the value.
var errTrailing = errors.New("invalid character after top-level value")

// parseArgs parses raw once.
func parseArgs(raw json.RawMessage) *parsedArgs {
	p := &parsedArgs{raw: raw}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if p.err = d.Decode(&p.value); p.err == nil {
		p.err = atEOF(d)
	}
	if p.err != nil {
		p.value = nil
	}
	return p
}

// texts returns each top-level member's text as the client sent it (nil
// when the arguments are not a valid object): for the two texts that show
// an argument as written, the approval question and the name of an
// argument that is not valid UTF-8, both off the common path. It walks
// the bytes once, on first use, recording where each member's value
// starts and ends.
func (p *parsedArgs) texts() map[string]json.RawMessage {
	if !p.membersDone {
		p.members, p.membersDone = memberTexts(p.raw), true
	}
	return p.members
}

func memberTexts(raw json.RawMessage) map[string]json.RawMessage {
	d := json.NewDecoder(bytes.NewReader(raw))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	members := map[string]json.RawMessage{}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil
		}
		name, _ := tok.(string)
		start := d.InputOffset()
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil
		}
		members[name] = bytes.TrimLeft(raw[start:d.InputOffset()], " \t\r\n:")
	}
	if _, err := d.Token(); err != nil || atEOF(d) != nil { // }
		return nil
	}
	return members
}

// atEOF refuses text after the value d decoded.
func atEOF(d *json.Decoder) error {
	if _, err := d.Token(); err != io.EOF {
		return errTrailing
	}
	return nil
}

// object returns the arguments' members (nil when they are not an object).
func (p *parsedArgs) object() map[string]any {
	m, _ := p.value.(map[string]any)
	return m
}

// invalidUTF8 names the first argument (in name order) whose raw text
// (members) is not valid UTF-8, or says the names are not; the arguments
// are not valid UTF-8.
func invalidUTF8(members map[string]json.RawMessage) string {
	for _, name := range slices.Sorted(maps.Keys(members)) {
		if !utf8.Valid(members[name]) {
			return fmt.Sprintf("/%s: is not valid UTF-8 text", pointerToken(name))
		}
	}
	return "argument names must be valid UTF-8 text"
}

// nulIn names the first argument (in name order) holding a NUL character
// at any depth, or says a name holds one; "" when none does. inst is the
// decoded arguments (not an object: the schema says so).
func nulIn(inst any) string {
	top, ok := inst.(map[string]any)
	if !ok {
		return ""
	}
	names := slices.Sorted(maps.Keys(top))
	for _, name := range names {
		if !hasNUL(top[name]) { // the usual case: no pointer is built
			continue
		}
		if at, ok := findNUL(top[name], "/"+pointerToken(name)); ok {
			return at + ": must not contain NUL characters (\\u0000)"
		}
	}
	for _, name := range names {
		if strings.ContainsRune(name, 0) {
			return "argument names must not contain NUL characters (\\u0000)"
		}
	}
	return ""
}

// hasNUL reports whether a string under v, or a name of an object under
// v, holds a NUL character.
func hasNUL(v any) bool {
	switch t := v.(type) {
	case string:
		return strings.IndexByte(t, 0) >= 0
	case []any:
		return slices.ContainsFunc(t, hasNUL)
	case map[string]any:
		for k, item := range t {
			if strings.IndexByte(k, 0) >= 0 || hasNUL(item) {
				return true
			}
		}
	}
	return false
}

// findNUL returns the JSON pointer of the first string under v (at path)
// holding a NUL character.
func findNUL(v any, path string) (string, bool) {
	switch t := v.(type) {
	case string:
		return path, strings.ContainsRune(t, 0)
	case []any:
		for i, item := range t {
			if at, ok := findNUL(item, fmt.Sprintf("%s/%d", path, i)); ok {
				return at, true
			}
		}
	case map[string]any:
		for k, item := range t {
			if strings.ContainsRune(k, 0) {
				return path, true
			}
			if at, ok := findNUL(item, path+"/"+pointerToken(k)); ok {
				return at, true
			}
		}
	}
	return "", false
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// pointerToken escapes a name for a JSON pointer (RFC 6901) and drops
// control characters, so a message never carries them.
func pointerToken(name string) string {
	name = pointerEscaper.Replace(name)
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == utf8.RuneError {
			return -1
		}
		return r
	}, strings.ToValidUTF8(name, ""))
}

// validate returns "" when the decoded arguments satisfy the schema, else
// a message naming the failing locations.
func (e *Entry) validate(inst any) string {
	schema, err := e.schema.get()
	if err != nil {
		return "the tool's input schema is invalid"
	}
	if err := schema.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return flatten(ve)
		}
		return err.Error()
	}
	return ""
}

// lazySchema is a tool input schema compiled on first use. Snapshot
// entries of an unchanged row share one, so the compilation is
// synchronized even while an older snapshot is still validating calls.
type lazySchema struct {
	name string
	raw  json.RawMessage

	once   sync.Once
	schema *jsonschema.Schema
	err    error
}

func (l *lazySchema) get() (*jsonschema.Schema, error) {
	l.once.Do(func() { l.schema, l.err = compileSchema(l.name, l.raw) })
	return l.schema, l.err
}

// schemaPrinter renders validation messages; some kinds (required, …)
// dereference the printer, so it must not be nil.
var schemaPrinter = message.NewPrinter(language.English)

// flatten renders the leaf causes as "at '/path': message; …".
func flatten(ve *jsonschema.ValidationError) string {
	var parts []string
	var walk func(v *jsonschema.ValidationError)
	walk = func(v *jsonschema.ValidationError) {
		if len(v.Causes) == 0 {
			loc := "/" + strings.Join(v.InstanceLocation, "/")
			msg := v.ErrorKind.LocalizedString(schemaPrinter)
			if loc == "/" {
				parts = append(parts, msg)
			} else {
				parts = append(parts, fmt.Sprintf("%s: %s", loc, msg))
			}
			return
		}
		for _, c := range v.Causes {
			walk(c)
		}
	}
	walk(ve)
	if len(parts) > 5 {
		parts = append(parts[:5], fmt.Sprintf("and %d more", len(parts)-5))
	}
	return strings.Join(parts, "; ")
}

// compileSchema compiles a tool input schema (default dialect 2020-12). No
// remote $ref is ever fetched.
func compileSchema(name string, raw json.RawMessage) (*jsonschema.Schema, error) {
	if len(raw) == 0 {
		raw = json.RawMessage(`{"type":"object"}`)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("schema of tool %q: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noRemote{})
	url := "mem:///tools/" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("schema of tool %q: %w", name, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema of tool %q: %w", name, err)
	}
	return s, nil
}

type noRemote struct{}

func (noRemote) Load(url string) (any, error) {
	return nil, fmt.Errorf("remote $ref %q is not loaded", url)
}
