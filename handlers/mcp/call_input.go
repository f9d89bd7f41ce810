package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// Multi round-trip requests (2026-07-28): a tool may answer with input
// requests; the client retries tools/call with inputResponses and the
// requestState it was given.

type inputRequiredResult struct {
	resultFields
	InputRequests map[string]inputRequest `json:"inputRequests,omitempty"`
	RequestState  string                  `json:"requestState,omitempty"`
}

type inputRequest struct {
	Method string `json:"method"`
	Params any    `json:"params,omitempty"`
}

// userOf is the principal a requestState is bound to.
func userOf(x *exchange) int64 {
	if x.id != nil && x.id.User != nil {
		return x.id.User.ID
	}
	return 0
}

// readInput fills call's InputResponses and RequestState from the params
// of a Modern tools/call: requestState must be a string, inputResponses an
// object of objects, and a requestState must open (-32602 otherwise).
func (s *Server) readInput(x *exchange, entry *tools.Entry, p *callToolParams, call *tools.Call) *jsonrpc.Error {
	var state *string
	if raw := p.RequestState; len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
		state = new(string)
		if err := json.Unmarshal(raw, state); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				te.Field = "requestState" // as decoding params would name it
			}
			return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: "+jsonMessage(err), nil)
		}
	}
	if raw := bytes.TrimSpace(p.InputResponses); len(raw) > 0 {
		var m map[string]json.RawMessage
		if raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
			return jsonrpc.NewError(jsonrpc.CodeInvalidParams,
				"Invalid params: inputResponses must be an object mapping inputRequests keys to the client's results", nil)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if v := bytes.TrimSpace(m[k]); len(v) == 0 || v[0] != '{' {
				return jsonrpc.NewError(jsonrpc.CodeInvalidParams,
					"Invalid params: inputResponses["+quote(k)+"] must be an object (an ElicitResult, CreateMessageResult or ListRootsResult)", nil)
			}
		}
		call.InputResponses = m
	}
	if state != nil {
		opened, err := s.states.open(*state, userOf(x), entry.Tool.Name, call.Arguments)
		if err != nil {
			return jsonrpc.NewError(jsonrpc.CodeInvalidParams,
				"Invalid params: requestState failed verification: it was altered, has expired, or was issued for another user, tool or arguments", nil)
		}
		call.RequestState = opened
	}
	return nil
}

// renderResult turns a tool's result into the tools/call result. A result
// asking for input becomes an input_required result on Modern requests:
// every request must be one the client declared the capability for
// (-32021 otherwise) and the state is sealed. Legacy requests cannot carry
// the round trip, so they get an error result saying so.
func (s *Server) renderResult(x *exchange, entry *tools.Entry, call *tools.Call, res *tools.Result) (any, *jsonrpc.Error) {
	if len(res.InputRequests) == 0 && res.RequestState == "" {
		return s.toolResult(x, res), nil
	}
	keys := make([]string, 0, len(res.InputRequests))
	for k := range res.InputRequests {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if !x.modern {
		var methods []string
		for _, k := range keys {
			if m := res.InputRequests[k].Method; !slices.Contains(methods, m) {
				methods = append(methods, m)
			}
		}
		return s.toolResult(x, &tools.Result{IsError: true, Text: "The tool " + entry.Tool.Name +
			" needs input from the client (" + strings.Join(methods, ", ") +
			"), which takes protocol revision 2026-07-28 (multi round-trip requests)."}), nil
	}
	out := inputRequiredResult{resultFields: s.modernFields()}
	out.ResultType = "input_required"
	required := map[string]struct{}{}
	var missing []string
	if len(keys) > 0 {
		out.InputRequests = make(map[string]inputRequest, len(keys))
	}
	for _, k := range keys {
		r := res.InputRequests[k]
		capName := tools.InputCapability(r.Method)
		if capName == "" {
			return nil, s.internal(x, "render input requests",
				fmt.Errorf("tool %q asked for input by unknown method %q", entry.Tool.Name, r.Method))
		}
		required[capName] = struct{}{}
		if v := bytes.TrimSpace(x.meta.Capabilities[capName]); (len(v) == 0 || v[0] != '{') && !slices.Contains(missing, capName) {
			missing = append(missing, capName)
		}
		out.InputRequests[k] = inputRequest{Method: r.Method, Params: r.Params}
	}
	if len(missing) > 0 {
		return nil, jsonrpc.NewError(jsonrpc.CodeMissingRequiredClientCapability,
			"Missing required client capability: the tool "+entry.Tool.Name+" needs input by "+strings.Join(missing, ", ")+
				", which the request's clientCapabilities do not declare",
			map[string]any{"requiredCapabilities": required})
	}
	if res.RequestState != "" {
		sealed, err := s.states.seal(userOf(x), entry.Tool.Name, call.Arguments, res.RequestState)
		if err != nil {
			return nil, s.internal(x, "seal request state", err)
		}
		out.RequestState = sealed
	}
	return out, nil
}
