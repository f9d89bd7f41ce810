package mcp

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
	"gitlab.com/glmcp/glmcp/internal/mcpheader"
	"gitlab.com/glmcp/glmcp/middleware"
	"gitlab.com/glmcp/glmcp/services/tools"
)

type callToolParams struct {
	metaParams
	Name      *string         `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	// Modern multi round-trip fields (see readInput), kept raw here so a
	// bad value is reported only after the tool and headers are checked.
	InputResponses json.RawMessage `json:"inputResponses"`
	RequestState   json.RawMessage `json:"requestState"`
}

func (p *callToolParams) mcpName() string {
	if p.Name == nil {
		return ""
	}
	return *p.Name
}

type callToolResult struct {
	resultFields
	Content           []any `json:"content"` // see renderContent
	StructuredContent any   `json:"structuredContent,omitempty"`
	IsError           bool  `json:"isError,omitempty"`
}

// callToolResultJSON is callToolResult without its AppendJSON.
type callToolResultJSON callToolResult

// SizeHint implements jsonrpc.Appender.
func (r callToolResult) SizeHint() int {
	n := 64 + len(r.Meta)
	if sc, ok := r.StructuredContent.(tools.CompactJSON); ok {
		n += len(sc)
	}
	for _, c := range r.Content {
		if t, ok := c.(textContent); ok {
			n += len(t.Text) + len(t.Text)/16 + 32
		}
	}
	return n
}

// AppendJSON implements jsonrpc.Appender. The usual result (text blocks,
// structured content a tool encoded itself) is written directly, byte for
// byte what encoding/json writes: structured content and the server's
// _meta as they are, the text escaped once. Anything else goes through
// encoding/json.
func (r callToolResult) AppendJSON(b []byte) ([]byte, error) {
	sc, compact := r.StructuredContent.(tools.CompactJSON)
	direct := r.Content != nil && (r.StructuredContent == nil || (compact && len(sc) > 0))
	for _, c := range r.Content {
		if _, ok := c.(textContent); !ok {
			direct = false
		}
	}
	if !direct {
		return jsonrpc.AppendValue(b, callToolResultJSON(r))
	}
	b = append(b, '{')
	if r.ResultType != "" {
		b = append(b, `"resultType":`...)
		b = jsonrpc.AppendString(b, r.ResultType)
		b = append(b, ',')
	}
	if len(r.Meta) > 0 {
		b = append(b, `"_meta":`...)
		b = append(b, r.Meta...) // encoded once by the server (encodeMeta)
		b = append(b, ',')
	}
	b = append(b, `"content":[`...)
	for i, c := range r.Content {
		if i > 0 {
			b = append(b, ',')
		}
		t := c.(textContent)
		b = append(b, `{"type":`...)
		b = jsonrpc.AppendString(b, t.Type)
		b = append(b, `,"text":`...)
		b = jsonrpc.AppendString(b, t.Text)
		b = append(b, '}')
	}
	b = append(b, ']')
	if r.StructuredContent != nil {
		b = append(b, `,"structuredContent":`...)
		b = append(b, sc...)
	}
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, '}'), nil
}

// callTool answers tools/call: the wire becomes a tools.CallRequest, the
// tool service runs it down its chain (services/tools/chain.go), with this
// exchange as the chain's Transport (CheckTool, Plumb: the rules that are
// the transport's), and the result is rendered here. Tool failures are
// results with isError; the service's refusals (unknown tool, a write tool
// under a read-only token, …) are returned for the one writer to
// translate.
func (s *Server) callTool(x *exchange, p *callToolParams) (any, error) {
	if len(x.req.Params) == 0 {
		return nil, jsonrpc.InvalidParams("params are required")
	}
	if p.Name == nil || *p.Name == "" {
		return nil, jsonrpc.InvalidParams("name is required")
	}
	x.call = callTransport{s: s, x: x, p: p}
	req := tools.CallRequest{Scope: x.scope(s.cfg.Edition), Name: *p.Name, Arguments: p.Arguments, Transport: &x.call,
		Caller: x.caller()}
	if x.modern {
		req.Capabilities = x.meta.Capabilities
	}
	x.chained = true
	res, err := s.tools.Call(x.ctx, req)
	if err != nil {
		return nil, err
	}
	recordOutcome(x.fields, res)
	return s.renderResult(x, res, res.Meta), nil
}

// caller is what the chain's audit link records of this request.
func (x *exchange) caller() *tools.Caller {
	return &tools.Caller{ClientName: x.fields.ClientName, ClientVersion: x.fields.ClientVersion, RequestID: x.fields.RequestID}
}

// refuseCall hands a tools/call refused before it went down the chain
// (params that do not fit the method, the Modern checks, no name) to the
// chain with its refusal (tools.CallRequest.Refused), so the chain's outer
// links, the audit event among them, see every tools/call; the refusal
// comes back as it went. Any other request's error is returned as it is.
func (s *Server) refuseCall(x *exchange, err error) error {
	if x.req.Method != MethodCallTool || x.req.IsNotification() || x.chained {
		return err
	}
	x.chained = true
	req := tools.CallRequest{Scope: x.scope(s.cfg.Edition), Caller: x.caller(), Refused: err}
	if p, ok := x.params.(*callToolParams); ok && p != nil {
		req.Name, req.Arguments = p.mcpName(), p.Arguments
	}
	// The chain ends at its tool link with the refusal; the outer links
	// have seen it. The answer is the refusal as it came, whatever a
	// ToolService returns for it.
	_, _ = s.tools.Call(x.ctx, req)
	return err
}

// callTransport is the tools/call chain's Transport for one exchange.
type callTransport struct {
	s        *Server
	x        *exchange
	p        *callToolParams
	logLevel int
}

// CheckTool applies the transport's rules to the tool found, before the
// service's own: mirrored Mcp-Param headers, the log level, the retry
// fields.
func (t *callTransport) CheckTool(e *tools.Entry, req *tools.CallRequest) error {
	x := t.x
	x.fields.Tool = e.Tool.Name
	if x.modern {
		if je := checkParamHeaders(x, e, req); je != nil {
			return je
		}
	}
	var le *jsonrpc.Error
	if t.logLevel, le = t.s.toolLogLevel(x); le != nil {
		return le
	}
	if x.modern {
		if je := readInput(t.p, req); je != nil {
			return je
		}
	}
	return nil
}

// Plumb turns the response into an event stream at the first progress
// notification (both eras: _meta.progressToken) or log message; the one
// writer sends the result as its last event.
func (t *callTransport) Plumb(req *tools.CallRequest) {
	if t.x.meta.ProgressToken != nil {
		req.Progress = (&progressStream{x: t.x, token: t.x.meta.ProgressToken}).report
	}
	if t.logLevel != logOff {
		req.Log = t.x.logger(t.logLevel)
	}
}

// recordOutcome notes how a call that produced a result ended, for the
// access log and glmcp_tool_calls_total (see middleware.ToolOutcome); the
// one writer records the calls that end in a JSON-RPC error.
func recordOutcome(f *middleware.LogFields, res *tools.Result) {
	switch {
	case res == nil:
	case res.Refused:
		f.Outcome, f.ErrorClass = middleware.OutcomeRefused, res.ErrorClass
	case res.IsError:
		f.Outcome, f.ErrorClass = middleware.OutcomeToolError, res.ErrorClass
		if f.ErrorClass == "" {
			f.ErrorClass = "tool"
		}
	default:
		f.Outcome = middleware.OutcomeOK
	}
}

// renderResult renders a tool's result: complete (with meta's entries
// added to its _meta), or (Modern) asking the client for input.
func (s *Server) renderResult(x *exchange, res *tools.Result, meta map[string]any) any {
	if len(res.InputRequests) == 0 && res.RequestState == "" {
		out := callToolResult{Content: renderContent(res), StructuredContent: res.Structured, IsError: res.IsError}
		if x.modern {
			out.resultFields = s.modernFields()
		}
		out.Meta = withMeta(out.Meta, meta)
		return out
	}
	out := inputRequiredResult{resultFields: s.modernFields(), RequestState: res.RequestState}
	out.ResultType = "input_required"
	if len(res.InputRequests) > 0 {
		out.InputRequests = make(map[string]inputRequest, len(res.InputRequests))
		for k, r := range res.InputRequests {
			out.InputRequests[k] = inputRequest{Method: r.Method, Params: r.Params}
		}
	}
	return out
}

// checkParamHeaders validates Mcp-Param-{Name} headers declared by the
// tool's x-mcp-header annotations against the arguments (-32020), as the
// tools/call chain parsed them once (req.Argument).
func checkParamHeaders(x *exchange, entry *tools.Entry, req *tools.CallRequest) *jsonrpc.Error {
	params := entry.MirroredParams()
	if len(params) == 0 {
		return nil
	}
	for _, mp := range params {
		val, present := req.Argument(mp.Path)
		header := HeaderParamPrefix + mp.Header
		values := x.c.Request.Header.Values(header)
		if !present || val == nil {
			continue // the client omits the header; nothing to compare
		}
		if len(values) != 1 {
			return headerMismatch(fmt.Sprintf("Header mismatch: required header %s is missing", header))
		}
		got := values[0]
		if !validHeaderValue(got) {
			return headerMismatch(fmt.Sprintf("Header mismatch: header %s contains invalid characters", header))
		}
		if dec, ok, bad := mcpheader.DecodeSentinel(got); bad {
			return headerMismatch(fmt.Sprintf("Header mismatch: header %s has an invalid base64 value", header))
		} else if ok {
			got = dec
		}
		if !headerEquals(got, val) {
			return headerMismatch(fmt.Sprintf("Header mismatch: %s header value %q does not match body value", header, truncate(got, 200)))
		}
	}
	return nil
}

// headerEquals compares a header value with a body value: strings exactly,
// numbers numerically (42.0 equals 42), booleans as "true"/"false".
func headerEquals(h string, v any) bool {
	switch t := v.(type) {
	case string:
		return h == t
	case bool:
		return h == fmt.Sprint(t)
	case json.Number:
		a, okA := new(big.Rat).SetString(strings.TrimSpace(h))
		b, okB := new(big.Rat).SetString(t.String())
		return okA && okB && a.Cmp(b) == 0
	}
	return false
}
