package secrets

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
)

// skipKeys are argument members whose values are not text to be stored
// where others read it: CI variables of a pipeline run (passing a token
// to a job is what they are for, and GitLab keeps them from readers below
// Maintainer), and the encoding and action words of a commit.
var skipKeys = map[string]bool{"variables": true, "encoding": true, "action": true}

// Arguments scans every string of a write tool's arguments (a JSON
// object) and returns what it finds, in argument order. A commit action
// (an object with file_path and content, add_commit's actions) is scanned
// as the file it writes, base64 content decoded, and reported by file and
// line; any other string is reported by its argument path. Malformed
// arguments yield nothing (the tool refuses them).
func (s *Scanner) Arguments(args json.RawMessage) []Finding {
	if len(bytes.TrimSpace(args)) == 0 {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	var root any
	if err := d.Decode(&root); err != nil {
		return nil
	}
	return s.Value(root)
}

// Value is Arguments over arguments already decoded (objects
// map[string]any, strings string, as encoding/json decodes them): the
// tool service's one parse of a call's arguments, read, never changed.
func (s *Scanner) Value(args any) []Finding {
	var out []Finding
	s.walk(args, "", &out)
	return out
}

func (s *Scanner) walk(v any, path string, out *[]Finding) {
	switch t := v.(type) {
	case string:
		for _, h := range s.Text(t, "") {
			where := path
			if lines := bytes.Count([]byte(t), []byte("\n")); lines > 0 {
				where += ", line " + strconv.Itoa(h.Line)
			}
			*out = append(*out, Finding{Rule: h.Rule, Where: where})
		}
	case []any:
		for i, e := range t {
			s.walk(e, path+"["+strconv.Itoa(i)+"]", out)
		}
	case map[string]any:
		if s.file(t, path, out) {
			return
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if skipKeys[k] {
				continue
			}
			p := k
			if path != "" {
				p = path + "." + k
			}
			s.walk(t[k], p, out)
		}
	}
}

// file scans a commit action as the file it writes and reports whether m
// was one (an object with a string file_path and content).
func (s *Scanner) file(m map[string]any, path string, out *[]Finding) bool {
	name, ok1 := m["file_path"].(string)
	content, ok2 := m["content"].(string)
	if !ok1 || !ok2 {
		return false
	}
	if enc, _ := m["encoding"].(string); enc == "base64" {
		if b, err := base64.StdEncoding.DecodeString(content); err == nil {
			content = string(b)
		}
	}
	prefix := "content"
	if path != "" {
		prefix = path + ".content"
	}
	for _, h := range s.Text(content, name) {
		*out = append(*out, Finding{Rule: h.Rule, Where: fmt.Sprintf("%s (file %s, line %d)", prefix, name, h.Line)})
	}
	// The action's other strings (file_path, previous_path, …) as text.
	for k, v := range m {
		if k == "content" || skipKeys[k] {
			continue
		}
		if str, ok := v.(string); ok {
			p := k
			if path != "" {
				p = path + "." + k
			}
			s.walk(str, p, out)
		}
	}
	return true
}
