package spec

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/middleware"
	"gitlab.com/glmcp/glmcp/models"
	authsvc "gitlab.com/glmcp/glmcp/services/auth"
)

// GitLab-style token authentication (doc/auth.md, "Personal access tokens and
// OAuth access tokens"), on both route groups.

const (
	reasonMalformed = "Token is malformed: it is not a GitLab personal access token (glpat-...) or OAuth access token. " +
		"Send the whole token, as Authorization: Bearer TOKEN."
	reasonInvalid = "Personal access token is invalid: this server knows no such token. " +
		"Check it was copied whole, or create a new one with the mcp scope."
	reasonExpired = "Personal access token has expired. " +
		"Create a new one with the mcp scope (GitLab: User settings, Access tokens) and use it instead."
	reasonRevoked = "Personal access token was revoked. " +
		"Create a new one with the mcp scope (GitLab: User settings, Access tokens) and use it instead."
	reasonBlocked = "Your account has been blocked. Ask an administrator to unblock it."

	reasonOAuthInvalid = "Access token is invalid: this server knows no such personal access token or OAuth access token. " +
		"Sign in again, or send a personal access token."
	reasonOAuthExpired = "OAuth access token has expired. Refresh it, or sign in again."
	reasonOAuthRevoked = "OAuth access token was revoked. You have to re-authorize the application: sign in again."
	reasonDeact        = "Your account has been deactivated. Please log back in from a web browser to reactivate your account."
)

// expect401 asserts a 401 for a presented but unusable token: the exact
// challenge and the GitLab body.
func expect401(t testing.TB, h *harness, g group, r *response, reason string) {
	t.Helper()
	r.expectStatus(t, http.StatusUnauthorized)
	want := `Bearer realm="GitLab", error="invalid_token", error_description="` + reason + `"` + authChallengeMetadata(h, g.Path)
	if got := r.Header.Get("WWW-Authenticate"); got != want {
		t.Errorf("WWW-Authenticate = %s\nwant                %s", got, want)
	}
	var body struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
		Hint        string `json:"hint"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil || body.Error != "invalid_token" || body.Description != reason {
		t.Errorf("body = %s, want {error: invalid_token, error_description: %q}", r.Body, reason)
	}
	// Without an authorization server the body says which token to send.
	if wantHint := !h.Cfg.AuthorizationServerConfigured(); (body.Hint == middleware.NoOAuthHint) != wantHint {
		t.Errorf("body = %s, want the no-OAuth hint: %t", r.Body, wantHint)
	}
}

// expect403User asserts a 403 for a valid token whose user may not use the
// endpoint, with GitLab's body naming the reason.
func expect403User(t testing.TB, r *response, reason string) {
	t.Helper()
	r.expectStatus(t, http.StatusForbidden)
	var body struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil || body.Message != "403 Forbidden - "+reason {
		t.Errorf("body = %s, want message %q", r.Body, "403 Forbidden - "+reason)
	}
}

// expect403Scope asserts a 403 insufficient_scope naming scope, with a
// step-up challenge that agrees with the body; it returns the description.
func expect403Scope(t testing.TB, h *harness, g group, r *response, scope string) string {
	t.Helper()
	r.expectStatus(t, http.StatusForbidden)
	var body struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
		Scope       string `json:"scope"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("body %s: %v", r.Body, err)
	}
	if body.Error != "insufficient_scope" || body.Scope != scope || body.Description == "" {
		t.Errorf("body = %s, want insufficient_scope naming scope %q", r.Body, scope)
	}
	want := `Bearer realm="GitLab", error="insufficient_scope", scope="` + scope + `", error_description="` + body.Description +
		`"` + authChallengeMetadata(h, g.Path)
	if got := r.Header.Get("WWW-Authenticate"); got != want {
		t.Errorf("WWW-Authenticate = %s\nwant                %s", got, want)
	}
	return body.Description
}

// TestAuth_credentialHeaders: the token is read from Authorization: Bearer
// (scheme case-insensitive) or PRIVATE-TOKEN, in both eras.
func TestAuth_credentialHeaders(t *testing.T) {
	h := startServer(t, withEE())
	tok := h.Tokens["alice"]
	tests := []struct {
		name string
		hd   http.Header
	}{
		{"Bearer", http.Header{"Authorization": {"Bearer " + tok}}},
		{"bearer lower-case", http.Header{"Authorization": {"bearer " + tok}}},
		{"PRIVATE-TOKEN", http.Header{"Private-Token": {tok}}},
		{"private-token lower-case name", http.Header{"private-token": {tok}}},
		{"Basic falls back to PRIVATE-TOKEN", http.Header{"Authorization": {"Basic YWxpY2U6eA=="}, "Private-Token": {tok}}},
	}
	for _, g := range h.groups() {
		for _, era := range eras {
			for _, tt := range tests {
				t.Run(g.Name+"/"+era+"/"+tt.name, func(t *testing.T) {
					body, hd := h.parts(t, call{Era: era, User: "alice", Method: "tools/list"})
					hd.Del("Authorization")
					for k, v := range tt.hd {
						hd[k] = v
					}
					r := h.send(t, call{URL: g.URL, Body: body, Header: hd})
					r.expectStatus(t, http.StatusOK)
					validateResult(t, eraRev(era), "ListToolsResult", r.Body)
				})
			}
		}
	}
}

// TestAuth_missingCredential: no usable credential is 401 with a challenge
// carrying realm (and resource_metadata when an authorization server is
// configured: not here) and no error parameter.
func TestAuth_missingCredential(t *testing.T) {
	h := startServer(t, withEE())
	tests := []struct {
		name string
		hd   http.Header
	}{
		{"none", http.Header{}},
		{"empty bearer", http.Header{"Authorization": {"Bearer "}}},
		{"Basic only", http.Header{"Authorization": {"Basic YWxpY2U6eA=="}}},
		{"blank PRIVATE-TOKEN", http.Header{"Private-Token": {"  "}}},
	}
	for _, g := range h.groups() {
		for _, era := range eras {
			for _, tt := range tests {
				t.Run(g.Name+"/"+era+"/"+tt.name, func(t *testing.T) {
					body, hd := h.parts(t, call{Era: era, User: "alice", Method: "tools/list"})
					hd.Del("Authorization")
					for k, v := range tt.hd {
						hd[k] = v
					}
					r := h.send(t, call{URL: g.URL, Body: body, Header: hd})
					r.expectStatus(t, http.StatusUnauthorized)
					want := `Bearer realm="GitLab"` + authChallengeMetadata(h, g.Path)
					if got := r.Header.Get("WWW-Authenticate"); got != want {
						t.Errorf("WWW-Authenticate = %s\nwant                %s", got, want)
					}
					if strings.Contains(string(r.Body), "invalid_token") {
						t.Errorf("body %s names an error though no token was presented", r.Body)
					}
				})
			}
		}
	}
}

// TestAuth_invalidTokens: malformed, unknown, expired and revoked tokens
// are 401 with error="invalid_token" and the reason.
func TestAuth_invalidTokens(t *testing.T) {
	h := startServer(t, withEE())
	good := h.Tokens["alice"]
	unknown, err := h.Env.Tokens.Generate(nil, authUser(t, h, "alice").ID) // well formed, never stored
	if err != nil {
		t.Fatal(err)
	}
	expToday, _ := authMint(t, h, "alice", []string{"mcp", "mcp_orbit"}, authDay(0))
	expYesterday, _ := authMint(t, h, "alice", []string{"mcp", "mcp_orbit"}, authDay(-1))
	expLongAgo, _ := authMint(t, h, "alice", []string{"mcp", "mcp_orbit"}, authDay(-400))
	revoked, rt := authMint(t, h, "alice", []string{"mcp", "mcp_orbit"}, authDay(7))
	if err := h.Env.Store.Users.RevokeToken(context.Background(), rt.ID); err != nil {
		t.Fatal(err)
	}
	flip := func(s string) string { // change the last checksum character
		last := s[len(s)-1]
		c := byte('0')
		if last == '0' {
			c = '1'
		}
		return s[:len(s)-1] + string(c)
	}
	tests := []struct {
		name, token, reason string
	}{
		{"bad checksum", flip(good), reasonMalformed},
		{"payload changed", good[:8] + string(rune(good[8]^1)) + good[9:], reasonMalformed},
		{"wrong prefix", "glpxx-" + good[len("glpat-"):], reasonMalformed},
		// Not a personal access token: looked up as an OAuth access token.
		{"GitHub token", "ghp_" + strings.Repeat("a", 36), reasonOAuthInvalid},
		{"no prefix", good[len("glpat-"):], reasonMalformed},
		{"prefix only", "glpat-", reasonMalformed},
		{"legacy shape too short", "glpat-" + strings.Repeat("a", 19), reasonMalformed},
		{"legacy shape bad char", "glpat-" + strings.Repeat("a", 19) + "!", reasonMalformed},
		{"over-long", "glpat-" + strings.Repeat("a", 300), reasonMalformed},
		{"JWT-looking", "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.", reasonMalformed},
		{"unknown, well formed", unknown, reasonInvalid},
		{"unknown, legacy shape", "glpat-" + strings.Repeat("Z", 20), reasonInvalid},
		{"expires today", expToday, reasonExpired},
		{"expired yesterday", expYesterday, reasonExpired},
		{"expired long ago", expLongAgo, reasonExpired},
		{"revoked", revoked, reasonRevoked},
	}
	for _, g := range h.groups() {
		for _, tt := range tests {
			for _, via := range []string{"Bearer", "PRIVATE-TOKEN"} {
				t.Run(g.Name+"/"+tt.name+"/"+via, func(t *testing.T) {
					hd := http.Header{}
					if via == "Bearer" {
						hd.Set("Authorization", "Bearer "+tt.token)
					} else {
						hd.Set("PRIVATE-TOKEN", tt.token)
					}
					r := authPost(t, h, g.URL, hd)
					expect401(t, h, g, r, tt.reason)
				})
			}
		}
	}
	t.Run("modern era", func(t *testing.T) {
		body, hd := h.parts(t, call{Era: modern, User: "alice", Method: "tools/list"})
		hd.Set("Authorization", "Bearer "+revoked)
		g := h.groups()[0]
		expect401(t, h, g, h.send(t, call{URL: g.URL, Body: body, Header: hd}), reasonRevoked)
	})
}

// TestAuth_malformedTokenSkipsStore: a malformed token is refused from its
// shape alone. With the store closed under the server, it still gets its
// 401, while a well-formed token (which must be looked up) cannot be
// served.
func TestAuth_malformedTokenSkipsStore(t *testing.T) {
	h := startServer(t, withEE())
	good := h.Tokens["alice"]
	g := h.groups()[0]
	// The lookup path works while the store is open.
	authExpectOK(t, authPost(t, h, g.URL, auth(good)))
	// A token never presented yet is not in the identity cache: it must be
	// looked up.
	fresh, _ := authMint(t, h, "alice", []string{"mcp", "mcp_orbit"}, authDay(7))
	if err := h.Env.Store.Close(); err != nil {
		t.Fatalf("close store: %v", err)
	}
	for _, g := range h.groups() {
		expect401(t, h, g, authPost(t, h, g.URL, auth(good[:len(good)-1]+"!")), reasonMalformed)
		expect401(t, h, g, authPost(t, h, g.URL, auth("glpat-short")), reasonMalformed)
		// A well-formed token needs the store: an internal error, 500
		// -32603 with nothing but the fixed message.
		r := authPost(t, h, g.URL, auth(fresh))
		msg, data := r.expectError(t, http.StatusInternalServerError, -32603)
		if msg != "Internal error" || data != nil {
			t.Errorf("500 error = %q, %v; want the bare %q", msg, data, "Internal error")
		}
	}
}

// TestAuth_expiry: expires_at is a date; the token is expired from
// midnight UTC of that day.
func TestAuth_expiry(t *testing.T) {
	h := startServer(t, withEE())
	scopes := []string{"mcp", "mcp_orbit"}
	tomorrow, _ := authMint(t, h, "alice", scopes, authDay(1))
	never, _ := authMint(t, h, "alice", scopes, nil)
	today, _ := authMint(t, h, "alice", scopes, authDay(0))
	for _, g := range h.groups() {
		authExpectOK(t, authPost(t, h, g.URL, auth(tomorrow)))
		authExpectOK(t, authPost(t, h, g.URL, auth(never)))
		expect401(t, h, g, authPost(t, h, g.URL, auth(today)), reasonExpired)
	}
}

// TestAuth_userState: a blocked or deactivated user's valid token is 403
// with the reason; reactivation restores access.
func TestAuth_userState(t *testing.T) {
	h := startServer(t, withEE())
	for _, g := range h.groups() {
		expect403User(t, authPost(t, h, g.URL, auth(h.Tokens["dave"])), reasonBlocked)
	}
	ctx := context.Background()
	if err := h.Env.Store.Users.SetUserState(ctx, "alice", models.UserDeactivated); err != nil {
		t.Fatal(err)
	}
	for _, g := range h.groups() {
		for _, era := range eras {
			body, hd := h.parts(t, call{Era: era, User: "alice", Method: "tools/list"})
			expect403User(t, h.send(t, call{URL: g.URL, Body: body, Header: hd}), reasonDeact)
		}
	}
	if err := h.Env.Store.Users.SetUserState(ctx, "alice", models.UserActive); err != nil {
		t.Fatal(err)
	}
	for _, g := range h.groups() {
		authExpectOK(t, authPost(t, h, g.URL, auth(h.Tokens["alice"])))
	}
}

// TestAuth_eeSeat: the EE group refuses users without an EE seat with 403
// and a reason; the CE group serves them.
func TestAuth_eeSeat(t *testing.T) {
	h := startServer(t, withEE())
	for _, user := range []string{"bob", "carol"} {
		for _, era := range eras {
			body, hd := h.parts(t, call{Era: era, User: user, Method: "tools/list"})
			r := h.send(t, call{URL: h.EE, Body: body, Header: hd})
			r.expectStatus(t, http.StatusForbidden)
			var b struct {
				Message string `json:"message"`
			}
			if err := json.Unmarshal(r.Body, &b); err != nil || !strings.HasPrefix(b.Message, "403 Forbidden - ") || !strings.Contains(b.Message, "seat") {
				t.Errorf("%s %s: body %s, want a 403 message explaining the missing EE seat", user, era, r.Body)
			}
			r = h.send(t, call{Body: body, Header: hd})
			r.expectStatus(t, http.StatusOK)
			validateResult(t, eraRev(era), "ListToolsResult", r.Body)
		}
	}
	for _, user := range []string{"root", "alice"} {
		authExpectOK(t, authPost(t, h, h.EE, auth(h.Tokens[user])))
	}
}

// TestAuth_scopes: each group accepts its scopes; read_api on CE lists and
// calls read-only tools only; anything else is 403 insufficient_scope
// naming the scope needed.
func TestAuth_scopes(t *testing.T) {
	h := startServer(t, withEE())
	ce, ee := h.groups()[0], h.groups()[1]
	tests := []struct {
		g      group
		scopes []string
		ok     bool
	}{
		{ce, []string{"mcp"}, true},
		{ce, []string{"api"}, true},
		{ce, []string{"read_api"}, true},
		{ce, []string{"read_user"}, false},
		{ce, []string{"mcp_orbit"}, false},
		{ce, []string{"ai_workflows"}, false},
		{ce, []string{"read_repository", "write_repository"}, false},
		{ee, []string{"mcp_orbit"}, true},
		{ee, []string{"mcp"}, true},
		{ee, []string{"api"}, true},
		{ee, []string{"ai_workflows"}, true},
		{ee, []string{"read_api"}, false},
		{ee, []string{"read_user"}, false},
	}
	// Without an authorization server both groups name mcp: the scope a
	// person creates a token with (mcp serves Orbit too).
	need := map[string]string{"CE": "mcp", "EE": "mcp"}
	for _, tt := range tests {
		t.Run(tt.g.Name+"/"+strings.Join(tt.scopes, "+"), func(t *testing.T) {
			tok, _ := authMint(t, h, "alice", tt.scopes, authDay(7))
			for _, era := range eras {
				body, hd := h.parts(t, call{Era: era, User: "alice", Method: "tools/list"})
				hd.Set("Authorization", "Bearer "+tok)
				r := h.send(t, call{URL: tt.g.URL, Body: body, Header: hd})
				if tt.ok {
					r.expectStatus(t, http.StatusOK)
					validateResult(t, eraRev(era), "ListToolsResult", r.Body)
					continue
				}
				expect403Scope(t, h, tt.g, r, need[tt.g.Name])
			}
		})
	}

	t.Run("CE/read_api is read-only", func(t *testing.T) {
		ro, _ := authMint(t, h, "alice", []string{"read_api"}, authDay(7))
		full, _ := authMint(t, h, "alice", []string{"mcp"}, authDay(7))
		list := func(tok string) (names []string, readOnly map[string]bool) {
			r := authPost(t, h, ce.URL, auth(tok))
			authExpectOK(t, r)
			res := r.result(t)
			if _, more := res["nextCursor"]; more {
				t.Fatalf("tools/list paginated; expected one page: %s", r.Body)
			}
			readOnly = map[string]bool{}
			for _, x := range res["tools"].([]any) {
				m := x.(map[string]any)
				n := m["name"].(string)
				names = append(names, n)
				if a, ok := m["annotations"].(map[string]any); ok && a["readOnlyHint"] == true {
					readOnly[n] = true
				}
			}
			return names, readOnly
		}
		fullNames, fullRO := list(full)
		roNames, _ := list(ro)
		var want []string
		for _, n := range fullNames {
			if fullRO[n] {
				want = append(want, n)
			}
		}
		if len(want) == 0 || len(want) == len(fullNames) {
			t.Fatalf("the catalog must hold read-only and write tools for this spec; full list %v, read-only %v", fullNames, want)
		}
		if !slices.Equal(roNames, want) {
			t.Errorf("read_api lists %v, want exactly the read-only tools %v", roNames, want)
		}
		// create_issue is unlisted since GitLab 19.5 (superseded) but still
		// callable: the write-call half uses it, as clients of 18.x do.
		if slices.Contains(roNames, "create_issue") {
			t.Fatalf("read_api lists create_issue: %v", roNames)
		}
		issuesBefore := authIssueCount(t, h, "gitlab-org/gitlab-mcp")
		stateBefore := toolsState(t, h)
		for _, era := range eras {
			body, hd := h.parts(t, call{Era: era, User: "alice", ID: 7, Method: "tools/call", Params: map[string]any{
				"name": "create_issue", "arguments": map[string]any{"id": "gitlab-org/gitlab-mcp", "title": "from a read_api token"},
			}})
			hd.Set("Authorization", "Bearer "+ro)
			r := h.send(t, call{URL: ce.URL, Body: body, Header: hd})
			desc := expect403Scope(t, h, ce, r, "mcp")
			if !strings.Contains(desc, "create_issue") {
				t.Errorf("error_description %q does not name the tool", desc)
			}
			// A read-only tool is served under the same token.
			body, hd = h.parts(t, call{Era: era, User: "alice", ID: 8, Method: "tools/call", Params: map[string]any{"name": "get_mcp_server_version", "arguments": map[string]any{}}})
			hd.Set("Authorization", "Bearer "+ro)
			r = h.send(t, call{URL: ce.URL, Body: body, Header: hd})
			r.expectStatus(t, http.StatusOK)
			validateResult(t, eraRev(era), "CallToolResult", r.Body)
		}
		if n := authIssueCount(t, h, "gitlab-org/gitlab-mcp"); n != issuesBefore {
			t.Errorf("the project has %d issues after the refused create_issue calls, want %d", n, issuesBefore)
		}
		toolsExpectState(t, h, stateBefore)
	})
}

// TestAuth_lastUsed: last_used_at is written after the first request, off
// the request path, and not rewritten by a second request within ten
// minutes.
func TestAuth_lastUsed(t *testing.T) {
	h := startServer(t, withEE())
	alice := authUser(t, h, "alice")
	tok, stored := authMint(t, h, "alice", []string{"mcp"}, authDay(7))
	if at := authStoredToken(t, h, alice.ID, stored.ID).LastUsedAt; at != nil {
		t.Fatalf("last_used_at = %v before any use", at)
	}
	before := time.Now().Add(-time.Second)
	authExpectOK(t, authPost(t, h, h.CE, auth(tok)))
	first := authAwaitLastUsed(t, h, alice.ID, stored.ID)
	if first.Before(before) || first.After(time.Now().Add(time.Second)) {
		t.Errorf("last_used_at = %v, want about now", first)
	}

	authExpectOK(t, authPost(t, h, h.CE, auth(tok)))
	authExpectOK(t, authPost(t, h, h.EE, auth(h.Tokens["alice"])))
	// Barrier: a second token used after the second request gets its
	// last_used_at; writes are queued in order, so any write the second
	// request had caused for the first token has happened by then.
	tok2, stored2 := authMint(t, h, "alice", []string{"mcp"}, authDay(7))
	authExpectOK(t, authPost(t, h, h.CE, auth(tok2)))
	authAwaitLastUsed(t, h, alice.ID, stored2.ID)

	again := authStoredToken(t, h, alice.ID, stored.ID).LastUsedAt
	if again == nil || !again.Equal(first) {
		t.Errorf("last_used_at = %v after a second use within 10 minutes, want unchanged %v", again, first)
	}
}

// TestAuth_gitlabDigest: only the GitLab digest is stored —
// base64(SHA-256(token ‖ first 32 characters of the secret)) — so a legacy
// GitLab token (glpat- + 20 characters) whose digest a GitLab instance
// with the same secret computed authenticates here.
func TestAuth_gitlabDigest(t *testing.T) {
	h := startServer(t, withEE())
	gitlabDigest := func(token string) string {
		sum := sha256.Sum256([]byte(token + h.Env.Secret[:32]))
		return base64.StdEncoding.EncodeToString(sum[:])
	}
	ctx := context.Background()
	alice := authUser(t, h, "alice")

	// Tokens glmcp mints are stored under the same digest.
	tok, stored := authMint(t, h, "alice", []string{"mcp"}, authDay(7))
	if got := authStoredToken(t, h, alice.ID, stored.ID).TokenDigest; got != gitlabDigest(tok) {
		t.Errorf("stored digest %q, want GitLab's %q", got, gitlabDigest(tok))
	}
	if strings.Contains(authStoredToken(t, h, alice.ID, stored.ID).TokenDigest, tok) {
		t.Errorf("the token itself is stored")
	}

	legacy := "glpat-" + "aB3_dE6-gH9jK2mN5pQ8"
	if d := authsvc.Digest(legacy, h.Env.Secret); d != gitlabDigest(legacy) {
		t.Fatalf("authsvc.Digest = %q, want GitLab's %q", d, gitlabDigest(legacy))
	}
	if err := h.Env.Store.Users.CreateToken(ctx, &models.PersonalAccessToken{
		UserID: alice.ID, Name: "from gitlab", TokenDigest: gitlabDigest(legacy),
		Scopes: models.StringList{"api"}, ExpiresAt: authDay(30),
	}); err != nil {
		t.Fatalf("create token: %v", err)
	}
	for _, g := range h.groups() {
		for _, era := range eras {
			body, hd := h.parts(t, call{Era: era, User: "alice", Method: "tools/call", Params: map[string]any{"name": "get_mcp_server_version", "arguments": map[string]any{}}})
			hd.Set("Authorization", "Bearer "+legacy)
			r := h.send(t, call{URL: g.URL, Body: body, Header: hd})
			r.expectStatus(t, http.StatusOK)
			validateResult(t, eraRev(era), "CallToolResult", r.Body)
			hd.Del("Authorization")
			hd.Set("PRIVATE-TOKEN", legacy)
			r = h.send(t, call{URL: g.URL, Body: body, Header: hd})
			r.expectStatus(t, http.StatusOK)
			validateResult(t, eraRev(era), "CallToolResult", r.Body)
		}
		// One character off is a different (unknown) token.
		expect401(t, h, g, authPost(t, h, g.URL, auth(legacy[:len(legacy)-1]+"9")), reasonInvalid)
	}
}

// TestAuth_tokenNotLogged: the access log records every request and never
// the token, whether it is valid, malformed or unknown, sent in a header
// or in the query string.
func TestAuth_tokenNotLogged(t *testing.T) {
	var logs authSyncBuffer
	h := startServerLogged(t, &logs, withEE())
	unknown, err := h.Env.Tokens.Generate(nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	good := h.Tokens["alice"]
	malformed := good[:len(good)-1] + "!"
	secrets := []string{good, malformed, unknown, h.Tokens["dave"], h.Tokens["bob"]}
	requests := 0
	for _, g := range h.groups() {
		for _, tok := range secrets {
			for _, era := range eras {
				body, hd := h.parts(t, call{Era: era, User: "alice", Method: "tools/list"})
				hd.Set("Authorization", "Bearer "+tok)
				byBearer := h.send(t, call{URL: g.URL, Body: body, Header: hd})
				hd.Del("Authorization")
				hd.Set("PRIVATE-TOKEN", tok)
				byPrivate := h.send(t, call{URL: g.URL + "?private_token=" + tok, Body: body, Header: hd})
				requests += 2
				if tok == good {
					// The logged requests were served, not refused early.
					for _, r := range []*response{byBearer, byPrivate} {
						r.expectStatus(t, http.StatusOK)
						validateResult(t, eraRev(era), "ListToolsResult", r.Body)
					}
				}
			}
		}
		h.send(t, call{Verb: http.MethodGet, URL: g.URL + "?private_token=" + good, Header: auth(good)})
		requests++
	}
	// Stop the server so every access-log line is written.
	h.Server.BeginShutdown()
	h.HTTP.Close()
	h.Server.Stop()
	out := logs.String()
	if n := strings.Count(out, `"msg":"request"`); n < requests {
		t.Fatalf("access log has %d request lines, want %d:\n%s", n, requests, out)
	}
	if !strings.Contains(out, `"user_id":`) || !strings.Contains(out, `"status":401`) {
		t.Errorf("access log lacks user ids or 401s:\n%s", out)
	}
	for _, s := range secrets {
		// The random part alone must not appear either.
		for _, part := range []string{s, strings.TrimPrefix(s, "glpat-")[:20]} {
			if strings.Contains(out, part) {
				t.Fatalf("a token appears in the log:\n%s", out)
			}
		}
		if d := authsvc.Digest(s, h.Env.Secret); strings.Contains(out, d) {
			t.Fatalf("a token digest appears in the log")
		}
	}
}
