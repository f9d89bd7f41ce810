package mcp

import (
	"encoding/json"
	"slices"
	"strings"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
)

type initializeParams struct {
	metaParams
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

// initialize negotiates a handshake version (MCP lifecycle, version
// negotiation): a supported one is echoed; any other, older (2024-11-05),
// newer (a future date) or a Modern one (which has no handshake), gets the
// newest Legacy version, and the client decides whether it can speak it.
// Only a missing or empty version is refused: the client named none.
func (s *Server) initialize(x *exchange, p *initializeParams) (any, error) {
	if p.ClientInfo != nil {
		x.fields.ClientName, x.fields.ClientVersion = truncate(p.ClientInfo.Name, 100), truncate(p.ClientInfo.Version, 50)
	}
	version := p.ProtocolVersion
	if version == "" {
		supported := strings.Join(LegacyVersions, ", ")
		e := jsonrpc.InvalidParams("missing required parameter 'protocolVersion'; supported versions: %s", supported)
		e.Data = map[string]any{
			"params":    "Missing required parameter 'protocolVersion'. Supported: " + supported,
			"supported": LegacyVersions,
		}
		return nil, e
	}
	if !slices.Contains(LegacyVersions, version) {
		version = LegacyVersions[0]
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

// ping answers Legacy ping with {}.
func (s *Server) ping(*exchange, *noParams) (any, error) { return struct{}{}, nil }
