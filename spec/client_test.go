package spec

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// The one way the specs talk to glmcp: describe a request as a call, send
// it with h.send (whole response) or h.open (a live event stream), read
// the answer with the response and stream methods. Every JSON-RPC message
// that comes back — a JSON body or each event of a stream — is validated
// against the official schema of the call's revision before the spec sees
// it.

// The two protocol eras a call can be written in.
const (
	legacy = "legacy" // 2025-03-26 … 2025-11-25: no _meta
	modern = "modern" // 2026-07-28: _meta and mirrored headers
)

// eras are both eras, for specs that run a row in each.
var eras = []string{legacy, modern}

// call is one HTTP request to glmcp. The zero value of each field is the
// common case, so a call names only what matters to its spec:
//
//	h.send(t, call{Era: modern, User: "alice", Method: "tools/list"})
//
// Era modern adds params._meta (modernMeta) unless Params holds "_meta"
// (a nil "_meta" removes it), and the headers a conforming client mirrors
// (MCP-Protocol-Version, Mcp-Method, Mcp-Name). Drop removes default
// headers; Header is applied last and replaces a default of the same name
// (compared case-insensitively, its spelling kept).
type call struct {
	Era    string // legacy ("") or modern
	URL    string // endpoint or any other URL; "" is the CE endpoint
	User   string // demo user whose token is sent as a Bearer credential
	Token  string // a Bearer credential sent instead of User's
	ID     any    // request id; nil is 1
	RawID  string // the id member's JSON exactly as sent (e.g. "1e3"), instead of ID
	Notify bool   // a notification: no id member
	Method string // JSON-RPC method; "" sends Body as it is
	Params map[string]any
	Body   string // raw body, when Method is ""
	Header http.Header
	Drop   []string // default headers not to send (e.g. Accept)
	Verb   string   // HTTP method; "" is POST
	Host   string   // replaces the Host header when not ""
	Rev    string   // schema revision of the answer; "" is derived (see rev)
}

// eraRev is the schema revision that validates era's answers.
func eraRev(era string) string {
	if era == modern {
		return revModern
	}
	return rev20251125
}

// rev is the schema revision of c's answer: Rev when set; otherwise the
// Modern revision for a Modern request (Era modern, a _meta protocol
// version in a raw Body, or an MCP-Protocol-Version header of 2026-07-28),
// and for a Legacy one the revision of its MCP-Protocol-Version header or
// of the initialize version asked for (2025-11-25 when neither names an
// older served version).
func (c *call) rev() string {
	if c.Rev != "" {
		return c.Rev
	}
	method, params := c.Method, c.Params
	if method == "" {
		var env struct {
			Method string         `json:"method"`
			Params map[string]any `json:"params"`
		}
		_ = json.Unmarshal([]byte(c.Body), &env)
		method, params = env.Method, env.Params
		meta, _ := params["_meta"].(map[string]any)
		if _, ok := meta["io.modelcontextprotocol/protocolVersion"]; ok {
			return revModern
		}
	}
	header := headerValue(c.Header, "MCP-Protocol-Version")
	switch {
	case c.Era == modern || header == revModern:
		return revModern
	case header != "":
		return legacyRev(header)
	case method == "initialize":
		if v, ok := params["protocolVersion"].(string); ok {
			return legacyRev(v)
		}
	}
	return rev20251125
}

// method is the JSON-RPC method c sends (read from a raw Body too).
func (c *call) method() string {
	if c.Method != "" {
		return c.Method
	}
	var env struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal([]byte(c.Body), &env)
	return env.Method
}

// legacyRev is the schema revision that validates a Legacy exchange of
// version: 2025-06-18 for the two older handshakes (no 2025-03-26 schema
// is vendored; 2025-06-18 is its closest superset), 2025-11-25 otherwise.
func legacyRev(version string) string {
	if version == rev20250618 || version == "2025-03-26" {
		return rev20250618
	}
	return rev20251125
}

// headerValue is the first value of name in hd, matched case-insensitively
// (specs may store names unconventionally spelt).
func headerValue(hd http.Header, name string) string {
	for k, v := range hd {
		if strings.EqualFold(k, name) && len(v) > 0 {
			return v[0]
		}
	}
	return ""
}

// modernMeta is a valid 2026-07-28 _meta.
func modernMeta() map[string]any {
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "spec", "version": "1.0.0"},
	}
}

// metaWith is modernMeta with the given client capabilities (nil: none)
// and extra keys.
func metaWith(caps map[string]any, extra map[string]any) map[string]any {
	m := modernMeta()
	if caps != nil {
		m["io.modelcontextprotocol/clientCapabilities"] = caps
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// request builds the http.Request of c on h.
func (h *harness) request(t testing.TB, ctx context.Context, c call) *http.Request {
	t.Helper()
	url := c.URL
	if url == "" {
		url = h.CE
	}
	body := c.body(t)
	hd := http.Header{}
	if c.Era == modern && c.Method != "" {
		params := withMeta(c.Params)
		hd.Set("MCP-Protocol-Version", revModern)
		hd.Set("Mcp-Method", c.Method)
		if n, ok := params["name"].(string); ok && (c.Method == "tools/call" || c.Method == "prompts/get") {
			hd.Set("Mcp-Name", n)
		}
		if u, ok := params["uri"].(string); ok && c.Method == "resources/read" {
			hd.Set("Mcp-Name", u)
		}
	}
	token := c.Token
	if token == "" && c.User != "" {
		var ok bool
		if token, ok = h.Tokens[c.User]; !ok {
			t.Fatalf("no demo user %q", c.User)
		}
	}
	if token != "" {
		hd.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		hd.Set("Content-Type", "application/json")
	}
	hd.Set("Accept", "application/json, text/event-stream")
	for _, k := range c.Drop {
		dropHeader(hd, k)
	}
	for k, v := range c.Header {
		dropHeader(hd, k)
		hd[k] = append([]string(nil), v...)
	}
	verb := c.Verb
	if verb == "" {
		verb = http.MethodPost
	}
	req, err := http.NewRequestWithContext(ctx, verb, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = hd
	if c.Host != "" {
		req.Host = c.Host
	}
	return req
}

// dropHeader deletes name from hd however its key is spelt.
func dropHeader(hd http.Header, name string) {
	for k := range hd {
		if strings.EqualFold(k, name) {
			delete(hd, k)
		}
	}
}

// body is the request body of c: Body as it is, or the JSON-RPC envelope
// of Method.
func (c *call) body(t testing.TB) string {
	t.Helper()
	if c.Method == "" {
		return c.Body
	}
	params := c.Params
	if c.Era == modern {
		params = withMeta(params)
	}
	var id any = 1
	if c.ID != nil {
		id = c.ID
	}
	if c.Notify {
		id = nil
	}
	if c.RawID != "" {
		id = json.RawMessage(c.RawID)
	}
	return envelope(t, id, c.Method, params)
}

// parts returns the body and headers c would send, for a spec that then
// breaks one thing and sends them with call{Body: body, Header: hd}.
func (h *harness) parts(t testing.TB, c call) (string, http.Header) {
	t.Helper()
	req := h.request(t, context.Background(), c)
	return c.body(t), req.Header
}

// withMeta returns a copy of params with _meta defaulted to modernMeta; a
// nil _meta is removed.
func withMeta(params map[string]any) map[string]any {
	out := map[string]any{"_meta": modernMeta()}
	for k, v := range params {
		out[k] = v
	}
	if m, ok := out["_meta"]; ok && m == nil {
		delete(out, "_meta")
	}
	return out
}

// envelope encodes a JSON-RPC request (id nil: a notification). params
// nil — an untyped nil or a nil map — leaves params out (a typed nil map
// would otherwise encode as "params": null, which the server refuses).
func envelope(t testing.TB, id any, method string, params any) string {
	t.Helper()
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if id != nil {
		m["id"] = id
	}
	if pm, ok := params.(map[string]any); params != nil && (!ok || pm != nil) {
		m["params"] = params
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// response is one HTTP exchange's outcome, read to its end.
type response struct {
	Status int
	Header http.Header
	Body   []byte
	Rev    string // schema revision its messages were validated against
}

// send sends c and reads the whole response. Each JSON-RPC message in it
// is validated against c's revision (its result against the method's
// result definition).
func (h *harness) send(t testing.TB, c call) *response {
	t.Helper()
	req := h.request(t, context.Background(), c)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	return readAnswer(t, c, res)
}

// readAnswer reads res, c's answer, to its end and validates each
// JSON-RPC message in it against c's revision (its result against the
// method's result definition).
func readAnswer(t testing.TB, c call, res *http.Response) *response {
	t.Helper()
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	r := &response{Status: res.StatusCode, Header: res.Header, Body: b, Rev: c.rev()}
	for _, msg := range r.messages(t) {
		validateAnswer(t, r.Rev, c.method(), msg)
	}
	return r
}

// isStream reports whether the response is an event stream.
func (r *response) isStream() bool {
	return strings.HasPrefix(r.Header.Get("Content-Type"), "text/event-stream")
}

// messages returns the JSON-RPC messages of the response: the data of
// each event of an event stream, or a JSON body that is one JSON-RPC
// message. Anything else (an empty body, a JSON document that is not
// JSON-RPC) is no message.
func (r *response) messages(t testing.TB) [][]byte {
	t.Helper()
	if r.isStream() {
		var out [][]byte
		_ = readEvents(bytes.NewReader(r.Body), func(ev sseEvent) bool {
			if !ev.IsComment {
				out = append(out, ev.Data)
			}
			return true
		})
		return out
	}
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		return nil
	}
	var probe struct {
		JSONRPC *string `json:"jsonrpc"`
	}
	if json.Unmarshal(r.Body, &probe) != nil || probe.JSONRPC == nil {
		return nil
	}
	return [][]byte{r.Body}
}

// events returns the messages of an event-stream response, failing unless
// the response is a 200 event stream.
func (r *response) events(t testing.TB) [][]byte {
	t.Helper()
	if r.Status != http.StatusOK || !r.isStream() {
		t.Fatalf("status %d, Content-Type %q; want a 200 event stream: %s", r.Status, r.Header.Get("Content-Type"), r.Body)
	}
	return r.messages(t)
}

// JSON decodes the body into a generic map (failing the test if it is not
// a JSON object); numbers stay json.Number.
func (r *response) JSON(t testing.TB) map[string]any {
	t.Helper()
	return decodeObject(t, r.Body)
}

// decodeObject decodes a JSON object keeping numbers as json.Number.
func decodeObject(t testing.TB, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, b)
	}
	return m
}

// members decodes the top-level members of a JSON object.
func members(t testing.TB, b []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, b)
	}
	return m
}

// result returns the result object of a JSON-RPC response (failing if
// there is none).
func (r *response) result(t testing.TB) map[string]any {
	t.Helper()
	res, ok := r.JSON(t)["result"].(map[string]any)
	if !ok {
		t.Fatalf("no result in response (status %d): %s", r.Status, r.Body)
	}
	return res
}

// rpcError returns the error object of a JSON-RPC error response (failing
// if there is none).
func (r *response) rpcError(t testing.TB) (code int, message string, data any) {
	t.Helper()
	e, ok := r.JSON(t)["error"].(map[string]any)
	if !ok {
		t.Fatalf("no error in response (status %d): %s", r.Status, r.Body)
	}
	n, _ := e["code"].(json.Number).Int64()
	msg, _ := e["message"].(string)
	return int(n), msg, e["data"]
}

// expectStatus fails unless r has status.
func (r *response) expectStatus(t testing.TB, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d; body %s", r.Status, status, r.Body)
	}
}

// ok asserts a 200 JSON-RPC result and returns it.
func (r *response) ok(t testing.TB) map[string]any {
	t.Helper()
	r.expectStatus(t, http.StatusOK)
	return r.result(t)
}

// rpcStatus is the HTTP status of a JSON-RPC error about a request glmcp
// could read, in era: 200 in the Legacy era (where clients surface the
// code and message only from a 200: issue #13 item 9), status in the
// Modern one. Refusals of what is not a valid request keep their status in
// both eras and do not use it.
func rpcStatus(era string, status int) int {
	if era == modern {
		return status
	}
	return http.StatusOK
}

// expectError asserts status, a JSON content type and the JSON-RPC code
// of an error response and returns its message and data.
func (r *response) expectError(t testing.TB, status, code int) (message string, data any) {
	t.Helper()
	r.expectStatus(t, status)
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	got, msg, data := r.rpcError(t)
	if got != code {
		t.Fatalf("code = %d, want %d; body %s", got, code, r.Body)
	}
	return msg, data
}

// expectID asserts the raw id member of the body: want "" means no id
// member at all.
func (r *response) expectID(t testing.TB, want string) {
	t.Helper()
	got, ok := members(t, r.Body)["id"]
	switch {
	case want == "" && ok:
		t.Errorf("id = %s, want no id member; body %s", got, r.Body)
	case want != "" && !ok:
		t.Errorf("no id member, want %s; body %s", want, r.Body)
	case want != "" && string(got) != want:
		t.Errorf("id = %s, want %s (same type and spelling)", got, want)
	}
}

// resultDefs name the schema definition of each method's result.
var resultDefs = map[string]string{
	"initialize":               "InitializeResult",
	"ping":                     "EmptyResult",
	"tools/list":               "ListToolsResult",
	"tools/call":               "CallToolResult",
	"server/discover":          "DiscoverResult",
	"prompts/list":             "ListPromptsResult",
	"resources/list":           "ListResourcesResult",
	"resources/templates/list": "ListResourceTemplatesResult",
	"subscriptions/listen":     "SubscriptionsListenResult",
}

// validateAnswer validates one message glmcp sent in answer to method: an
// error response, a result response (and its result against the method's
// definition when known), or a notification.
func validateAnswer(t testing.TB, rev, method string, msg []byte) {
	t.Helper()
	m := members(t, msg)
	_, isErr := m["error"]
	_, isResult := m["result"]
	_, isMethod := m["method"]
	switch {
	case isErr:
		validateMessage(t, rev, "JSONRPCErrorResponse", msg)
	case isResult:
		def, ok := resultDefs[method]
		var res struct {
			ResultType string `json:"resultType"`
		}
		_ = json.Unmarshal(m["result"], &res)
		if res.ResultType == "input_required" {
			def, ok = "InputRequiredResult", rev == revModern
		}
		if ok {
			validateResult(t, rev, def, msg)
		} else {
			validateMessage(t, rev, "JSONRPCResultResponse", msg)
		}
	case isMethod:
		validateMessage(t, rev, "JSONRPCNotification", msg)
	default:
		t.Fatalf("message is neither a response nor a notification: %s", msg)
	}
}

// liveBound is the liveness bound of every wait on a stream: something
// that should happen "now" must happen within it. It is never a speed
// assertion (those are benchmarks).
const liveBound = 10 * time.Second

// streamClient opens event streams. Keep-alives are off so a closed stream
// takes its connection (and the goroutines behind it) with it.
var streamClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// sseEvent is one dispatched SSE event, or one comment line.
type sseEvent struct {
	Comment   string // the text after ":" of a comment line
	IsComment bool
	Name      string // the event field ("message")
	Data      []byte // the data lines, joined with "\n"
}

// readEvents parses an event stream: "event:" and "data:" fields are
// dispatched at a blank line, comment lines delivered as they come. It
// stops when deliver returns false (returning nil) or at the first read
// error (returned; io.EOF is a clean end).
func readEvents(r io.Reader, deliver func(sseEvent) bool) error {
	br := bufio.NewReader(r)
	var ev sseEvent
	var data [][]byte
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return err
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if ev.Name != "" || data != nil {
				ev.Data = bytes.Join(data, []byte("\n"))
				if !deliver(ev) {
					return nil
				}
			}
			ev, data = sseEvent{}, nil
		case strings.HasPrefix(line, ":"):
			if !deliver(sseEvent{IsComment: true, Comment: strings.TrimPrefix(strings.TrimPrefix(line, ":"), " ")}) {
				return nil
			}
		default:
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "event":
				ev.Name = value
			case "data":
				data = append(data, []byte(value))
			}
		}
	}
}

// sseStream is an event-stream response being read in the background.
type sseStream struct {
	Resp   *http.Response
	rev    string // schema revision of its messages
	method string // the request's method
	events chan sseEvent
	quit   chan struct{} // closed by Close: the reader stops delivering
	done   chan struct{}
	err    error // the read error ending the stream (io.EOF: a clean end); after done
	cancel context.CancelFunc
	once   sync.Once
}

// open sends c and, when the answer is an event stream, returns it being
// read (closed when the test ends); otherwise it returns the whole
// response, validated as send does.
func (h *harness) open(t testing.TB, c call) (*sseStream, *response) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req := h.request(t, ctx, c)
	res, err := streamClient.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		defer cancel()
		return nil, readAnswer(t, c, res)
	}
	return readStream(t, c, res, cancel), nil
}

// readStream reads the event stream res (the answer to c) in the
// background; cancel ends its request. It is closed when the test ends.
func readStream(t testing.TB, c call, res *http.Response, cancel context.CancelFunc) *sseStream {
	s := &sseStream{Resp: res, rev: c.rev(), method: c.method(), events: make(chan sseEvent, 64),
		quit: make(chan struct{}), done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(s.done)
		defer close(s.events)
		s.err = readEvents(res.Body, func(ev sseEvent) bool {
			select {
			case s.events <- ev:
				return true
			case <-s.quit:
				return false
			}
		})
	}()
	t.Cleanup(s.Close)
	return s
}

// stream is open for a call whose answer must be an event stream.
func (h *harness) stream(t testing.TB, c call) *sseStream {
	t.Helper()
	s, r := h.open(t, c)
	if s == nil {
		t.Fatalf("%s: status %d, Content-Type %q, want an event stream; body %s", c.Method, r.Status, r.Header.Get("Content-Type"), r.Body)
	}
	return s
}

// Close ends the stream from the client side and waits for the reader.
func (s *sseStream) Close() {
	s.once.Do(func() {
		close(s.quit)
		s.cancel()
		_ = s.Resp.Body.Close()
		<-s.done
	})
}

// next returns the next event or comment; ok is false when the stream
// ended. It fails the test when nothing arrives within liveBound.
func (s *sseStream) next(t testing.TB) (ev sseEvent, ok bool) {
	t.Helper()
	select {
	case ev, ok := <-s.events:
		return ev, ok
	case <-time.After(liveBound):
		t.Fatalf("nothing on the event stream within %v", liveBound)
		return sseEvent{}, false
	}
}

// nextMessage returns the data of the next event, skipping comments,
// validated against the stream's revision. It fails the test when the
// stream ends first.
func (s *sseStream) nextMessage(t testing.TB) []byte {
	t.Helper()
	for {
		ev, ok := s.next(t)
		if !ok {
			t.Fatalf("event stream ended (%v), want another message", s.err)
		}
		if ev.IsComment {
			continue
		}
		if ev.Name != "" && ev.Name != "message" {
			t.Fatalf("event type %q, want message", ev.Name)
		}
		if bytes.Contains(ev.Data, []byte("\n")) {
			t.Errorf("message spans several data lines; each must be one line of compact JSON: %q", ev.Data)
		}
		validateAnswer(t, s.rev, s.method, ev.Data)
		return ev.Data
	}
}

// rest reads the stream to its end and returns the messages (comments
// skipped), each validated. It fails the test when the end does not come
// within liveBound or the stream breaks instead of ending cleanly.
func (s *sseStream) rest(t testing.TB) [][]byte {
	t.Helper()
	var out [][]byte
	for {
		ev, ok := s.next(t)
		if !ok {
			if s.err != io.EOF {
				t.Fatalf("event stream broke: %v; want a clean end", s.err)
			}
			return out
		}
		if !ev.IsComment {
			validateAnswer(t, s.rev, s.method, ev.Data)
			out = append(out, ev.Data)
		}
	}
}
