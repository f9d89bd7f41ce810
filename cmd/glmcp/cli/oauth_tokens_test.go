package cli

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/auth"
)

// Ensure oauth-tokens create prints one GitLab-shaped token, stores only
// its SHA-512 digest with GitLab's columns, and the token authenticates;
// revoke by token and by id stops it; bad input writes nothing.
func TestOAuthTokensCreateRevoke(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		b.createUser(t, "erin")
		out := b.mustRun(t, "oauth-tokens", "create", "--user", "erin", "--scopes", "mcp,read_api", "--expires-in", "600")
		if strings.Count(out, "\n") != 1 {
			t.Fatalf("stdout = %q, want one line", out)
		}
		token := strings.TrimSpace(out)
		if len(token) != 64 || strings.Trim(token, "0123456789abcdef") != "" {
			t.Fatalf("token %q is not 64 hex characters", token)
		}
		s := b.store(t)
		row, err := s.Users.FindOAuthTokenByDigest(context.Background(), auth.OAuthDigest(token))
		if err != nil {
			t.Fatalf("no row with the token's SHA-512 digest: %v", err)
		}
		if row.Scopes != "mcp read_api" || row.ExpiresIn == nil || *row.ExpiresIn != 600 || row.User == nil || row.User.Username != "erin" {
			t.Fatalf("row = %+v", row)
		}
		if age := time.Since(row.CreatedAt); age < -time.Minute || age > time.Minute {
			t.Errorf("created_at = %v, want now", row.CreatedAt)
		}
		id, err := authenticate(t, s, b.secret(t), token)
		if err != nil || id.Method != models.MethodOAuth || id.User.Username != "erin" || id.OAuthTokenID != row.ID {
			t.Fatalf("authenticate = %+v, %v; want erin by OAuth", id, err)
		}

		def := strings.TrimSpace(b.mustRun(t, "oauth-tokens", "create", "--user", "erin", "--scopes", "mcp"))
		defRow, err := s.Users.FindOAuthTokenByDigest(context.Background(), auth.OAuthDigest(def))
		if err != nil || defRow.ExpiresIn == nil || *defRow.ExpiresIn != 7200 {
			t.Fatalf("default row = %+v, %v; want expires_in 7200", defRow, err)
		}

		before := count(t, s, &models.OAuthAccessToken{})
		for _, tt := range []struct {
			args []string
			want string
		}{
			{[]string{"--user", "erin", "--scopes", "mcp", "--expires-in", "0"}, "--expires-in"},
			{[]string{"--user", "erin", "--scopes", "mcp", "--expires-in", "-5"}, "--expires-in"},
			{[]string{"--user", "erin", "--scopes", "bogus"}, `unknown scope "bogus"`},
			{[]string{"--user", "nobody", "--scopes", "mcp"}, `no user "nobody"`},
		} {
			b.wantErr(t, []string{tt.want}, append([]string{"oauth-tokens", "create"}, tt.args...)...)
		}
		if after := count(t, s, &models.OAuthAccessToken{}); after != before {
			t.Fatalf("rows %d → %d after refused creates", before, after)
		}

		b.mustRun(t, "oauth-tokens", "revoke", "--token", token)
		b.mustRun(t, "oauth-tokens", "revoke", "--id", strconv.FormatInt(defRow.ID, 10))
		for _, tok := range []string{token, def} {
			if _, err := authenticate(t, s, b.secret(t), tok); authKind(err) != auth.Unauthenticated || !strings.Contains(err.Error(), "revoked") {
				t.Errorf("revoked OAuth token: %v", err)
			}
		}
		b.wantErr(t, []string{"no such token"}, "oauth-tokens", "revoke", "--token", strings.Repeat("0", 64))
		b.wantErr(t, []string{"no OAuth token with id 999999"}, "oauth-tokens", "revoke", "--id", "999999")
		b.wantErr(t, []string{"exactly one of --id and --token"}, "oauth-tokens", "revoke")
	})
}
