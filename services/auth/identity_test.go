package auth_test

import (
	"errors"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/auth"
)

func TestGroupScopes_Authorize(t *testing.T) {
	const (
		ceAccepts = "Personal access token lacks a scope this endpoint accepts (mcp or api; read_api for read-only tools). Create a token with the mcp scope. Its scopes: "
		eeAccepts = "Personal access token lacks a scope this endpoint accepts (mcp_orbit, mcp, api or ai_workflows). Create a token with the mcp scope. Its scopes: "
	)
	tests := []struct {
		name      string
		group     auth.GroupScopes
		scopes    []string
		wantErr   bool
		wantScope string // needed scope in the error
		readOnly  bool
		reason    string
	}{
		{"CE mcp", auth.CEScopes, []string{"mcp"}, false, "", false, ""},
		{"CE api", auth.CEScopes, []string{"api"}, false, "", false, ""},
		{"CE read_api is read-only", auth.CEScopes, []string{"read_api"}, false, "", true, ""},
		{"CE mcp and read_api is full", auth.CEScopes, []string{"read_api", "mcp"}, false, "", false, ""},
		{"CE api and read_api is full", auth.CEScopes, []string{"api", "read_api"}, false, "", false, ""},
		{"CE read_user only", auth.CEScopes, []string{"read_user"}, true, "mcp", false, ceAccepts + "read_user."},
		{"CE mcp_orbit only", auth.CEScopes, []string{"mcp_orbit"}, true, "mcp", false, ceAccepts + "mcp_orbit."},
		{"CE no scopes", auth.CEScopes, nil, true, "mcp", false, ceAccepts + "none."},
		{"CE empty scope list", auth.CEScopes, []string{}, true, "mcp", false, ceAccepts + "none."},
		{"CE scope names are case-sensitive", auth.CEScopes, []string{"MCP"}, true, "mcp", false, ceAccepts + "MCP."},
		{"EE mcp_orbit", auth.EEScopes, []string{"mcp_orbit"}, false, "", false, ""},
		{"EE mcp", auth.EEScopes, []string{"mcp"}, false, "", false, ""},
		{"EE api", auth.EEScopes, []string{"api"}, false, "", false, ""},
		{"EE ai_workflows", auth.EEScopes, []string{"ai_workflows"}, false, "", false, ""},
		{"EE read_api is not enough", auth.EEScopes, []string{"read_api"}, true, "mcp_orbit", false, eeAccepts + "read_api."},
		{"EE read_user only", auth.EEScopes, []string{"read_user", "read_repository"}, true, "mcp_orbit", false, eeAccepts + "read_user, read_repository."},
		{"EE no scopes", auth.EEScopes, nil, true, "mcp_orbit", false, eeAccepts + "none."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// ReadOnly starts opposite to the expectation, so Authorize
			// must set it either way.
			id := &models.Identity{Scopes: tt.scopes, ReadOnly: !tt.readOnly}
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
			want := auth.Error{Kind: auth.InsufficientScope, Presented: true, Reason: tt.reason, Scope: tt.wantScope}
			if *ae != want {
				t.Fatalf("error = %+v, want %+v", *ae, want)
			}
		})
	}
}

// Ensure an OAuth token's scope refusal asks for a new sign-in with the
// scope the group asks for, and a long scope list is cut short.
func TestGroupScopes_AuthorizeOAuth(t *testing.T) {
	id := &models.Identity{Method: models.MethodOAuth, Scopes: []string{"openid", "profile", "email", "read_user", "read_repository", "write_repository", "sudo"}}
	err := auth.EEScopes.Authorize(id)
	var ae *auth.Error
	if !errors.As(err, &ae) {
		t.Fatalf("Authorize = %v, want *auth.Error", err)
	}
	const want = "OAuth access token lacks a scope this endpoint accepts (mcp_orbit, mcp, api or ai_workflows). " +
		"Sign in again granting the mcp_orbit scope. Its scopes: openid, profile, email, read_user, read_repository (+2 more)."
	if ae.Reason != want {
		t.Fatalf("reason = %q, want %q", ae.Reason, want)
	}
}
