package spec

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// authServer is the authorization server part of testIssuer: RFC 8414
// metadata, an /authorize that approves pre-registered clients at once
// (no browser, no login page) and a /token that redeems codes only with
// the right PKCE verifier and resource indicator (RFC 7636, RFC 8707).
// Public clients only (token_endpoint_auth_method none).
type authServer struct {
	iss *testIssuer

	mu sync.Mutex
	// clients are the pre-registered clients: client id → redirect URI.
	clients map[string]string
	// subject is the sub of the tokens issued (a user id).
	subject string
	// resources are the resource indicators tokens may be issued for.
	resources []string
	codes     map[string]*asCode
	// Authorizations and Exchanges record what happened, for assertions.
	Authorizations []asAuthorization
	Exchanges      []asExchange
}

// asCode is an issued, not yet redeemed authorization code.
type asCode struct {
	clientID, redirectURI, challenge, resource, scope string
	expires                                           time.Time
}

// asAuthorization is one request to /authorize.
type asAuthorization struct {
	ClientID, RedirectURI, ChallengeMethod, Resource, Scope, State string
	// Approved is false when the request was refused.
	Approved bool
}

// asExchange is one request to /token.
type asExchange struct {
	ClientID, GrantType, Resource string
	// PKCEVerified is true when the code_verifier matched the code's
	// S256 challenge.
	PKCEVerified bool
	// Issued is true when a token was issued (the JSON error otherwise).
	Issued bool
	Error  string
	Scope  string
}

func (a *authServer) register(mux *http.ServeMux, iss *testIssuer) {
	a.iss = iss
	a.clients = map[string]string{}
	a.codes = map[string]*asCode{}
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", a.serveMetadata)
	mux.HandleFunc("GET /authorize", a.serveAuthorize)
	mux.HandleFunc("POST /token", a.serveToken)
}

// preRegister registers a public client with its exact redirect URI and
// makes tokens for subject, valid for the given resources.
func (a *authServer) preRegister(clientID, redirectURI, subject string, resources ...string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.clients[clientID] = redirectURI
	a.subject = subject
	a.resources = resources
}

// record returns copies of what the server saw.
func (a *authServer) record() ([]asAuthorization, []asExchange) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.Authorizations), slices.Clone(a.Exchanges)
}

func (a *authServer) serveMetadata(w http.ResponseWriter, _ *http.Request) {
	base := a.iss.URL
	asWriteJSON(w, http.StatusOK, map[string]any{
		"issuer":                                         base,
		"authorization_endpoint":                         base + "/authorize",
		"token_endpoint":                                 base + "/token",
		"jwks_uri":                                       base + "/jwks",
		"scopes_supported":                               []string{"mcp", "mcp_orbit"},
		"response_types_supported":                       []string{"code"},
		"grant_types_supported":                          []string{"authorization_code"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"none"},
		"authorization_response_iss_parameter_supported": true,
	})
}

// serveAuthorize approves a well-formed request from a pre-registered
// client at once: 302 to its redirect URI with code, state and iss
// (RFC 9207). A bad client or redirect URI is refused with 400 and no
// redirect (RFC 6749 §4.1.2.1).
func (a *authServer) serveAuthorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	rec := asAuthorization{
		ClientID: q.Get("client_id"), RedirectURI: q.Get("redirect_uri"),
		ChallengeMethod: q.Get("code_challenge_method"), Resource: q.Get("resource"),
		Scope: q.Get("scope"), State: q.Get("state"),
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	refuse := func(code, desc string) {
		a.Authorizations = append(a.Authorizations, rec)
		asWriteJSON(w, http.StatusBadRequest, map[string]string{"error": code, "error_description": desc})
	}
	registered, ok := a.clients[rec.ClientID]
	switch {
	case !ok:
		refuse("invalid_client", "unknown client_id")
		return
	case rec.RedirectURI != registered:
		refuse("invalid_request", "redirect_uri does not match the registration")
		return
	case q.Get("response_type") != "code":
		refuse("unsupported_response_type", "only code is supported")
		return
	case rec.ChallengeMethod != "S256" || len(q.Get("code_challenge")) != 43:
		refuse("invalid_request", "PKCE with S256 is required")
		return
	case !slices.Contains(a.resources, rec.Resource):
		refuse("invalid_target", "resource is not served by this authorization server")
		return
	}
	code := rand.Text()
	a.codes[code] = &asCode{
		clientID: rec.ClientID, redirectURI: rec.RedirectURI, challenge: q.Get("code_challenge"),
		resource: rec.Resource, scope: rec.Scope, expires: time.Now().Add(time.Minute),
	}
	rec.Approved = true
	a.Authorizations = append(a.Authorizations, rec)
	back, err := url.Parse(rec.RedirectURI)
	if err != nil {
		refuse("invalid_request", "redirect_uri is not a URL")
		return
	}
	bq := back.Query()
	bq.Set("code", code)
	if rec.State != "" {
		bq.Set("state", rec.State)
	}
	bq.Set("iss", a.iss.URL)
	back.RawQuery = bq.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

// serveToken redeems an authorization code once, checking client,
// redirect URI, PKCE verifier and resource, and issues an RS256 access
// token for the resource.
func (a *authServer) serveToken(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		asWriteJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	f := r.PostForm
	rec := asExchange{ClientID: f.Get("client_id"), GrantType: f.Get("grant_type"), Resource: f.Get("resource")}
	a.mu.Lock()
	defer a.mu.Unlock()
	fail := func(code string) {
		rec.Error = code
		a.Exchanges = append(a.Exchanges, rec)
		asWriteJSON(w, http.StatusBadRequest, map[string]string{"error": code})
	}
	if rec.GrantType != "authorization_code" {
		fail("unsupported_grant_type")
		return
	}
	c, ok := a.codes[f.Get("code")]
	delete(a.codes, f.Get("code")) // one use, whatever happens
	switch {
	case !ok || time.Now().After(c.expires):
		fail("invalid_grant")
		return
	case c.clientID != rec.ClientID:
		fail("invalid_client")
		return
	case c.redirectURI != f.Get("redirect_uri"):
		fail("invalid_grant")
		return
	}
	sum := sha256.Sum256([]byte(f.Get("code_verifier")))
	rec.PKCEVerified = subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(c.challenge)) == 1
	if !rec.PKCEVerified {
		fail("invalid_grant")
		return
	}
	if rec.Resource != c.resource {
		fail("invalid_target")
		return
	}
	scope := asGrantedScope(c.scope)
	claims := a.iss.claims(a.subject, rec.Resource)
	claims["scope"] = scope
	claims["client_id"] = rec.ClientID
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	tok.Header["typ"] = "at+jwt"
	tok.Header["kid"] = issuerKID
	token, err := tok.SignedString(issuerKey())
	if err != nil {
		fail("server_error")
		return
	}
	rec.Issued, rec.Scope = true, scope
	a.Exchanges = append(a.Exchanges, rec)
	w.Header().Set("Cache-Control", "no-store")
	asWriteJSON(w, http.StatusOK, map[string]any{
		"access_token": token, "token_type": "Bearer", "expires_in": 300, "scope": scope,
	})
}

// asGrantedScope keeps the requested scopes this server knows ("mcp" when
// none is asked for).
func asGrantedScope(requested string) string {
	var out []string
	for _, s := range strings.Fields(requested) {
		if s == "mcp" || s == "mcp_orbit" {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return "mcp"
	}
	return strings.Join(out, " ")
}

func asWriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
