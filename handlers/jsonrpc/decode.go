package jsonrpc

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Request is a decoded request or notification.
//
// ID and Params alias the body passed to [Decode]: the body must not be
// modified or reused while the Request (or an ID taken from it) is in use.
type Request struct {
	// ID is the request id; the zero ID means a notification.
	ID ID
	// Method is the method name; never empty in a Request Decode accepted.
	Method string
	// Params is the raw "params" member: nil when absent, otherwise always a
	// JSON object (Decode refuses anything else, null included).
	Params json.RawMessage
}

// IsNotification reports whether r carries no id and so gets no response
// body. Only meaningful for a Request that Decode accepted.
func (r *Request) IsNotification() bool { return r.ID.IsZero() }

// Decoder decodes request bodies. The zero Decoder (and a nil one) works;
// [NewDecoder] also interns the method names a server serves, so decoding
// them allocates nothing.
type Decoder struct {
	methods map[string]string
}

// NewDecoder returns a Decoder that interns methods.
func NewDecoder(methods []string) *Decoder {
	m := make(map[string]string, len(methods))
	for _, n := range methods {
		m[n] = n
	}
	return &Decoder{methods: m}
}

// Decode strictly decodes one JSON-RPC 2.0 message body (doc/endpoint.md,
// "Both eras").
//
// The body must be exactly one JSON object, with optional surrounding
// whitespace. Member names are matched case-sensitively ("Method" is not
// "method") after unescaping, must not repeat, and unknown members are
// ignored. "jsonrpc" must be the string "2.0"; "method" a non-empty string;
// "params", when present, an object; "id", when present, a string or an
// integer literal (absent means a notification).
//
// Contract:
//
//   - err == nil: req is complete and valid.
//   - err != nil, req == nil: the id could not be read (the body is not JSON,
//     not an object, or its id is invalid or repeated). Answer err with the
//     zero ID, which encodes as "id": null.
//   - err != nil, req != nil: the id was readable; only req.ID is set (the
//     zero ID if the message had none). Answer err echoing req.ID.
//
// Whenever err != nil the message is invalid and must be answered, even if it
// looked like a notification. Codes: [CodeParseError] for a body that is not
// valid JSON (including trailing garbage), [CodeInvalidRequest] for
// everything else, with a message naming the rule broken.
func (d *Decoder) Decode(body []byte) (*Request, *Error) {
	if !json.Valid(body) {
		return nil, parseError()
	}
	i := skipSpace(body, 0)
	switch body[i] {
	case '{':
	case '[':
		return nil, InvalidRequest("Invalid Request: batch requests are not supported")
	default:
		return nil, InvalidRequest("Invalid Request: the message must be a JSON object")
	}

	var env envelope
	if d != nil {
		env.methods = d.methods
	}
	env.scan(body, i)

	var id ID
	if env.has(memberID) {
		if env.idRepeated {
			return nil, InvalidRequest("Invalid Request: duplicate member %q (member names must be unique)", "id")
		}
		var ok bool
		if id, ok = parseID(env.id); !ok {
			return nil, InvalidRequest("Invalid Request: id must be a string or an integer")
		}
	}
	req := &Request{ID: id}
	if err := env.check(); err != nil {
		return req, err
	}
	req.Method = env.methodName
	req.Params = env.params
	return req, nil
}

// Top-level members Decode looks at.
const (
	memberJSONRPC = 1 << iota
	memberID
	memberMethod
	memberParams
	memberResult
	memberError
)

// maxNameInMessage caps how much of a client-chosen member name is quoted
// back in an error message.
const maxNameInMessage = 64

// envelope is the result of one pass over the top-level object.
type envelope struct {
	seen       uint8
	version    []byte
	id         []byte
	method     []byte
	params     []byte
	methodName string
	dup        string // first repeated member name, "" if none
	idRepeated bool
	others     nameSet
	methods    map[string]string // interned method names
}

// scan walks the members of the object that starts at body[i].
func (e *envelope) scan(body []byte, i int) {
	i = skipSpace(body, i+1)
	for i < len(body) && body[i] == '"' {
		end := stringEnd(body, i)
		name := body[i+1 : end-1]
		if !plainASCII(name) {
			var s string
			if err := json.Unmarshal(body[i:end], &s); err == nil {
				name = []byte(s)
			}
		}
		i = skipSpace(body, end)   // at ':'
		vs := skipSpace(body, i+1) // value start
		ve := valueEnd(body, vs)
		// Capped, so appending to a member value never writes into body.
		e.add(name, body[vs:ve:ve])
		i = skipSpace(body, ve) // at ',' or '}'
		if i >= len(body) || body[i] != ',' {
			return
		}
		i = skipSpace(body, i+1)
	}
}

// add records one member.
func (e *envelope) add(name, value []byte) {
	switch string(name) {
	case "jsonrpc":
		e.set(memberJSONRPC, &e.version, "jsonrpc", value)
	case "id":
		e.set(memberID, &e.id, "id", value)
	case "method":
		e.set(memberMethod, &e.method, "method", value)
	case "params":
		e.set(memberParams, &e.params, "params", value)
	case "result":
		e.set(memberResult, nil, "result", value)
	case "error":
		e.set(memberError, nil, "error", value)
	default:
		if e.others.add(name) && e.dup == "" {
			e.dup = truncate(name)
		}
	}
}

func (e *envelope) set(bit uint8, dst *[]byte, name string, value []byte) {
	if e.seen&bit != 0 {
		if bit == memberID {
			e.idRepeated = true
		}
		if e.dup == "" {
			e.dup = name
		}
		return
	}
	e.seen |= bit
	if dst != nil {
		*dst = value
	}
}

func (e *envelope) has(bit uint8) bool { return e.seen&bit != 0 }

// check applies the envelope rules other than the id's, in a fixed order, and
// fills methodName.
func (e *envelope) check() *Error {
	if e.dup != "" {
		return InvalidRequest("Invalid Request: duplicate member %q (member names must be unique)", e.dup)
	}
	if !e.has(memberMethod) && (e.has(memberResult) || e.has(memberError)) {
		return InvalidRequest("Invalid Request: JSON-RPC responses are not accepted")
	}
	if !e.has(memberJSONRPC) || !isVersion(e.version) {
		return InvalidRequest("Invalid Request: jsonrpc must be %q", Version)
	}
	if !e.has(memberMethod) {
		return InvalidRequest("Invalid Request: method is required")
	}
	m, ok := e.internMethod(e.method)
	if !ok {
		return InvalidRequest("Invalid Request: method must be a string")
	}
	if m == "" {
		return InvalidRequest("Invalid Request: method must not be empty")
	}
	if e.has(memberParams) && e.params[0] != '{' {
		return InvalidRequest("Invalid Request: params must be an object")
	}
	e.methodName = m
	return nil
}

// isVersion reports whether raw is the JSON string "2.0", however spelled.
func isVersion(raw []byte) bool {
	if string(raw) == `"`+Version+`"` {
		return true
	}
	v, ok := jsonString(raw)
	return ok && v == Version
}

// internMethod decodes the method member. Interned names come back as the
// Decoder's strings, so the common case allocates nothing; others still
// decode, they just allocate.
func (e *envelope) internMethod(raw []byte) (string, bool) {
	if len(raw) >= 2 && raw[0] == '"' {
		if m, ok := e.methods[string(raw[1:len(raw)-1])]; ok {
			return m, true
		}
	}
	return jsonString(raw)
}

// jsonString decodes raw when it is a JSON string.
func jsonString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if inner := raw[1 : len(raw)-1]; plainASCII(inner) {
		return string(inner), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// truncateString returns s cut to at most n bytes on a rune boundary, with
// "…" when cut.
func truncateString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// truncate returns name as a string, cut to at most maxNameInMessage bytes
// on a rune boundary.
func truncate(name []byte) string {
	if len(name) <= maxNameInMessage {
		return string(name)
	}
	cut := maxNameInMessage
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return string(name[:cut]) + "…"
}

// nameSet finds repeated names among the members Decode ignores. The first
// few live in an array (no allocation); a map takes over beyond that so a
// hostile body with many members stays linear.
type nameSet struct {
	small [8][]byte
	n     int
	big   map[string]struct{}
}

// add records name and reports whether it was already present.
func (s *nameSet) add(name []byte) bool {
	if s.big != nil {
		if _, ok := s.big[string(name)]; ok {
			return true
		}
		s.big[string(name)] = struct{}{}
		return false
	}
	for _, seen := range s.small[:s.n] {
		if bytes.Equal(seen, name) {
			return true
		}
	}
	if s.n < len(s.small) {
		s.small[s.n] = name
		s.n++
		return false
	}
	s.big = make(map[string]struct{}, 4*len(s.small))
	for _, seen := range s.small {
		s.big[string(seen)] = struct{}{}
	}
	s.big[string(name)] = struct{}{}
	return false
}
