package mcp

import "encoding/json"

// Protocol versions.
const (
	VersionModern   = "2026-07-28"
	Version20251125 = "2025-11-25"
	Version20250618 = "2025-06-18"
	Version20250326 = "2025-03-26"
)

// LegacyVersions are the handshake versions served, newest first.
var LegacyVersions = []string{Version20251125, Version20250618, Version20250326}

// ModernVersions are the per-request versions served.
var ModernVersions = []string{VersionModern}

// SupportedVersions is every version served, newest first.
var SupportedVersions = []string{VersionModern, Version20251125, Version20250618, Version20250326}

// _meta keys (2026-07-28 basic/index).
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
	MetaProgressToken      = "progressToken"
)

// Header names (Streamable HTTP, Request Metadata).
const (
	HeaderProtocolVersion = "MCP-Protocol-Version"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
	HeaderParamPrefix     = "Mcp-Param-"
)

// GitLab's tool filter headers are catalog.HeaderEnabledTools,
// catalog.HeaderEnabledToolsets and catalog.HeaderToolNamePrefix.

// Implementation is clientInfo / serverInfo.
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// resultFields are the fields every Modern result carries; Legacy results
// leave them empty (omitted). Meta is pre-encoded (Server.modernMeta), so
// a result does not build and sort a map each time.
type resultFields struct {
	ResultType string          `json:"resultType,omitempty"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// requestMeta is the parsed params._meta of a request.
type requestMeta struct {
	raw             map[string]json.RawMessage
	ProtocolVersion string
	ClientInfo      *Implementation
	Capabilities    map[string]json.RawMessage
	ProgressToken   json.RawMessage
}
