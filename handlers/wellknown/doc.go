// Package wellknown serves OAuth 2.0 Protected Resource Metadata (RFC 9728)
// for glmcp's MCP endpoints; the Bearer challenges that point clients at
// it (RFC 6750 §3, RFC 9728 §5.1) are built by the authentication
// middleware, which uses [MetadataURL].
//
// With the router's two groups (Config.Resources, the CE group first)
// documents are served at
//
//	/.well-known/oauth-protected-resource                    the CE endpoint
//	/.well-known/oauth-protected-resource/api/v4/mcp         the CE endpoint
//	/.well-known/oauth-protected-resource/api/v4/orbit/mcp   the EE endpoint (EE only)
//
// The path-inserted forms follow RFC 9728 §3.1; the MCP authorization spec
// has clients try them first, then the root. The root document describes
// the CE endpoint (resource = PUBLIC_URL/api/v4/mcp), as GitLab's does:
// strictly, RFC 9728 §3.3 wants the root document's resource to be the bare
// origin, but glmcp serves no resource there and clients that reach the
// root are looking for the MCP endpoint. Every 401 names the
// path-inserted URL of its own group, so clients that follow the challenge
// never need the root.
//
// Responses are public and cacheable (Cache-Control: public,
// max-age=3600) and readable from browsers (Access-Control-Allow-Origin: *;
// OPTIONS preflight answered with 204). The package holds no state and
// imports no store.
package wellknown
