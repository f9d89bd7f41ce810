package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"
)

// Appender is a result that writes its own JSON onto dst, bypassing
// encoding/json (which would re-scan and copy pre-encoded parts). It must
// append exactly one valid JSON object; SizeHint is its approximate length,
// so the envelope is allocated once.
type Appender interface {
	AppendJSON(dst []byte) ([]byte, error)
	SizeHint() int
}

// EncodeResult returns the success envelope
// {"jsonrpc":"2.0","id":…,"result":…} without HTML escaping. A result that
// encodes as null (a nil interface, nil map or nil pointer) is written as {}:
// MCP results are always objects. An [Appender] writes itself. The error is
// result's encoding error.
func EncodeResult(id ID, result any) ([]byte, error) {
	b, err := appendResult(nil, id, result)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// appendResult is EncodeResult appending to dst, which it grows once to
// the result's size when that is known (an [Appender]). On error it
// returns dst's contents unchanged (and possibly a grown dst).
func appendResult(dst []byte, id ID, result any) ([]byte, error) {
	size := 256
	ap, isAppender := result.(Appender)
	if isAppender {
		size += ap.SizeHint()
	}
	b := slices.Grow(dst, size)
	mark := len(b)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = id.appendTo(b)
	b = append(b, `,"result":`...)
	start := len(b)
	var err error
	if isAppender {
		b, err = ap.AppendJSON(b)
	} else {
		b, err = appendJSON(b, result)
	}
	if err != nil {
		return b[:mark], fmt.Errorf("encode result: %w", err)
	}
	if string(b[start:]) == "null" {
		b = append(b[:start], "{}"...)
	}
	return append(b, '}'), nil
}

// EncodeError returns the error envelope
// {"jsonrpc":"2.0","id":…,"error":{…}} without HTML escaping. With the zero
// ID (the request's id could not be read) the id member is omitted: the MCP
// schemas since 2025-11-25 allow a missing id on error responses but not a
// null one. A nil e, and any -32603 but a store outage, is written as
// [Internal]. The error is the encoding error of e.Data.
func EncodeError(id ID, e *Error) ([]byte, error) {
	e = e.forWire()
	b := make([]byte, 0, 128)
	b = append(b, `{"jsonrpc":"2.0",`...)
	if !id.IsZero() {
		b = append(b, `"id":`...)
		b = id.appendTo(b)
		b = append(b, ',')
	}
	b = append(b, `"error":`...)
	b, err := appendJSON(b, e)
	if err != nil {
		return nil, fmt.Errorf("encode error %d: %w", e.Code, err)
	}
	return append(b, '}'), nil
}

// EncodeNotification returns the notification envelope
// {"jsonrpc":"2.0","method":…,"params":…} without HTML escaping. params is
// omitted when it encodes as null.
func EncodeNotification(method string, params any) ([]byte, error) {
	b := make([]byte, 0, 128)
	b = append(b, `{"jsonrpc":"2.0","method":`...)
	b, _ = appendJSON(b, method) // a string always encodes
	if params != nil {
		mark := len(b)
		b = append(b, `,"params":`...)
		start := len(b)
		var err error
		if b, err = appendJSON(b, params); err != nil {
			return nil, fmt.Errorf("encode %s params: %w", method, err)
		}
		if string(b[start:]) == "null" {
			b = b[:mark]
		}
	}
	return append(b, '}'), nil
}

// AppendNotification appends to dst the notification envelope
// {"jsonrpc":"2.0","method":…,"params":…} whose params is the JSON object
// the pieces of params spell one after the other, already encoded (and not
// checked): byte for byte what EncodeNotification writes for that object.
// It encodes nothing and grows dst once, for a notification written to
// many streams that differ in one piece (each stream's subscription id).
func AppendNotification(dst []byte, method string, params ...[]byte) []byte {
	n := len(`{"jsonrpc":"2.0","method":"","params":}`) + len(method)
	for _, p := range params {
		n += len(p)
	}
	b := slices.Grow(dst, n)
	b = append(b, `{"jsonrpc":"2.0","method":`...)
	b = AppendString(b, method)
	b = append(b, `,"params":`...)
	for _, p := range params {
		b = append(b, p...)
	}
	return append(b, '}')
}

// AppendValue appends v as encoding/json writes it without HTML escaping
// (for an Appender that writes only some of its values itself).
func AppendValue(b []byte, v any) ([]byte, error) { return appendJSON(b, v) }

// appendJSON appends the compact JSON encoding of v to b, without HTML
// escaping and without the encoder's trailing newline. On error b is
// returned unchanged.
func appendJSON(b []byte, v any) ([]byte, error) {
	buf := bytes.NewBuffer(b)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return b, err
	}
	out := buf.Bytes()
	return out[:len(out)-1], nil
}

// AppendString appends s as a JSON string exactly as encoding/json writes
// it without HTML escaping: quote, backslash and control characters
// escaped (\b \f \n \r \t by name, others as \u00XX), invalid UTF-8 as
// \ufffd, U+2028 and U+2029 as \u2028 and \u2029, everything else as is.
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
