package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"sort"

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

// readInput reads the multi round-trip params of a Modern tools/call into
// req: requestState must be a string and inputResponses an object of
// objects (-32602 otherwise). The service verifies the state.
func readInput(p *callToolParams, req *tools.CallRequest) *jsonrpc.Error {
	if raw := p.RequestState; len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
		req.RequestState = new(string)
		if err := json.Unmarshal(raw, req.RequestState); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				te.Field = "requestState" // as decoding params would name it
			}
			return jsonrpc.InvalidParams("%s", jsonMessage(err))
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
		req.InputResponses = m
	}
	return nil
}
