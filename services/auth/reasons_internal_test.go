package auth

import (
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

// Ensure every refusal text names the credential, says what is wrong and
// what to do, and fits the 200 characters some clients show (Claude Code
// cuts a 401's body there; the JSON around the text takes some of them).
func TestReasons_actionable(t *testing.T) {
	reasons := map[string]string{
		"malformed":      reasonMalformed,
		"invalid":        reasonInvalid,
		"revoked":        reasonRevoked,
		"expired":        reasonExpired,
		"oauth invalid":  reasonOAuthInvalid,
		"oauth revoked":  reasonOAuthRevoked,
		"oauth expired":  reasonOAuthExpired,
		"oauth no user":  reasonOAuthNoUser,
		"jwt no user":    reasonJWTNoUser,
		"jwt refused":    JWTReason("token issued in the future"),
		"scope, longest": CEScopes.scopeReason(&models.Identity{Scopes: []string{"read_user", "read_repository", "write_repository", "read_registry", "openid", "profile"}}),
	}
	for name, r := range reasons {
		// A scope refusal ends with the token's own scopes, which may be cut.
		r, _, _ = strings.Cut(r, " Its scopes: ")
		if n := len(`{"error":"insufficient_scope","error_description":"`) + len(r); n > 200 {
			t.Errorf("%s: %d characters with its JSON, over 200: %q", name, n, r)
		}
		if !strings.Contains(strings.ToLower(r), "token") {
			t.Errorf("%s: does not name the credential: %q", name, r)
		}
		if !strings.Contains(r, "Sign in") && !strings.Contains(r, "sign in") && !strings.Contains(r, "Create") &&
			!strings.Contains(r, "create") && !strings.Contains(r, "Send") {
			t.Errorf("%s: does not say what to do: %q", name, r)
		}
	}
}
