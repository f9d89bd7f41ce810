package mcp

import (
	"encoding/json"
	"net/http"
)

// JSON-RPC 2.0 error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
)

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func writeResult(w http.ResponseWriter, id json.RawMessage, result any) {
	write(w, http.StatusOK, map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func writeError(w http.ResponseWriter, id json.RawMessage, code int, msg string) {
	status := http.StatusBadRequest
	switch code {
	case codeMethodNotFound:
		status = http.StatusNotFound
	case codeInternalError:
		status = http.StatusInternalServerError
	}
	write(w, status, map[string]any{"jsonrpc": "2.0", "id": id, "error": rpcError{code, msg}})
}

func write(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body)
}
