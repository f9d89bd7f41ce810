package spec

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"hash/crc32"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/app"
	"gitlab.com/glmcp/glmcp/models"
	authsvc "gitlab.com/glmcp/glmcp/services/auth"
)

// gitlabToken builds a routable personal access token the way GitLab's
// generator does (versioned or not), with the routing payload lines given
// in order; fix recomputes the checksum after tampering.
func gitlabToken(t testing.TB, routing string, versioned bool) string {
	t.Helper()
	random := make([]byte, 16)
	if _, err := rand.Read(random); err != nil {
		t.Fatal(err)
	}
	raw := append(append(random, routing...), byte(len(routing)))
	b64 := base64.RawURLEncoding.EncodeToString(raw)
	s := "glpat-" + b64 + "."
	if versioned {
		s += "01."
	}
	n := strconv.FormatInt(int64(len(b64)), 36)
	return fixCRC(s + strings.Repeat("0", 2-len(n)) + n + "0000000")
}

// fixCRC replaces the last 7 characters with the CRC of the rest.
func fixCRC(tok string) string {
	signed := tok[:len(tok)-7]
	c := strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte(signed))), 36)
	return signed + strings.Repeat("0", 7-len(c)) + c
}

// storePAT stores tok's digest for username with scopes, as a GitLab
// instance sharing the secret would.
func storePAT(t testing.TB, h *harness, username, tok string, scopes ...string) {
	t.Helper()
	if err := h.Env.Store.Users.CreateToken(context.Background(), &models.PersonalAccessToken{
		UserID: authUser(t, h, username).ID, Name: "gitlab", TokenDigest: authsvc.Digest(tok, h.Env.Secret),
		Scopes: models.StringList(scopes), ExpiresAt: authDay(30),
	}); err != nil {
		t.Fatalf("store token: %v", err)
	}
}

// TestAuth_tokenFormats: every GitLab format is accepted with a correct
// checksum and its digest stored; a wrong checksum, length field or
// version is malformed (decided before any query); a routable token whose
// `u` is not its row's owner reads exactly as an unknown token.
func TestAuth_tokenFormats(t *testing.T) {
	h := startServer(t, withEE())
	alice := authUser(t, h, "alice")
	u := "u:" + strconv.FormatInt(alice.ID, 36)
	bobU := "u:" + strconv.FormatInt(authUser(t, h, "bob").ID, 36)

	routable := gitlabToken(t, "o:1\n"+u, false)
	versioned := gitlabToken(t, "c:5\no:1\n"+u, true)
	legacy := "glpat-" + "Zq3_xE6-gH9jK2mN5pQ8"
	minted, _ := authMint(t, h, "alice", []string{"mcp", "mcp_orbit"}, authDay(7))
	// glmcp's earlier format (glpat-<32>.01.<crc of all before the last dot>).
	body := "glpat-" + base64.RawURLEncoding.EncodeToString([]byte("glmcp v0 token, 24 bytes")) + ".01"
	c := strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte(body))), 36)
	oldGlmcp := body + "." + strings.Repeat("0", 7-len(c)) + c
	wrongUser := gitlabToken(t, "o:1\n"+bobU, true)
	for _, tok := range []string{routable, versioned, legacy, oldGlmcp, wrongUser} {
		storePAT(t, h, "alice", tok, "mcp", "mcp_orbit")
	}
	if !strings.Contains(minted, ".01.") || len(minted) < 50 {
		t.Fatalf("minted token %q is not versioned routable", minted)
	}

	b64 := versioned[len("glpat-"):strings.Index(versioned, ".")]
	lenField := versioned[len(versioned)-9 : len(versioned)-7]
	wrongLen := strconv.FormatInt(int64(len(b64)+4), 36)
	// flipLast changes a token's last checksum character.
	flipLast := func(tok string) string {
		if tok[len(tok)-1] == '0' {
			return tok[:len(tok)-1] + "1"
		}
		return tok[:len(tok)-1] + "0"
	}
	refused := []struct{ name, tok, reason string }{
		{"versioned: wrong checksum", flipLast(versioned), reasonMalformed},
		{"routable: wrong checksum", flipLast(routable), reasonMalformed},
		{"wrong length field", fixCRC(strings.Replace(versioned, ".01."+lenField, ".01."+wrongLen, 1)), reasonMalformed},
		{"wrong version", fixCRC(strings.Replace(versioned, ".01.", ".02.", 1)), reasonMalformed},
		{"u names another user", wrongUser, reasonInvalid},
		{"unknown versioned token", gitlabToken(t, "o:1\n"+u, true), reasonInvalid},
	}

	// Refusals by shape never touch the store: they answer with the store
	// closed; the lookups above it already proved the others need it.
	for _, g := range h.groups() {
		for _, tok := range []string{routable, versioned, legacy, minted, oldGlmcp} {
			authExpectOK(t, authPost(t, h, g.URL, auth(tok)))
			authExpectOK(t, authPost(t, h, g.URL, http.Header{"Private-Token": {tok}}))
		}
		for _, tt := range refused {
			t.Run(g.Name+"/"+tt.name, func(t *testing.T) {
				expect401(t, h, g, authPost(t, h, g.URL, auth(tt.tok)), tt.reason)
			})
		}
	}
	// The u check comes before expiry and revocation: nothing about the
	// row leaks.
	if err := h.Env.Store.Close(); err != nil {
		t.Fatal(err)
	}
	g := h.groups()[0]
	for _, tt := range refused[:4] {
		expect401(t, h, g, authPost(t, h, g.URL, auth(tt.tok)), tt.reason)
	}
}

// TestAuth_instancePrefix: with GLMCP_INSTANCE_TOKEN_PREFIX minted tokens
// carry "<instance>-glpat-", and tokens with GitLab's default prefix keep
// working.
func TestAuth_instancePrefix(t *testing.T) {
	h := startServer(t, func(c *app.Config) { c.InstanceTokenPrefix = "acme"; c.CellID = "7" })
	tok, _ := authMint(t, h, "alice", []string{"mcp"}, authDay(7))
	if !strings.HasPrefix(tok, "acme-glpat-") {
		t.Fatalf("minted %q, want the acme-glpat- prefix", tok)
	}
	p, err := h.Env.Tokens.Parse(tok)
	if err != nil || p.Routing["c"] != 7 || p.Routing["o"] != 1 || p.Routing["u"] != authUser(t, h, "alice").ID {
		t.Fatalf("Parse(%q) = %+v, %v; want c 7, o 1, u alice", tok, p, err)
	}
	g := h.groups()[0]
	authExpectOK(t, authPost(t, h, g.URL, auth(tok)))
	authExpectOK(t, authPost(t, h, g.URL, auth(h.Tokens["alice"])))
	expect401(t, h, g, authPost(t, h, g.URL, auth("other-"+tok[len("acme-"):])), reasonMalformed)
}

// TestAuth_oauthAccessTokens: a GitLab OAuth access token is looked up by
// its SHA-512 digest (older rows: the PBKDF2 form); expiry is created_at +
// expires_in; revoked tokens, blocked owners and scopes are judged as for
// personal access tokens.
func TestAuth_oauthAccessTokens(t *testing.T) {
	h := startServer(t, withEE())
	ctx := context.Background()
	st := h.Env.Store
	mint := func(username, scopes string, created time.Time, expiresIn int, digest func(string) string) string {
		t.Helper()
		raw, err := authsvc.GenerateOAuthToken(nil)
		if err != nil {
			t.Fatal(err)
		}
		id := authUser(t, h, username).ID
		if err := st.Users.CreateOAuthToken(ctx, &models.OAuthAccessToken{ResourceOwnerID: &id, Token: digest(raw),
			Scopes: scopes, CreatedAt: created, ExpiresIn: &expiresIn}); err != nil {
			t.Fatal(err)
		}
		return raw
	}
	now := time.Now().UTC()
	fresh := mint("alice", "mcp", now, 7200, authsvc.OAuthDigest)
	legacy := mint("alice", "api", now, 7200, authsvc.OAuthLegacyDigest)
	readOnly := mint("alice", "read_api", now, 7200, authsvc.OAuthDigest)
	expired := mint("alice", "mcp", now.Add(-2*time.Hour-time.Second), 7200, authsvc.OAuthDigest)
	wrongScope := mint("alice", "read_user openid", now, 7200, authsvc.OAuthDigest)
	blocked := mint("dave", "mcp", now, 7200, authsvc.OAuthDigest)
	revoked := mint("alice", "mcp", now, 7200, authsvc.OAuthDigest)
	var revokedID int64
	if row, err := st.Users.FindOAuthTokenByDigest(ctx, authsvc.OAuthDigest(revoked)); err != nil {
		t.Fatal(err)
	} else {
		revokedID = row.ID
	}
	if err := st.Users.RevokeOAuthToken(ctx, revokedID); err != nil {
		t.Fatal(err)
	}
	ce, ee := h.groups()[0], h.groups()[1]

	authExpectOK(t, authPost(t, h, ce.URL, auth(fresh)))
	authExpectOK(t, authPost(t, h, ee.URL, auth(fresh)))
	authExpectOK(t, authPost(t, h, ce.URL, auth(legacy)))
	authExpectOK(t, authPost(t, h, ce.URL, auth(readOnly)))
	expect403Scope(t, h, ee, authPost(t, h, ee.URL, auth(readOnly)), "mcp")
	expect403Scope(t, h, ce, authPost(t, h, ce.URL, auth(wrongScope)), "mcp")
	expect401(t, h, ce, authPost(t, h, ce.URL, auth(expired)), reasonOAuthExpired)
	expect401(t, h, ce, authPost(t, h, ce.URL, auth(revoked)), reasonOAuthRevoked)
	expect401(t, h, ce, authPost(t, h, ce.URL, auth(strings.Repeat("ab", 32))), reasonOAuthInvalid)
	expect403User(t, authPost(t, h, ce.URL, auth(blocked)), reasonBlocked)

	// A read_api OAuth token lists read-only tools only, as a PAT does.
	r := h.send(t, call{URL: ce.URL, User: "alice", Method: "tools/list"})
	all := len(r.result(t)["tools"].([]any))
	r = h.send(t, call{URL: ce.URL, Method: "tools/list", Header: auth(readOnly)})
	if n := len(r.result(t)["tools"].([]any)); n == 0 || n >= all {
		t.Fatalf("read_api OAuth token lists %d tools of %d, want the read-only subset", n, all)
	}
}
