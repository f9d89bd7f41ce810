package gitlab

// ServerVersion describes the running server for get_mcp_server_version.
type ServerVersion struct {
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
	Edition  string `json:"edition"`
}
