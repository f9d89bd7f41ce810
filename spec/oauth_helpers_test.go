package spec

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"gitlab.com/glmcp/glmcp/app"
	"gitlab.com/glmcp/glmcp/middleware"
)

// Key ids of the test issuer: issuerKID is published in its JWKS,
// strangerKID never is.
const (
	issuerKID   = "spec-rsa-1"
	strangerKID = "spec-rsa-2"
)

// RSA keys are generated once per test binary: generation is slow.
var (
	issuerKey   = sync.OnceValue(func() *rsa.PrivateKey { return newRSAKey() })
	strangerKey = sync.OnceValue(func() *rsa.PrivateKey { return newRSAKey() })
)

func newRSAKey() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
}

// testIssuer is an OAuth issuer living in the test: it publishes its JWKS
// at /jwks (counting fetches) and mints access tokens. Its authorization
// server endpoints (metadata, /authorize, /token) are in
// oauth_as_helpers_test.go.
type testIssuer struct {
	URL  string // issuer identifier: the httptest base URL
	HTTP *httptest.Server

	jwksHits atomic.Int32
	as       authServer
}

// newTestIssuer starts an issuer on 127.0.0.1 for the test's lifetime.
func newTestIssuer(t testing.TB) *testIssuer {
	t.Helper()
	iss := &testIssuer{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /jwks", iss.serveJWKS)
	iss.as.register(mux, iss)
	iss.HTTP = httptest.NewServer(mux)
	iss.URL = iss.HTTP.URL
	t.Cleanup(iss.HTTP.Close)
	return iss
}

// JWKSURL is where glmcp fetches the signing keys.
func (iss *testIssuer) JWKSURL() string { return iss.URL + "/jwks" }

// JWKSHits is the number of JWKS fetches so far.
func (iss *testIssuer) JWKSHits() int { return int(iss.jwksHits.Load()) }

func (iss *testIssuer) serveJWKS(w http.ResponseWriter, _ *http.Request) {
	iss.jwksHits.Add(1)
	pub := &issuerKey().PublicKey
	doc := map[string]any{"keys": []map[string]string{{
		"kty": "RSA", "kid": issuerKID, "use": "sig", "alg": "RS256",
		"n": base64.RawURLEncoding.EncodeToString(pub.N.Bytes()),
		"e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(pub.E)).Bytes()),
	}}}
	w.Header().Set("Content-Type", "application/jwk-set+json")
	_ = json.NewEncoder(w).Encode(doc)
}

// withOAuth configures glmcp to accept iss's access tokens.
func withOAuth(iss *testIssuer) option {
	return func(c *app.Config) {
		c.OAuthIssuer = iss.URL
		c.OAuthJWKS = iss.JWKSURL()
		c.OAuthAllowPrivateJWKS = true
	}
}

// userID returns the id of the demo user username, as a string (the sub
// claim).
func (h *harness) userID(t testing.TB, username string) string {
	t.Helper()
	u, err := h.Env.Store.Users.FindUserByUsername(context.Background(), username)
	if err != nil {
		t.Fatalf("find user %q: %v", username, err)
	}
	return strconv.FormatInt(u.ID, 10)
}

// claims returns valid access token claims for sub with audiences aud:
// scope mcp, five minutes to live.
func (iss *testIssuer) claims(sub string, aud ...string) jwt.MapClaims {
	now := time.Now()
	return jwt.MapClaims{
		"iss":       iss.URL,
		"aud":       aud,
		"sub":       sub,
		"scope":     "mcp",
		"client_id": "spec-client",
		"iat":       now.Unix(),
		"exp":       now.Add(5 * time.Minute).Unix(),
		"jti":       rand.Text(),
	}
}

// mint signs c with the published key (RS256, typ at+jwt).
func (iss *testIssuer) mint(t testing.TB, c jwt.MapClaims) string {
	t.Helper()
	return signJWT(t, jwt.SigningMethodRS256, issuerKID, issuerKey(), c)
}

// signJWT signs c with method and key, naming kid (omitted when "").
func signJWT(t testing.TB, method jwt.SigningMethod, kid string, key any, c jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, c)
	tok.Header["typ"] = "at+jwt"
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatalf("sign token: %v", err)
	}
	return s
}

// unsignedJWT returns an alg "none" token for c (empty signature).
func unsignedJWT(t testing.TB, c jwt.MapClaims) string {
	t.Helper()
	return signJWT(t, jwt.SigningMethodNone, issuerKID, jwt.UnsafeAllowNoneSignatureType, c)
}

// tamper replaces the payload of a signed token by c, keeping header and
// signature.
func tamper(t testing.TB, token string, c jwt.MapClaims) string {
	t.Helper()
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token has %d parts", len(parts))
	}
	return parts[0] + "." + base64.RawURLEncoding.EncodeToString(b) + "." + parts[2]
}

// withToken registers token under a pseudo user name, so the harness's
// legacy and modern helpers send it.
func (h *harness) withToken(name, token string) string {
	h.Tokens[name] = token
	return name
}

// metadataURL is the protected resource metadata URL of the group at
// endpoint (h.CE or h.EE), as challenges name it.
func (h *harness) metadataURL(endpoint string) string {
	return h.URL + "/.well-known/oauth-protected-resource" + strings.TrimPrefix(endpoint, h.URL)
}

// challenge401 is the WWW-Authenticate value of a 401 for a refused
// token (metadataURL "": no authorization server, none named).
func challenge401(metadataURL, description string) string {
	c := `Bearer realm="GitLab", error="invalid_token", error_description="` + description + `"`
	if metadataURL != "" {
		c += `, resource_metadata="` + metadataURL + `"`
	}
	return c
}

// jwtReason is the error_description of a JWT refused for reason (the
// verifier's words), and jwtNoUser that of one naming an unknown user.
func jwtReason(reason string) string {
	return "OAuth access token (JWT) refused: " + reason + ". Sign in again to get a new one."
}

const jwtNoUser = "OAuth access token (JWT) names a user this server does not know. " +
	"Sign in with an account that exists here (usernames must match GitLab's)."

// challengeScope is the WWW-Authenticate value of a 403 step-up.
func challengeScope(metadataURL, scope, description string) string {
	return `Bearer realm="GitLab", error="insufficient_scope", scope="` + scope + `", error_description="` + description +
		`", resource_metadata="` + metadataURL + `"`
}

// expectAuthFailure asserts status, exact body and exact WWW-Authenticate
// ("" = absent) of an authentication failure.
func expectAuthFailure(t testing.TB, r *response, status int, body, challenge string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d; body %s", r.Status, status, r.Body)
	}
	if got := string(r.Body); got != body {
		t.Errorf("body =\n%s\nwant\n%s", got, body)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	got := r.Header.Values("WWW-Authenticate")
	switch {
	case challenge == "" && len(got) != 0:
		t.Errorf("WWW-Authenticate = %q, want none", got)
	case challenge != "" && (len(got) != 1 || got[0] != challenge):
		t.Errorf("WWW-Authenticate =\n%q\nwant\n%q", got, challenge)
	}
}

// invalidTokenBody is the body of a 401 for a refused token.
func invalidTokenBody(description string) string {
	b, _ := json.Marshal(map[string]string{"error": "invalid_token", "error_description": description})
	return string(b)
}

// invalidTokenHintBody is the body of a 401 for a refused token when no
// authorization server is configured: it says which token to send.
func invalidTokenHintBody(description string) string {
	b, _ := json.Marshal(map[string]string{"error": "invalid_token", "error_description": description, "hint": middleware.NoOAuthHint})
	return string(b)
}

// anonymousHintBody is the body of a 401 without a credential when no
// authorization server is configured.
func anonymousHintBody() string {
	b, _ := json.Marshal(map[string]string{"message": "401 Unauthorized", "hint": middleware.NoOAuthHint})
	return string(b)
}

// insufficientScopeBody is the body of a 403 step-up.
func insufficientScopeBody(scope, description string) string {
	b, _ := json.Marshal(map[string]string{"error": "insufficient_scope", "error_description": description, "scope": scope})
	return string(b)
}

// oauthToolNames returns the names of the tools in a tools/list result, in
// order, and the set of those annotated readOnlyHint: true.
func oauthToolNames(t testing.TB, r *response) (names []string, readOnly map[string]bool) {
	t.Helper()
	res := r.result(t)
	list, ok := res["tools"].([]any)
	if !ok {
		t.Fatalf("tools/list result has no tools array: %s", r.Body)
	}
	if _, more := res["nextCursor"]; more {
		t.Fatalf("tools/list paginated; the spec expects one page: %s", r.Body)
	}
	readOnly = map[string]bool{}
	for _, e := range list {
		tool := e.(map[string]any)
		name := tool["name"].(string)
		names = append(names, name)
		if a, ok := tool["annotations"].(map[string]any); ok && a["readOnlyHint"] == true {
			readOnly[name] = true
		}
	}
	return names, readOnly
}
