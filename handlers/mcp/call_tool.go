package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
	"gitlab.com/glmcp/glmcp/middleware"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/auth"
	"gitlab.com/glmcp/glmcp/services/catalog"
	"gitlab.com/glmcp/glmcp/services/tools"
)

type callToolParams struct {
	Name      *string         `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	// Modern multi round-trip fields (see readInput), kept raw here so a
	// bad value is reported only after the tool and headers are checked.
	InputResponses json.RawMessage `json:"inputResponses"`
	RequestState   json.RawMessage `json:"requestState"`
}

type callToolResult struct {
	resultFields
	Content           []any `json:"content"` // see renderContent
	StructuredContent any   `json:"structuredContent,omitempty"`
	IsError           bool  `json:"isError,omitempty"`
}

// callTool answers tools/call. Tool failures are results with isError;
// an unknown tool is -32602; a write tool under a read-only token is a 403
// step-up challenge.
func (s *Server) callTool(x *exchange) (any, *jsonrpc.Error) {
	var p callToolParams
	if err := json.Unmarshal(x.req.Params, &p); err != nil || len(x.req.Params) == 0 {
		msg := "params are required"
		if err != nil {
			msg = jsonMessage(err)
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: "+msg, nil)
	}
	if p.Name == nil || *p.Name == "" {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: name is required", nil)
	}
	if a := bytes.TrimSpace(p.Arguments); len(a) > 0 && a[0] != '{' && !bytes.Equal(a, []byte("null")) {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: arguments must be an object", nil)
	}
	filter, e := x.filter()
	if e != nil {
		return nil, e
	}
	// With a prefix header, only prefixed names exist for this client.
	name, known := catalog.StripPrefix(filter.Prefix(), *p.Name)
	snap, err := s.catalog.Snapshot(x.ctx)
	if err != nil {
		return nil, s.internal(x, "load tool catalog", err)
	}
	var entry *tools.Entry
	if known {
		entry, known = snap.Lookup(name)
	}
	if !known || (entry.Tool.Edition == models.EditionEE && s.cfg.Edition != models.EditionEE) {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Unknown tool: "+quote(*p.Name), map[string]any{"name": truncate(*p.Name, 200)})
	}
	x.fields.Tool = entry.Tool.Name
	if x.modern {
		if e := checkParamHeaders(x, entry, p.Arguments); e != nil {
			return nil, e
		}
		if e := requireCapabilities(x, entry); e != nil {
			return nil, e
		}
	}
	logLevel, e := s.toolLogLevel(x)
	if e != nil {
		return nil, e
	}
	if x.readOnly() && !entry.ReadOnly() {
		middleware.WriteAuthError(x.c, s.cfg.MetadataURL, &auth.Error{
			Kind: auth.InsufficientScope, Presented: true, Scope: s.cfg.Scopes.Needed,
			Reason: fmt.Sprintf("The tool %s writes data; the token's read_api scope allows read-only tools. A token with the %s scope is needed.", entry.Tool.Name, s.cfg.Scopes.Needed),
		})
		return nil, nil
	}
	call := &tools.Call{Identity: x.id, Edition: s.cfg.Edition, Arguments: p.Arguments}
	if x.modern {
		call.ClientCapabilities = x.meta.Capabilities
		if e := s.readInput(x, entry, &p, call); e != nil {
			return nil, e
		}
	}
	// Progress (both eras: _meta.progressToken) and log messages turn the
	// response into an event stream at the first event.
	var stream *progressStream
	if x.meta.ProgressToken != nil || logLevel != logOff {
		stream = &progressStream{x: x, token: x.meta.ProgressToken}
		if x.meta.ProgressToken != nil {
			call.Progress = stream.report
		}
		if logLevel != logOff {
			call.Log = stream.logger(logLevel)
		}
	}
	res, err := entry.Run(x.ctx, call)
	var out any
	e = nil
	if err != nil {
		if x.ctx.Err() != nil { // the client went away: nothing to answer
			return nil, nil
		}
		e = s.internal(x, "call tool", err)
	} else {
		out, e = s.renderResult(x, entry, call, res)
	}
	if stream != nil && stream.streaming() {
		stream.finish(out, e)
		return nil, nil
	}
	return out, e
}

func (s *Server) toolResult(x *exchange, res *tools.Result) callToolResult {
	out := callToolResult{Content: renderContent(res), StructuredContent: res.Structured, IsError: res.IsError}
	if x.modern {
		out.resultFields = s.modernFields()
	}
	return out
}

// checkParamHeaders validates Mcp-Param-{Name} headers declared by the
// tool's x-mcp-header annotations against the arguments (-32020).
func checkParamHeaders(x *exchange, entry *tools.Entry, args json.RawMessage) *jsonrpc.Error {
	params := entry.MirroredParams()
	if len(params) == 0 {
		return nil
	}
	var root any
	if len(args) > 0 {
		d := json.NewDecoder(bytes.NewReader(args))
		d.UseNumber()
		_ = d.Decode(&root)
	}
	for _, mp := range params {
		val, present := lookupPath(root, mp.Path)
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
		if dec, ok, bad := DecodeSentinel(got); bad {
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

func lookupPath(v any, path []string) (any, bool) {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
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
