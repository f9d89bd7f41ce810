package auth_test

import (
	"errors"
	"testing"

	"gitlab.com/glmcp/glmcp/services/auth"
)

func TestGroupScopes_Authorize(t *testing.T) {
	const higher = "The request requires higher privileges than provided by the access token."
	tests := []struct {
		name      string
		group     auth.GroupScopes
		scopes    []string
		wantErr   bool
		wantScope string // needed scope in the error
		readOnly  bool
	}{
		{"CE mcp", auth.CEScopes, []string{"mcp"}, false, "", false},
		{"CE api", auth.CEScopes, []string{"api"}, false, "", false},
		{"CE read_api is read-only", auth.CEScopes, []string{"read_api"}, false, "", true},
		{"CE mcp and read_api is full", auth.CEScopes, []string{"read_api", "mcp"}, false, "", false},
		{"CE api and read_api is full", auth.CEScopes, []string{"api", "read_api"}, false, "", false},
		{"CE read_user only", auth.CEScopes, []string{"read_user"}, true, "mcp", false},
		{"CE mcp_orbit only", auth.CEScopes, []string{"mcp_orbit"}, true, "mcp", false},
		{"CE no scopes", auth.CEScopes, nil, true, "mcp", false},
		{"CE empty scope list", auth.CEScopes, []string{}, true, "mcp", false},
		{"CE scope names are case-sensitive", auth.CEScopes, []string{"MCP"}, true, "mcp", false},
		{"EE mcp_orbit", auth.EEScopes, []string{"mcp_orbit"}, false, "", false},
		{"EE mcp", auth.EEScopes, []string{"mcp"}, false, "", false},
		{"EE api", auth.EEScopes, []string{"api"}, false, "", false},
		{"EE ai_workflows", auth.EEScopes, []string{"ai_workflows"}, false, "", false},
		{"EE read_api is not enough", auth.EEScopes, []string{"read_api"}, true, "mcp_orbit", false},
		{"EE read_user only", auth.EEScopes, []string{"read_user"}, true, "mcp_orbit", false},
		{"EE no scopes", auth.EEScopes, nil, true, "mcp_orbit", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// ReadOnly starts opposite to the expectation, so Authorize
			// must set it either way.
			id := &auth.Identity{Scopes: tt.scopes, ReadOnly: !tt.readOnly}
			err := tt.group.Authorize(id)
			if !tt.wantErr {
				if err != nil {
					t.Fatalf("Authorize(%q) = %v, want nil", tt.scopes, err)
				}
				if id.ReadOnly != tt.readOnly {
					t.Fatalf("ReadOnly = %v, want %v", id.ReadOnly, tt.readOnly)
				}
				return
			}
			var ae *auth.Error
			if !errors.As(err, &ae) {
				t.Fatalf("Authorize(%q) = %v, want *auth.Error", tt.scopes, err)
			}
			want := auth.Error{Kind: auth.InsufficientScope, Presented: true, Reason: higher, Scope: tt.wantScope}
			if *ae != want {
				t.Fatalf("error = %+v, want %+v", *ae, want)
			}
		})
	}
}
