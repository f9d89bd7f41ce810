package wellknown

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Well-known path prefix (RFC 9728 §3) and the route groups described.
const (
	MetadataPath = "/.well-known/oauth-protected-resource"
	CEPath       = "/api/v4/mcp"
	EEPath       = "/api/v4/orbit/mcp"
)

// Scopes advertised in scopes_supported: the minimal set for basic use of
// each endpoint (the MCP authorization spec's reading of the field).
var (
	ceScopes = []string{"mcp"}
	eeScopes = []string{"mcp_orbit", "mcp"}
)

// ResourceMetadata is an RFC 9728 §2 protected resource metadata document.
type ResourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers,omitempty"`
	ScopesSupported        []string `json:"scopes_supported"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceName           string   `json:"resource_name,omitempty"`
	ResourceDocumentation  string   `json:"resource_documentation,omitempty"`
}

// Config configures Register.
type Config struct {
	// PublicURL is the external base URL, e.g. https://gitlab.example.com
	// (a trailing slash is ignored). cmd validates it.
	PublicURL string
	// AuthorizationServers are the issuer URLs of the authorization
	// servers; omitted from the documents when empty (PATs only).
	AuthorizationServers []string
	// EEEnabled serves the EE (orbit) document; otherwise it is 404.
	EEEnabled bool
}

// MetadataURL returns the metadata URL of the resource at groupPath
// (RFC 9728 §3.1: the well-known path inserted before the resource's path).
// An empty groupPath gives the root document's URL.
func MetadataURL(publicURL, groupPath string) string {
	return strings.TrimRight(publicURL, "/") + MetadataPath + groupPath
}

// ResourceURL returns the canonical URL of the endpoint at groupPath: the
// resource identifier of its metadata and the audience its tokens must name.
func ResourceURL(publicURL, groupPath string) string {
	return strings.TrimRight(publicURL, "/") + groupPath
}

// Metadata returns the document describing the endpoint at groupPath
// (CEPath or EEPath): scopes_supported is ["mcp"] for CE and
// ["mcp_orbit", "mcp"] for EE, bearer_methods_supported ["header"].
func Metadata(cfg Config, groupPath string) ResourceMetadata {
	m := ResourceMetadata{
		Resource:               ResourceURL(cfg.PublicURL, groupPath),
		AuthorizationServers:   append([]string(nil), cfg.AuthorizationServers...),
		ScopesSupported:        append([]string(nil), ceScopes...),
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "GitLab MCP Server",
	}
	if groupPath == EEPath {
		m.ScopesSupported = append([]string(nil), eeScopes...)
		m.ResourceName = "GitLab Orbit MCP Server"
	}
	return m
}

// encode renders m without HTML escaping (URLs keep their & and <>).
func encode(m ResourceMetadata) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	// Strings and string slices always encode: there is no error to handle.
	_ = enc.Encode(m)
	return bytes.TrimRight(buf.Bytes(), "\n")
}
