package wellknown

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/gin-gonic/gin"
)

// MetadataPath is the well-known path prefix (RFC 9728 §3).
const MetadataPath = "/.well-known/oauth-protected-resource"

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
	// Resources are the endpoints described, one document each; the
	// first is also described at the root. Paths of others are 404.
	Resources []Resource
	// ExplainCredential, when set and no authorization server is
	// configured, says what is wrong with the credential a registration
	// attempt carries ("" when it carries none); its words then lead the
	// registration error's description.
	ExplainCredential func(*gin.Context) string
}

// Resource is one protected endpoint (a route group).
type Resource struct {
	// Path is the endpoint's path, e.g. /api/v4/mcp.
	Path string
	// Name is the resource_name.
	Name string
	// Scopes are advertised in scopes_supported: the minimal set for
	// basic use of the endpoint (the MCP authorization spec's reading of
	// the field).
	Scopes []string
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

// Metadata returns the document describing r, with
// bearer_methods_supported ["header"].
func Metadata(cfg Config, r Resource) ResourceMetadata {
	return ResourceMetadata{
		Resource:               ResourceURL(cfg.PublicURL, r.Path),
		AuthorizationServers:   append([]string(nil), cfg.AuthorizationServers...),
		ScopesSupported:        append([]string{}, r.Scopes...),
		BearerMethodsSupported: []string{"header"},
		ResourceName:           r.Name,
	}
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
