package spec

import (
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"gitlab.com/glmcp/glmcp/app"
)

// listTools sends a Legacy tools/list with the token registered as name.
func listTools(t *testing.T, h *harness, endpoint, name string) *response {
	t.Helper()
	return h.send(t, call{URL: endpoint, User: name, Method: "tools/list", Params: map[string]any{}})
}

func TestOAuth_validToken(t *testing.T) {
	iss := newTestIssuer(t)
	h := startServer(t, withOAuth(iss))
	alice := h.withToken("jwt:alice", iss.mint(t, iss.claims(h.userID(t, "alice"), h.CE)))

	t.Run("legacy tools/list", func(t *testing.T) {
		r := listTools(t, h, h.CE, alice)
		if r.Status != http.StatusOK {
			t.Fatalf("status = %d; body %s", r.Status, r.Body)
		}
		validateResult(t, rev20251125, "ListToolsResult", r.Body)
	})

	t.Run("modern tools/list and tools/call", func(t *testing.T) {
		r := h.send(t, call{Era: modern, User: alice, ID: "list", Method: "tools/list"})
		if r.Status != http.StatusOK {
			t.Fatalf("status = %d; body %s", r.Status, r.Body)
		}
		validateResult(t, revModern, "ListToolsResult", r.Body)
		if names, _ := oauthToolNames(t, r); !slices.Contains(names, "get_mcp_server_version") {
			t.Fatalf("tools = %v, want get_mcp_server_version among them", names)
		}
		r = h.send(t, call{Era: modern, User: alice, ID: "call", Method: "tools/call", Params: map[string]any{"name": "get_mcp_server_version", "arguments": map[string]any{}}})
		if r.Status != http.StatusOK {
			t.Fatalf("tools/call status = %d; body %s", r.Status, r.Body)
		}
		validateResult(t, revModern, "CallToolResult", r.Body)
		if res := r.result(t); res["isError"] == true {
			t.Fatalf("tools/call failed: %s", r.Body)
		}
	})

	t.Run("personal access token still works", func(t *testing.T) {
		r := listTools(t, h, h.CE, "alice")
		if r.Status != http.StatusOK {
			t.Fatalf("PAT beside OAuth: status %d; body %s", r.Status, r.Body)
		}
		validateResult(t, rev20251125, "ListToolsResult", r.Body)
		r = h.send(t, call{Method: "tools/list", Params: map[string]any{}, Header: http.Header{"Private-Token": {h.Tokens["bob"]}}})
		if r.Status != http.StatusOK {
			t.Fatalf("PRIVATE-TOKEN beside OAuth: status %d; body %s", r.Status, r.Body)
		}
		validateResult(t, rev20251125, "ListToolsResult", r.Body)
	})

	t.Run("JWKS fetched once at start, not per request", func(t *testing.T) {
		if got := iss.JWKSHits(); got != 1 {
			t.Fatalf("JWKS fetched %d times, want 1 (the warm-up)", got)
		}
	})
}

// rsaPublicPEM is the published key's public half, PEM encoded: the
// "secret" of the HS256 key-confusion attack.
func rsaPublicPEM(t *testing.T) []byte {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(&issuerKey().PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

func TestOAuth_refusedTokens(t *testing.T) {
	iss := newTestIssuer(t)
	h := startServer(t, withOAuth(iss))
	aliceID := h.userID(t, "alice")
	rootID := h.userID(t, "root")
	valid := func() jwt.MapClaims { return iss.claims(aliceID, h.CE) }
	with := func(k string, v any) jwt.MapClaims { c := valid(); c[k] = v; return c }
	without := func(k string) jwt.MapClaims { c := valid(); delete(c, k); return c }
	now := time.Now()

	tests := []struct {
		name   string
		token  func() string
		reason string
	}{
		{"wrong issuer", func() string { return iss.mint(t, with("iss", "https://evil.example")) }, "issuer mismatch"},
		{"issuer with a trailing slash", func() string { return iss.mint(t, with("iss", iss.URL+"/")) }, "issuer mismatch"},
		{"wrong audience", func() string { return iss.mint(t, with("aud", []string{h.URL + "/api/v4/other"})) }, "wrong audience"},
		{"audience with a trailing slash", func() string { return iss.mint(t, with("aud", h.CE+"/")) }, "wrong audience"},
		{"no audience", func() string { return iss.mint(t, without("aud")) }, "wrong audience"},
		{"expired", func() string {
			c := valid()
			c["iat"], c["exp"] = now.Add(-20*time.Minute).Unix(), now.Add(-10*time.Minute).Unix()
			return iss.mint(t, c)
		}, "token expired"},
		{"no expiry", func() string { return iss.mint(t, without("exp")) }, "token has no expiry"},
		{"not yet valid", func() string { return iss.mint(t, with("nbf", now.Add(10*time.Minute).Unix())) }, "token not yet valid"},
		{"issued in the future", func() string { return iss.mint(t, with("iat", now.Add(10*time.Minute).Unix())) }, "token issued in the future"},
		{"alg none", func() string { return unsignedJWT(t, valid()) }, "algorithm not allowed"},
		{"HS256 signed with the RSA public key as secret", func() string {
			return signJWT(t, jwt.SigningMethodHS256, issuerKID, rsaPublicPEM(t), valid())
		}, "algorithm not allowed"},
		{"tampered payload", func() string { return tamper(t, iss.mint(t, valid()), iss.claims(rootID, h.CE)) }, "signature invalid"},
		{"signature of another key under the published kid", func() string {
			return signJWT(t, jwt.SigningMethodRS256, issuerKID, strangerKey(), valid())
		}, "signature invalid"},
		{"typ JWT (an ID token)", func() string {
			tok := jwt.NewWithClaims(jwt.SigningMethodRS256, valid())
			tok.Header["kid"] = issuerKID // typ stays "JWT"
			s, err := tok.SignedString(issuerKey())
			if err != nil {
				t.Fatal(err)
			}
			return s
		}, "wrong token type"},
		{"sub not a user id", func() string { return iss.mint(t, with("sub", "alice")) }, "user claim missing or invalid"},
		{"unknown user", func() string { return iss.mint(t, with("sub", "987654321")) }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := h.withToken("jwt:"+tt.name, tt.token())
			r := listTools(t, h, h.CE, name)
			want := jwtNoUser
			if tt.reason != "" {
				want = jwtReason(tt.reason)
			}
			expectAuthFailure(t, r, http.StatusUnauthorized, invalidTokenBody(want), challenge401(h.metadataURL(h.CE), want))
		})
	}

	t.Run("blocked user", func(t *testing.T) {
		name := h.withToken("jwt:dave", iss.mint(t, iss.claims(h.userID(t, "dave"), h.CE)))
		r := listTools(t, h, h.CE, name)
		expectAuthFailure(t, r, http.StatusForbidden, `{"message":"403 Forbidden - Your account has been blocked. Ask an administrator to unblock it."}`, "")
	})

	t.Run("missing scope is a step-up", func(t *testing.T) {
		name := h.withToken("jwt:read_user", iss.mint(t, with("scope", "read_user openid")))
		r := listTools(t, h, h.CE, name)
		const desc = "OAuth access token lacks a scope this endpoint accepts (mcp or api; read_api for read-only tools). Sign in again granting the mcp scope. Its scopes: read_user, openid."
		expectAuthFailure(t, r, http.StatusForbidden, insufficientScopeBody("mcp", desc), challengeScope(h.metadataURL(h.CE), "mcp", desc))
	})

	t.Run("modern request refused the same way", func(t *testing.T) {
		name := h.withToken("jwt:modern-expired", iss.mint(t, with("exp", now.Add(-10*time.Minute).Unix())))
		r := h.send(t, call{Era: modern, User: name, Method: "tools/list"})
		expectAuthFailure(t, r, http.StatusUnauthorized, invalidTokenBody(jwtReason("token expired")), challenge401(h.metadataURL(h.CE), jwtReason("token expired")))
	})
}

func TestOAuth_unknownKidRefetchesOnce(t *testing.T) {
	iss := newTestIssuer(t)
	h := startServer(t, withOAuth(iss))
	aliceID := h.userID(t, "alice")
	if got := iss.JWKSHits(); got != 1 {
		t.Fatalf("JWKS fetched %d times at start, want 1", got)
	}
	stranger := h.withToken("jwt:stranger", signJWT(t, jwt.SigningMethodRS256, strangerKID, strangerKey(), iss.claims(aliceID, h.CE)))
	want := challenge401(h.metadataURL(h.CE), jwtReason("unknown signing key"))

	// The first unknown kid makes glmcp fetch the JWKS once more (a key
	// may have been rotated in), then refuses.
	r := listTools(t, h, h.CE, stranger)
	expectAuthFailure(t, r, http.StatusUnauthorized, invalidTokenBody(jwtReason("unknown signing key")), want)
	if got := iss.JWKSHits(); got != 2 {
		t.Fatalf("JWKS fetched %d times after an unknown kid, want 2", got)
	}

	// More unknown kids within the window fetch nothing.
	for range 3 {
		r = listTools(t, h, h.CE, stranger)
		expectAuthFailure(t, r, http.StatusUnauthorized, invalidTokenBody(jwtReason("unknown signing key")), want)
	}
	if got := iss.JWKSHits(); got != 2 {
		t.Fatalf("JWKS fetched %d times after repeated unknown kids, want still 2", got)
	}

	// Known keys keep working from the cache.
	ok := h.withToken("jwt:alice", iss.mint(t, iss.claims(aliceID, h.CE)))
	if r := listTools(t, h, h.CE, ok); r.Status != http.StatusOK {
		t.Fatalf("valid token after unknown kids: status %d; body %s", r.Status, r.Body)
	}
	if got := iss.JWKSHits(); got != 2 {
		t.Fatalf("JWKS fetched %d times, want 2", got)
	}
}

func TestOAuth_audienceBindingAcrossGroups(t *testing.T) {
	iss := newTestIssuer(t)
	h := startServer(t, withOAuth(iss), withEE())
	aliceID := h.userID(t, "alice")
	ceOnly := h.withToken("jwt:ce", iss.mint(t, iss.claims(aliceID, h.CE)))
	eeOnly := h.withToken("jwt:ee", iss.mint(t, iss.claims(aliceID, h.EE)))
	both := h.withToken("jwt:both", iss.mint(t, iss.claims(aliceID, h.CE, h.EE)))

	t.Run("CE token refused on EE", func(t *testing.T) {
		r := listTools(t, h, h.EE, ceOnly)
		expectAuthFailure(t, r, http.StatusUnauthorized, invalidTokenBody(jwtReason("wrong audience")), challenge401(h.metadataURL(h.EE), jwtReason("wrong audience")))
	})
	t.Run("EE token refused on CE", func(t *testing.T) {
		r := listTools(t, h, h.CE, eeOnly)
		expectAuthFailure(t, r, http.StatusUnauthorized, invalidTokenBody(jwtReason("wrong audience")), challenge401(h.metadataURL(h.CE), jwtReason("wrong audience")))
	})
	t.Run("each token works on its own group", func(t *testing.T) {
		if r := listTools(t, h, h.CE, ceOnly); r.Status != http.StatusOK {
			t.Fatalf("CE token on CE: %d %s", r.Status, r.Body)
		}
		if r := listTools(t, h, h.EE, eeOnly); r.Status != http.StatusOK {
			t.Fatalf("EE token on EE: %d %s", r.Status, r.Body)
		}
	})
	t.Run("token naming both works on both", func(t *testing.T) {
		for _, ep := range []string{h.CE, h.EE} {
			r := h.send(t, call{Era: modern, URL: ep, User: both, Method: "tools/list"})
			if r.Status != http.StatusOK {
				t.Fatalf("%s: %d %s", ep, r.Status, r.Body)
			}
			validateResult(t, revModern, "ListToolsResult", r.Body)
		}
	})
	t.Run("EE step-up asks for mcp_orbit", func(t *testing.T) {
		c := iss.claims(aliceID, h.EE)
		c["scope"] = "read_api"
		name := h.withToken("jwt:ee-read_api", iss.mint(t, c))
		r := listTools(t, h, h.EE, name)
		const desc = "OAuth access token lacks a scope this endpoint accepts (mcp_orbit, mcp, api or ai_workflows). Sign in again granting the mcp_orbit scope. Its scopes: read_api."
		expectAuthFailure(t, r, http.StatusForbidden, insufficientScopeBody("mcp_orbit", desc), challengeScope(h.metadataURL(h.EE), "mcp_orbit", desc))
	})
	t.Run("EE accepts mcp_orbit alone", func(t *testing.T) {
		c := iss.claims(aliceID, h.EE)
		c["scope"] = "mcp_orbit"
		name := h.withToken("jwt:ee-orbit", iss.mint(t, c))
		if r := listTools(t, h, h.EE, name); r.Status != http.StatusOK {
			t.Fatalf("mcp_orbit on EE: %d %s", r.Status, r.Body)
		}
		// …and CE does not (wrong audience first; with CE in aud, scope).
		c = iss.claims(aliceID, h.CE, h.EE)
		c["scope"] = "mcp_orbit"
		name = h.withToken("jwt:both-orbit", iss.mint(t, c))
		r := listTools(t, h, h.CE, name)
		const desc = "OAuth access token lacks a scope this endpoint accepts (mcp or api; read_api for read-only tools). Sign in again granting the mcp scope. Its scopes: mcp_orbit."
		expectAuthFailure(t, r, http.StatusForbidden, insufficientScopeBody("mcp", desc), challengeScope(h.metadataURL(h.CE), "mcp", desc))
	})
	t.Run("user without an EE seat", func(t *testing.T) {
		name := h.withToken("jwt:bob", iss.mint(t, iss.claims(h.userID(t, "bob"), h.CE, h.EE)))
		if r := listTools(t, h, h.CE, name); r.Status != http.StatusOK {
			t.Fatalf("bob on CE: %d %s", r.Status, r.Body)
		}
		r := listTools(t, h, h.EE, name)
		expectAuthFailure(t, r, http.StatusForbidden,
			`{"message":"403 Forbidden - GitLab Orbit MCP server requires a GitLab Duo Enterprise seat; ask an administrator to assign one to your account."}`, "")
	})
}

func TestOAuth_readAPIScopeListsReadOnlyTools(t *testing.T) {
	iss := newTestIssuer(t)
	// The conformance fixtures keep a listed writing tool in the catalog
	// whatever GitLab tools are built, so the listing always mixes both.
	h := startServer(t, withOAuth(iss), withConformanceFixtures())
	c := iss.claims(h.userID(t, "alice"), h.CE)
	c["scope"] = "read_api"
	readAPI := h.withToken("jwt:read_api", iss.mint(t, c))

	all, readOnly := oauthToolNames(t, listTools(t, h, h.CE, "alice"))
	if len(readOnly) == 0 || len(readOnly) == len(all) {
		t.Fatalf("the full catalog must mix read-only and writing tools: %v (read-only %v)", all, readOnly)
	}
	r := h.send(t, call{Era: modern, User: readAPI, Method: "tools/list"})
	if r.Status != http.StatusOK {
		t.Fatalf("status = %d; body %s", r.Status, r.Body)
	}
	validateResult(t, revModern, "ListToolsResult", r.Body)
	got, _ := oauthToolNames(t, r)
	var want []string
	for _, n := range all {
		if readOnly[n] {
			want = append(want, n)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("read_api tools = %v, want the read-only ones %v", got, want)
	}

	t.Run("a read-only tool can be called", func(t *testing.T) {
		r := h.send(t, call{User: readAPI, ID: 2, Method: "tools/call", Params: map[string]any{"name": "get_mcp_server_version", "arguments": map[string]any{}}})
		if r.Status != http.StatusOK {
			t.Fatalf("status = %d; body %s", r.Status, r.Body)
		}
		validateResult(t, rev20251125, "CallToolResult", r.Body)
	})
	t.Run("a writing tool is a step-up", func(t *testing.T) {
		r := h.send(t, call{User: readAPI, ID: 3, Method: "tools/call", Params: map[string]any{
			"name": "create_issue", "arguments": map[string]any{"id": "gitlab-org/gitlab-mcp", "title": "from read_api"},
		}})
		desc := "The tool create_issue writes data; the token's read_api scope allows read-only tools. A token with the mcp scope is needed."
		expectAuthFailure(t, r, http.StatusForbidden, insufficientScopeBody("mcp", desc), challengeScope(h.metadataURL(h.CE), "mcp", desc))
	})
}

func TestOAuth_usernameClaim(t *testing.T) {
	iss := newTestIssuer(t)
	h := startServer(t, withOAuth(iss), func(c *app.Config) { c.OAuthUserClaim = "preferred_username" })
	c := iss.claims("f47ac10b-58cc-4372-a567-0e02b2c3d479", h.CE) // a Keycloak-style UUID sub
	c["preferred_username"] = "alice"
	r := listTools(t, h, h.CE, h.withToken("jwt:alice", iss.mint(t, c)))
	if r.Status != http.StatusOK {
		t.Fatalf("preferred_username alice: %d %s", r.Status, r.Body)
	}
	validateResult(t, rev20251125, "ListToolsResult", r.Body)
	c["preferred_username"] = "nobody"
	r = listTools(t, h, h.CE, h.withToken("jwt:nobody", iss.mint(t, c)))
	const reason = jwtNoUser
	expectAuthFailure(t, r, http.StatusUnauthorized, invalidTokenBody(reason), challenge401(h.metadataURL(h.CE), reason))
}

func TestOAuth_offWithoutIssuer(t *testing.T) {
	iss := newTestIssuer(t)
	h := startServer(t)
	name := h.withToken("jwt:alice", iss.mint(t, iss.claims(h.userID(t, "alice"), h.CE)))
	r := listTools(t, h, h.CE, name)
	// Without an issuer a JWT is just a malformed personal access token,
	// and no authorization server is named.
	expectAuthFailure(t, r, http.StatusUnauthorized, invalidTokenHintBody(reasonMalformed), challenge401("", reasonMalformed))
	if got := iss.JWKSHits(); got != 0 {
		t.Fatalf("JWKS fetched %d times with OAuth off", got)
	}
}
