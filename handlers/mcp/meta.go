package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
	"gitlab.com/glmcp/glmcp/internal/mcpheader"
)

// readParams decodes the request's params once, into the typed params of
// its method's row (notifications and unknown methods: _meta only), and
// decides the era: a request whose _meta holds
// io.modelcontextprotocol/protocolVersion is Modern, and so is one whose
// MCP-Protocol-Version header names anything but a Legacy version (it then
// fails the _meta checks with 400 instead of being served as Legacy).
//
// When the typed params do not fit, _meta and the member Mcp-Name mirrors
// are read leniently so the era and the Modern checks still come first;
// the mismatch is kept in x.paramsErr and answered after them. Only a
// _meta that cannot be read at all is answered at once (the header alone
// then decides the era).
func (x *exchange) readParams(m *method) *jsonrpc.Error {
	header := x.c.GetHeader(HeaderProtocolVersion)
	x.modern = header != "" && !slices.Contains(LegacyVersions, header)
	var p params
	if m != nil && m.newParams != nil && !x.req.IsNotification() {
		p = m.newParams()
	} else {
		p = &noParams{}
	}
	x.name = ""
	if len(x.req.Params) > 0 {
		if err := json.Unmarshal(x.req.Params, p); err != nil {
			var l lenientParams
			if lerr := json.Unmarshal(x.req.Params, &l); lerr != nil {
				return jsonrpc.InvalidParams("%s", jsonMessage(lerr))
			}
			x.paramsErr = jsonrpc.InvalidParams("%s", jsonMessage(err))
			p = &l
			if m != nil {
				x.name = l.member(m.mirror)
			}
		} else if n, ok := p.(named); ok {
			x.name = n.mcpName()
		}
	}
	x.params = p
	raw := p.base().Meta
	x.meta.raw = raw
	if _, ok := raw[MetaProtocolVersion]; ok {
		x.modern = true
	}
	if v, ok := raw[MetaClientInfo]; ok {
		var ci Implementation
		if json.Unmarshal(v, &ci) == nil {
			x.meta.ClientInfo = &ci
			x.fields.ClientName, x.fields.ClientVersion = truncate(ci.Name, 100), truncate(ci.Version, 50)
		}
	}
	if v, ok := raw[MetaProgressToken]; ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
		x.meta.ProgressToken = v
	}
	return nil
}

// lenientParams reads what the dispatcher needs of params that do not fit
// their method's type: _meta, and the members Mcp-Name may mirror.
type lenientParams struct {
	metaParams
	Name json.RawMessage `json:"name"`
	URI  json.RawMessage `json:"uri"`
}

// member returns the member named ("name", "uri") as a string, "" when
// absent or not a string.
func (l *lenientParams) member(name string) string {
	var raw json.RawMessage
	switch name {
	case "name":
		raw = l.Name
	case "uri":
		raw = l.URI
	}
	return jsonStringOrEmpty(raw)
}

// jsonStringOrEmpty decodes raw when it is a JSON string, else "".
func jsonStringOrEmpty(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// validateModern applies the 2026-07-28 per-request rules, in this order:
// required _meta fields (-32602), the mirrored headers (-32020; Mcp-Name
// when m's row names a mirrored member), a served version (-32022).
func (s *Server) validateModern(x *exchange, m *method) *jsonrpc.Error {
	raw, ok := x.meta.raw[MetaProtocolVersion]
	if !ok || json.Unmarshal(raw, &x.meta.ProtocolVersion) != nil || x.meta.ProtocolVersion == "" {
		return jsonrpc.NewError(jsonrpc.CodeInvalidParams,
			"Invalid params: _meta must include \""+MetaProtocolVersion+"\" (a string)", nil)
	}
	capsRaw, ok := x.meta.raw[MetaClientCapabilities]
	if !ok || json.Unmarshal(capsRaw, &x.meta.Capabilities) != nil || x.meta.Capabilities == nil {
		return jsonrpc.NewError(jsonrpc.CodeInvalidParams,
			"Invalid params: _meta must include \""+MetaClientCapabilities+"\" (an object)", nil)
	}
	h := x.c.Request.Header
	if e := matchHeader(h.Values(HeaderProtocolVersion), HeaderProtocolVersion, x.meta.ProtocolVersion, false); e != nil {
		return e
	}
	if e := matchHeader(h.Values(HeaderMethod), HeaderMethod, x.req.Method, false); e != nil {
		return e
	}
	if m != nil && m.mirror != "" {
		if e := matchHeader(h.Values(HeaderName), HeaderName, x.name, true); e != nil {
			return e
		}
	}
	// Headers first: a header naming a served version over a _meta naming
	// another is a mismatch (-32020), not an unsupported version.
	if !slices.Contains(ModernVersions, x.meta.ProtocolVersion) {
		return jsonrpc.NewError(jsonrpc.CodeUnsupportedProtocolVersion, "Unsupported protocol version",
			map[string]any{"supported": SupportedVersions, "requested": x.meta.ProtocolVersion})
	}
	return nil
}

// matchHeader checks that exactly one header value is present and equals
// want (after decoding the =?base64?…?= sentinel when encoded is allowed).
func matchHeader(values []string, name, want string, encoded bool) *jsonrpc.Error {
	if len(values) == 0 {
		return headerMismatch(fmt.Sprintf("Header mismatch: required header %s is missing", name))
	}
	if len(values) > 1 {
		return headerMismatch(fmt.Sprintf("Header mismatch: header %s must appear once", name))
	}
	got := values[0]
	if !validHeaderValue(got) {
		return headerMismatch(fmt.Sprintf("Header mismatch: header %s contains invalid characters", name))
	}
	if encoded {
		dec, ok, bad := mcpheader.DecodeSentinel(got)
		if bad {
			return headerMismatch(fmt.Sprintf("Header mismatch: header %s has an invalid base64 value", name))
		}
		if ok {
			got = dec
		}
	}
	if got != want {
		return headerMismatch(fmt.Sprintf("Header mismatch: %s header value %q does not match body value %q",
			name, truncate(got, 200), truncate(want, 200)))
	}
	return nil
}

func headerMismatch(msg string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeHeaderMismatch, msg, nil)
}

// validHeaderValue reports whether v holds only visible ASCII, space and
// tab (RFC 9110 field values).
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\t' || (c >= 0x20 && c <= 0x7e) {
			continue
		}
		return false
	}
	return true
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func jsonMessage(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		switch te.Type.Kind() {
		case reflect.Struct, reflect.Map:
			return te.Field + " must be an object"
		}
		return fmt.Sprintf("%s must be of type %s", te.Field, te.Type.String())
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
