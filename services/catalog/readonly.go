package catalog

import (
	"encoding/json"

	"gitlab.com/glmcp/glmcp/models"
)

// ReadOnly reports whether t's annotations document says readOnlyHint: true.
// Missing, null or malformed annotations, or any other value, read as false,
// so a read-only token never sees a tool by accident.
//
// It scans the JSON in place without allocating (tools/list calls it once
// per tool for read-only tokens). The key is matched case-sensitively, as
// MCP clients read it; when it repeats, the last occurrence wins, as in
// encoding/json.
func ReadOnly(t *models.Tool) bool {
	return t != nil && readOnlyHint(t.Annotations)
}

const readOnlyKey = "readOnlyHint"

// readOnlyHint scans the top-level object of doc for readOnlyHint. The scan
// is exact for valid JSON; a true result is confirmed with json.Valid so
// malformed documents never yield true.
func readOnlyHint(doc []byte) bool {
	i := skipSpace(doc, 0)
	if i >= len(doc) || doc[i] != '{' {
		return false
	}
	i = skipSpace(doc, i+1)
	if i < len(doc) && doc[i] == '}' {
		return false
	}
	found := false
	for {
		i = skipSpace(doc, i)
		if i >= len(doc) || doc[i] != '"' {
			return false
		}
		end, escaped, ok := skipString(doc, i)
		if !ok {
			return false
		}
		key := doc[i:end]
		i = skipSpace(doc, end)
		if i >= len(doc) || doc[i] != ':' {
			return false
		}
		i = skipSpace(doc, i+1)
		valueEnd, ok := skipValue(doc, i)
		if !ok {
			return false
		}
		if keyIs(key, escaped) {
			found = string(doc[i:valueEnd]) == "true"
		}
		i = skipSpace(doc, valueEnd)
		if i >= len(doc) {
			return false
		}
		if doc[i] == '}' {
			break
		}
		if doc[i] != ',' {
			return false
		}
		i++
	}
	return found && json.Valid(doc)
}

// keyIs reports whether the quoted key equals readOnlyKey. Keys with escape
// sequences (rare) are decoded the slow way.
func keyIs(quoted []byte, escaped bool) bool {
	if !escaped {
		return string(quoted[1:len(quoted)-1]) == readOnlyKey
	}
	var s string
	if err := json.Unmarshal(quoted, &s); err != nil {
		return false
	}
	return s == readOnlyKey
}

func skipSpace(doc []byte, i int) int {
	for i < len(doc) {
		switch doc[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index just past the string starting at doc[i]
// (a '"') and whether it held an escape.
func skipString(doc []byte, i int) (end int, escaped bool, ok bool) {
	for i++; i < len(doc); i++ {
		switch doc[i] {
		case '\\':
			escaped = true
			i++
		case '"':
			return i + 1, escaped, true
		}
	}
	return 0, false, false
}

// skipValue returns the index just past the value starting at doc[i]. It is
// exact for valid JSON and merely never reads out of bounds otherwise.
func skipValue(doc []byte, i int) (int, bool) {
	if i >= len(doc) {
		return 0, false
	}
	switch doc[i] {
	case '"':
		end, _, ok := skipString(doc, i)
		return end, ok
	case '{', '[':
		depth := 0
		for i < len(doc) {
			switch doc[i] {
			case '"':
				end, _, ok := skipString(doc, i)
				if !ok {
					return 0, false
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return 0, false
	default:
		start := i
		for i < len(doc) {
			switch doc[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i, i > start
			}
			i++
		}
		return 0, false
	}
}
