package cli

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/auth"
)

// Ensure tokens create prints the token and nothing else, stores only its
// digest, and the token authenticates as its user with its scopes.
func TestTokensCreate(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		b.createUser(t, "erin")
		expires := today().AddDate(0, 0, 10).Format("2006-01-02")
		out := b.mustRun(t, "tokens", "create", "--user", "erin", "--scopes", "mcp, read_api,mcp", "--name", "laptop", "--expires-at", expires)

		if !strings.HasSuffix(out, "\n") || strings.Count(out, "\n") != 1 {
			t.Fatalf("stdout = %q, want exactly one line", out)
		}
		token := strings.TrimSuffix(out, "\n")
		parsed, err := auth.DefaultTokenFormat().Parse(token)
		if !strings.HasPrefix(token, "glpat-") || err != nil || parsed.Kind != auth.FormatVersioned {
			t.Fatalf("token %q is not a versioned routable glpat- token: %+v, %v", token, parsed, err)
		}

		s := b.store(t)
		row, err := s.Users.FindTokenByDigest(context.Background(), auth.Digest(token, b.secret(t)))
		if err != nil {
			t.Fatalf("no row with the token's digest: %v", err)
		}
		if row.TokenDigest == token || strings.Contains(row.TokenDigest, token) {
			t.Fatalf("the store holds the token in clear")
		}
		if row.Name != "laptop" || row.User == nil || row.User.Username != "erin" || row.Revoked {
			t.Errorf("row = name %q user %v revoked %t, want laptop/erin/false", row.Name, row.User, row.Revoked)
		}
		if got, want := []string(row.Scopes), []string{"mcp", "read_api"}; !slices.Equal(got, want) {
			t.Errorf("scopes = %v, want %v (trimmed, deduplicated, in order)", got, want)
		}
		if row.ExpiresAt == nil || row.ExpiresAt.Format("2006-01-02") != expires {
			t.Errorf("expires_at = %v, want %s", row.ExpiresAt, expires)
		}
		id, err := authenticate(t, s, b.secret(t), token)
		if err != nil {
			t.Fatalf("the printed token does not authenticate: %v", err)
		}
		if id.User.Username != "erin" || id.TokenID != row.ID {
			t.Errorf("identity = %s/%d, want erin/%d", id.User.Username, id.TokenID, row.ID)
		}
	})
}

// Ensure a token without --expires-at expires in 30 days and gets the
// default name.
func TestTokensCreate_defaults(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		b.createUser(t, "erin")
		token := strings.TrimSpace(b.mustRun(t, "tokens", "create", "--user", "erin", "--scopes", "api"))
		row, err := b.store(t).Users.FindTokenByDigest(context.Background(), auth.Digest(token, b.secret(t)))
		if err != nil {
			t.Fatal(err)
		}
		if want := today().AddDate(0, 0, 30); row.ExpiresAt == nil || !row.ExpiresAt.Equal(want) {
			t.Errorf("expires_at = %v, want %s", row.ExpiresAt, want.Format("2006-01-02"))
		}
		if row.Name != "glmcp" {
			t.Errorf("name = %q, want glmcp", row.Name)
		}
	})
}

// Ensure every invalid tokens create is refused with a clear message and
// writes no row.
func TestTokensCreate_invalid(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		b.createUser(t, "erin")
		s := b.store(t)
		day := func(n int) string { return today().AddDate(0, 0, n).Format("2006-01-02") }
		tests := []struct {
			name string
			args []string
			want []string
		}{
			{"expiry in the past", []string{"--user", "erin", "--scopes", "mcp", "--expires-at", "2000-01-01"}, []string{"2000-01-01", "must be after today"}},
			{"expiry today", []string{"--user", "erin", "--scopes", "mcp", "--expires-at", day(0)}, []string{day(0), "must be after today"}},
			{"expiry over 365 days", []string{"--user", "erin", "--scopes", "mcp", "--expires-at", day(366)}, []string{"at most 365 days ahead", day(365)}},
			{"malformed expiry", []string{"--user", "erin", "--scopes", "mcp", "--expires-at", "next week"}, []string{`"next week"`, "YYYY-MM-DD"}},
			{"impossible date", []string{"--user", "erin", "--scopes", "mcp", "--expires-at", "2027-02-30"}, []string{"YYYY-MM-DD"}},
			{"unknown scope", []string{"--user", "erin", "--scopes", "mcp,sudo_everything"}, []string{`unknown scope "sudo_everything"`, "known:"}},
			{"no scope", []string{"--user", "erin", "--scopes", " , "}, []string{"at least one scope"}},
			{"unknown user", []string{"--user", "nobody", "--scopes", "mcp"}, []string{`no user "nobody"`}},
			{"missing user flag", []string{"--scopes", "mcp"}, []string{`"user"`}},
			{"name too long", []string{"--user", "erin", "--scopes", "mcp", "--name", strings.Repeat("n", 256)}, []string{"--name", "255"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				before := count(t, s, &models.PersonalAccessToken{})
				b.wantErr(t, tt.want, append([]string{"tokens", "create"}, tt.args...)...)
				if after := count(t, s, &models.PersonalAccessToken{}); after != before {
					t.Errorf("token rows: %d before, %d after; a refused create must write nothing", before, after)
				}
			})
		}
		// The longest allowed lifetime is accepted.
		b.mustRun(t, "tokens", "create", "--user", "erin", "--scopes", "mcp", "--expires-at", day(365))
	})
}

// Ensure tokens list shows the tokens' metadata and never a token or its
// digest.
func TestTokensList(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		b.createUser(t, "erin")
		b.createUser(t, "frank")
		t1 := strings.TrimSpace(b.mustRun(t, "tokens", "create", "--user", "erin", "--scopes", "mcp", "--name", "erin-laptop"))
		t2 := strings.TrimSpace(b.mustRun(t, "tokens", "create", "--user", "frank", "--scopes", "api", "--name", "frank-ci"))

		all := b.mustRun(t, "tokens", "list")
		for _, secret := range []string{t1, t2, auth.Digest(t1, b.secret(t)), auth.Digest(t2, b.secret(t))} {
			if strings.Contains(all, secret) || strings.Contains(all, secret[:20]) {
				t.Fatalf("tokens list prints a token or digest:\n%s", all)
			}
		}
		rows := lines(all)
		if len(rows) != 3 || !strings.HasPrefix(rows[0], "ID") {
			t.Fatalf("tokens list = %q, want a header and 2 rows", all)
		}
		if !strings.Contains(all, "erin-laptop") || !strings.Contains(all, "frank-ci") {
			t.Errorf("tokens list misses a token name:\n%s", all)
		}

		erin := b.mustRun(t, "tokens", "list", "--user", "erin")
		if rows := lines(erin); len(rows) != 2 || !strings.Contains(rows[1], "erin-laptop") {
			t.Errorf("tokens list --user erin = %q, want only erin's token", erin)
		}
		b.wantErr(t, []string{`no user "nobody"`}, "tokens", "list", "--user", "nobody")
	})
}

// Ensure tokens revoke works by token and by id, and revoked tokens stop
// authenticating.
func TestTokensRevoke(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		b.createUser(t, "erin")
		byToken := strings.TrimSpace(b.mustRun(t, "tokens", "create", "--user", "erin", "--scopes", "mcp"))
		byID := strings.TrimSpace(b.mustRun(t, "tokens", "create", "--user", "erin", "--scopes", "mcp"))
		kept := strings.TrimSpace(b.mustRun(t, "tokens", "create", "--user", "erin", "--scopes", "mcp"))
		s := b.store(t)
		secret := b.secret(t)
		row, err := s.Users.FindTokenByDigest(context.Background(), auth.Digest(byID, secret))
		if err != nil {
			t.Fatal(err)
		}

		if out := b.mustRun(t, "tokens", "revoke", "--token", byToken); out != "" {
			t.Errorf("revoke printed %q, want nothing", out)
		}
		b.mustRun(t, "tokens", "revoke", "--id", strconv.FormatInt(row.ID, 10))

		for _, tok := range []string{byToken, byID} {
			if _, err := authenticate(t, s, secret, tok); authKind(err) != auth.Unauthenticated || !strings.Contains(err.Error(), "revoked") {
				t.Errorf("revoked token authenticates or fails oddly: %v", err)
			}
		}
		if _, err := authenticate(t, s, secret, kept); err != nil {
			t.Errorf("a token that was not revoked stopped working: %v", err)
		}

		before := count(t, s, &models.PersonalAccessToken{})
		b.wantErr(t, []string{"no such token"}, "tokens", "revoke", "--token", "glpat-unknown")
		b.wantErr(t, []string{"no token with id 999999"}, "tokens", "revoke", "--id", "999999")
		b.wantErr(t, []string{"exactly one of --id and --token"}, "tokens", "revoke")
		b.wantErr(t, []string{"exactly one of --id and --token"}, "tokens", "revoke", "--id", "1", "--token", kept)
		if after := count(t, s, &models.PersonalAccessToken{}); after != before {
			t.Errorf("token rows changed from %d to %d", before, after)
		}
		if _, err := authenticate(t, s, secret, kept); err != nil {
			t.Errorf("a refused revoke touched another token: %v", err)
		}
	})
}

// Ensure an administrative command at the default log level prints its
// result on stdout and nothing on stderr: the store's routine notes (the
// repository recovery report) are not an operator's business, while
// --log-level debug still shows them.
func TestCommand_quietStderr(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		b.createUser(t, "erin")
		out, errOut, err := b.runEnv(t, map[string]string{"GLMCP_LOG_LEVEL": "info"}, "tokens", "create", "--user", "erin", "--scopes", "mcp")
		if err != nil || !strings.HasPrefix(out, "glpat-") {
			t.Fatalf("tokens create = %q, %v", out, err)
		}
		if errOut != "" {
			t.Errorf("stderr at log level info = %q, want nothing", errOut)
		}
		_, errOut, err = b.runEnv(t, map[string]string{"GLMCP_LOG_LEVEL": "debug"}, "tokens", "create", "--user", "erin", "--scopes", "mcp")
		if err != nil || !strings.Contains(errOut, "repository recovery done") {
			t.Errorf("stderr at log level debug = %q, %v; want the recovery report", errOut, err)
		}
	})
}
