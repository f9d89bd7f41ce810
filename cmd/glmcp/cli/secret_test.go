package cli

import (
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/auth"
)

const otherSecret = "another-secret-of-at-least-32-characters"

// Ensure every command refuses a secret other than the database's, with a
// message saying how to rotate, and writes nothing (the bug: tokens create
// --secret other printed a token the server never accepts).
func TestSecretMismatchRefused(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		b.createUser(t, "erin")
		good := strings.TrimSpace(b.mustRun(t, "tokens", "create", "--user", "erin", "--scopes", "mcp"))
		s := b.store(t)
		before := count(t, s, &models.PersonalAccessToken{})
		wants := []string{"not the secret this database was set up with", "glmcp secret rotate --yes"}
		for _, args := range [][]string{
			{"tokens", "create", "--user", "erin", "--scopes", "mcp", "--secret", otherSecret},
			{"oauth-tokens", "create", "--user", "erin", "--scopes", "mcp", "--secret", otherSecret},
			{"seed", "--demo", "--secret", otherSecret},
			{"serve", "--listen", "127.0.0.1:0", "--secret", otherSecret},
		} {
			b.wantErr(t, wants, args...)
		}
		if after := count(t, s, &models.PersonalAccessToken{}); after != before {
			t.Fatalf("token rows %d → %d: a refused command wrote a token", before, after)
		}
		if n := count(t, s, &models.OAuthAccessToken{}); n != 0 {
			t.Fatalf("%d OAuth token rows written by a refused command", n)
		}
		if _, err := authenticate(t, s, b.secret(t), good); err != nil {
			t.Fatalf("the database's own token stopped working: %v", err)
		}
	})
}

// Ensure secret rotate needs --yes, makes the new secret the database's,
// revokes every personal access token (their digests cannot verify) and
// keeps OAuth tokens; a second run changes nothing.
func TestSecretRotate(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		b.createUser(t, "erin")
		oldPAT := strings.TrimSpace(b.mustRun(t, "tokens", "create", "--user", "erin", "--scopes", "mcp"))
		oauthTok := strings.TrimSpace(b.mustRun(t, "oauth-tokens", "create", "--user", "erin", "--scopes", "mcp"))
		oldSecret := b.secret(t)

		b.wantErr(t, []string{"--yes"}, "secret", "rotate")
		// With GLMCP_SECRET set (postgres leg) the new one is given; on the
		// embedded store, with none set, a new one is generated.
		args := []string{"secret", "rotate", "--yes"}
		newSecret := ""
		if b.dsn != "" {
			newSecret = otherSecret
			args = append(args, "--secret", newSecret)
		}
		out := b.mustRun(t, args...)
		if !strings.Contains(out, "revoked 1 personal access tokens") {
			t.Fatalf("rotate printed %q", out)
		}
		if b.dsn != "" {
			b.env["GLMCP_SECRET"] = newSecret
		} else {
			newSecret = b.secret(t)
			if newSecret == oldSecret || len(newSecret) < 32 {
				t.Fatalf("generated secret not replaced")
			}
		}
		s := b.store(t)
		if _, err := authenticate(t, s, newSecret, oldPAT); authKind(err) != auth.Unauthenticated {
			t.Fatalf("old token after rotation: %v, want refused", err)
		}
		if _, err := authenticate(t, s, newSecret, oauthTok); err != nil {
			t.Fatalf("OAuth token after rotation: %v", err)
		}
		fresh := strings.TrimSpace(b.mustRun(t, "tokens", "create", "--user", "erin", "--scopes", "mcp"))
		if _, err := authenticate(t, s, newSecret, fresh); err != nil {
			t.Fatalf("token minted after rotation: %v", err)
		}
		if b.dsn != "" {
			b.wantErr(t, []string{"not the secret this database was set up with"}, "tokens", "create", "--user", "erin", "--scopes", "mcp", "--secret", testSecret)
			if out := b.mustRun(t, "secret", "rotate", "--yes"); !strings.Contains(out, "nothing changed") {
				t.Fatalf("second rotate printed %q", out)
			}
			if _, err := authenticate(t, s, newSecret, fresh); err != nil {
				t.Fatalf("a no-op rotation revoked a token: %v", err)
			}
		}
	})
}
