package mcp

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
)

// MetaLogLevel is the 2026-07-28 _meta key by which a request opts in to
// notifications/message at or above a level.
const MetaLogLevel = "io.modelcontextprotocol/logLevel"

// logLevels are the MCP (syslog) levels, least severe first.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// logOff is the minimum level of a request that gets no log messages.
const logOff = -1

// toolLogLevel returns the index in logLevels of the least severe message
// a tools/call request gets, or logOff.
//
// Modern: only a request whose _meta names a level gets messages (an
// unknown level is -32602). Legacy: there is no per-request level, and a
// stateless server cannot keep one from logging/setLevel, so when the
// server declares logging every message is sent and the client filters.
func (s *Server) toolLogLevel(x *exchange) (int, *jsonrpc.Error) {
	if !x.modern {
		if s.cfg.Logging {
			return 0, nil
		}
		return logOff, nil
	}
	raw, ok := x.meta.raw[MetaLogLevel]
	if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return logOff, nil
	}
	return parseLogLevel(raw, "_meta \""+MetaLogLevel+"\"")
}

// parseLogLevel decodes a JSON level name; what names the field in errors.
func parseLogLevel(raw json.RawMessage, what string) (int, *jsonrpc.Error) {
	var level string
	if json.Unmarshal(raw, &level) == nil {
		if i := slices.Index(logLevels, level); i >= 0 {
			return i, nil
		}
	}
	return logOff, jsonrpc.InvalidParams("%s must be one of %s", what, strings.Join(logLevels, ", "))
}

type logMessageParams struct {
	Level  string `json:"level"`
	Logger string `json:"logger,omitempty"`
	Data   any    `json:"data"`
}

// logger returns the tools.Call.Log of a request whose least severe
// message is logLevels[least]: messages at or above it go out as
// notifications/message on the response's event stream (shared with
// progress); others, and messages of an unknown level, are dropped.
func (x *exchange) logger(least int) func(level, logger string, data any) {
	return func(level, logger string, data any) {
		if i := slices.Index(logLevels, level); i >= 0 && i >= least {
			x.events().notify("notifications/message", logMessageParams{Level: level, Logger: logger, Data: data})
		}
	}
}

type setLevelParams struct {
	metaParams
	Level json.RawMessage `json:"level"`
}

// setLogLevel answers Legacy logging/setLevel with {} after checking the
// level. The server keeps no session, so the level governs nothing later:
// Legacy tool calls get every message and the client filters (see
// toolLogLevel).
func (s *Server) setLogLevel(x *exchange, p *setLevelParams) (any, error) {
	if _, e := parseLogLevel(p.Level, "level"); e != nil {
		return nil, e
	}
	return struct{}{}, nil
}
