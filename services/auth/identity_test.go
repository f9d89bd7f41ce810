package auth_test

import (
	"errors"
	"testing"

	"gitlab.com/glmcp/glmcp/services/auth"
)

func TestGroupScopes_Authorize(t *testing.T) {
	const (
		ceAccepts = "; this endpoint accepts mcp or api (read_api: read-only tools). Create a token with the mcp scope."
		eeAccepts = "; this endpoint accepts mcp_orbit, mcp, api or ai_workflows. Create a token with the mcp scope."
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
		{"CE read_user only", auth.CEScopes, []string{"read_user"}, true, "mcp", false, "Personal access token has the scopes read_user" + ceAccepts},
		{"CE mcp_orbit only", auth.CEScopes, []string{"mcp_orbit"}, true, "mcp", false, "Personal access token has the scopes mcp_orbit" + ceAccepts},
		{"CE no scopes", auth.CEScopes, nil, true, "mcp", false, "Personal access token has no scope" + ceAccepts},
		{"CE empty scope list", auth.CEScopes, []string{}, true, "mcp", false, "Personal access token has no scope" + ceAccepts},
		{"CE scope names are case-sensitive", auth.CEScopes, []string{"MCP"}, true, "mcp", false, "Personal access token has the scopes MCP" + ceAccepts},
		{"EE mcp_orbit", auth.EEScopes, []string{"mcp_orbit"}, false, "", false, ""},
		{"EE mcp", auth.EEScopes, []string{"mcp"}, false, "", false, ""},
		{"EE api", auth.EEScopes, []string{"api"}, false, "", false, ""},
		{"EE ai_workflows", auth.EEScopes, []string{"ai_workflows"}, false, "", false, ""},
		{"EE read_api is not enough", auth.EEScopes, []string{"read_api"}, true, "mcp_orbit", false, "Personal access token has the scopes read_api" + eeAccepts},
		{"EE read_user only", auth.EEScopes, []string{"read_user", "read_repository"}, true, "mcp_orbit", false, "Personal access token has the scopes read_user, read_repository" + eeAccepts},
		{"EE no scopes", auth.EEScopes, nil, true, "mcp_orbit", false, "Personal access token has no scope" + eeAccepts},
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
	id := &auth.Identity{Method: auth.MethodOAuth, Scopes: []string{"openid", "profile", "email", "read_user", "read_repository", "write_repository", "sudo"}}
	err := auth.EEScopes.Authorize(id)
	var ae *auth.Error
	if !errors.As(err, &ae) {
		t.Fatalf("Authorize = %v, want *auth.Error", err)
	}
	const want = "OAuth access token has the scopes openid, profile, email, read_user, read_repository, ...; " +
		"this endpoint accepts mcp_orbit, mcp, api or ai_workflows. Sign in again granting the mcp_orbit scope."
	if ae.Reason != want || len(ae.Reason) > 200 {
		t.Fatalf("reason = %q (%d characters), want %q", ae.Reason, len(ae.Reason), want)
	}
}
