package mcp

import (
	"encoding/json"
	"slices"
	"strings"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
)

// serveLegacy serves the initialize-era methods (2025-03-26 … 2025-11-25).
// The server holds no session state: initialize is not required before
// other methods, and Mcp-Session-Id is neither minted nor read.
func (s *Server) serveLegacy(x *exchange) (any, error) {
	switch x.req.Method {
	case MethodInitialize:
		return s.initialize(x)
	case MethodPing:
		return struct{}{}, nil
	case MethodListTools:
		return s.listTools(x)
	case MethodCallTool:
		return s.callTool(x)
	case MethodSetLogLevel:
		if s.cfg.Logging {
			return s.setLogLevel(x)
		}
	}
	if res, err, ok := s.servePrimitives(x); ok {
		return res, err
	}
	return nil, jsonrpc.MethodNotFound(x.req.Method)
}

type initializeParams struct {
	ProtocolVersion string          `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities"`
	ClientInfo      *Implementation `json:"clientInfo"`
}

type initializeResult struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    map[string]any `json:"capabilities"`
	ServerInfo      Implementation `json:"serverInfo"`
	Instructions    string         `json:"instructions,omitempty"`
}

// initialize negotiates a handshake version: a supported one is echoed, a
// client asking for a Modern version gets the newest Legacy one, anything
// else is refused with the supported list.
func (s *Server) initialize(x *exchange) (any, error) {
	var p initializeParams
	if err := decodeParams(x, &p); err != nil {
		return nil, err
	}
	if p.ClientInfo != nil {
		x.fields.ClientName, x.fields.ClientVersion = truncate(p.ClientInfo.Name, 100), truncate(p.ClientInfo.Version, 50)
	}
	version := p.ProtocolVersion
	switch {
	case slices.Contains(LegacyVersions, version):
	case slices.Contains(ModernVersions, version):
		version = LegacyVersions[0]
	default:
		requested := "missing"
		if version != "" {
			requested = quote(version)
		}
		e := jsonrpc.InvalidParams("unsupported protocolVersion (%s); supported versions: %s", requested, strings.Join(LegacyVersions, ", "))
		e.Data = map[string]any{"supported": LegacyVersions, "requested": p.ProtocolVersion}
		return nil, e
	}
	return initializeResult{
		ProtocolVersion: version,
		Capabilities:    s.capabilities(false, false),
		ServerInfo:      s.info,
		Instructions:    s.cfg.Instructions,
	}, nil
}

func quote(s string) string {
	b, _ := json.Marshal(truncate(s, 100))
	return string(b)
}
