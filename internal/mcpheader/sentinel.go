// Package mcpheader holds the MCP Streamable HTTP rules for header values
// that do not depend on anything else in glmcp: the base64 sentinel that
// carries a mirrored parameter (Mcp-Name, Mcp-Param-*) which is not plain
// visible ASCII.
//
// It is a leaf on purpose: its fuzz targets then instrument only this
// package, not the whole server the MCP handler links.
package mcpheader

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// Sentinel framing of a header value: =?base64?<payload>?=.
const (
	SentinelPrefix = "=?base64?"
	SentinelSuffix = "?="
)

// DecodeSentinel decodes a header value of the form =?base64?<std base64
// of UTF-8>?=. ok reports whether the value used the sentinel; bad reports a
// sentinel whose payload is not valid base64 or not valid UTF-8.
func DecodeSentinel(v string) (decoded string, ok, bad bool) {
	if len(v) < len(SentinelPrefix)+len(SentinelSuffix) || !strings.HasPrefix(v, SentinelPrefix) || !strings.HasSuffix(v, SentinelSuffix) {
		return "", false, false
	}
	b, err := base64.StdEncoding.Strict().DecodeString(v[len(SentinelPrefix) : len(v)-len(SentinelSuffix)])
	if err != nil || !utf8.Valid(b) {
		return "", true, true
	}
	return string(b), true, false
}
