package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// ID is a request id: a JSON string or integer, kept as the raw bytes the
// client sent so it is echoed with its original type and spelling (1 stays 1,
// "1" stays "1", integers beyond int64 are not rounded). The zero ID means
// "no id" and marshals as null.
type ID struct {
	raw json.RawMessage
}

// IsZero reports whether id is the zero ID (absent, or not readable).
func (id ID) IsZero() bool { return len(id.raw) == 0 }

// MarshalJSON returns the id exactly as it was received, or null for the
// zero ID.
func (id ID) MarshalJSON() ([]byte, error) {
	if id.IsZero() {
		return []byte("null"), nil
	}
	return bytes.Clone(id.raw), nil
}

// UnmarshalJSON accepts a JSON string or integer literal and keeps its bytes;
// null gives the zero ID. Anything else (fractions, exponents, booleans,
// objects, arrays) is an error. It exists for clients and tests that read
// responses; [Decode] applies the stricter request rule (null is invalid).
func (id *ID) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if string(data) == "null" {
		*id = ID{}
		return nil
	}
	if !json.Valid(data) {
		return errors.New("jsonrpc: id is not valid JSON")
	}
	parsed, ok := parseID(data)
	if !ok {
		return errors.New("jsonrpc: id must be a string or an integer")
	}
	*id = ID{raw: bytes.Clone(parsed.raw)}
	return nil
}

// String returns the id's JSON text for logs (`1`, `"abc"`), or "" for the
// zero ID.
func (id ID) String() string { return string(id.raw) }

// appendTo appends the id's JSON text (null for the zero ID) to b.
func (id ID) appendTo(b []byte) []byte {
	if id.IsZero() {
		return append(b, "null"...)
	}
	return append(b, id.raw...)
}

// parseID checks one valid JSON value and returns it as an ID when it is a
// string or an integer literal (no fraction, no exponent). The returned ID
// aliases raw. Strings must be valid UTF-8 so the echo is valid JSON text.
func parseID(raw []byte) (ID, bool) {
	if len(raw) == 0 {
		return ID{}, false
	}
	switch c := raw[0]; {
	case c == '"':
		if !utf8.Valid(raw) {
			return ID{}, false
		}
		return ID{raw: raw}, true
	case c == '-' || ('0' <= c && c <= '9'):
		if bytes.ContainsAny(raw, ".eE") {
			return ID{}, false
		}
		return ID{raw: raw}, true
	default:
		return ID{}, false
	}
}
