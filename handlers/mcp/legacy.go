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

// initialize negotiates a handshake version: a supported one is echoed, a
// client asking for a Modern version gets the newest Legacy one, anything
// else is refused with the supported list.
func (s *Server) initialize(x *exchange, p *initializeParams) (any, error) {
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

// ping answers Legacy ping with {}.
func (s *Server) ping(*exchange, *noParams) (any, error) { return struct{}{}, nil }
