package spec

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/app"
	"gitlab.com/glmcp/glmcp/handlers/wellknown"
)

// Metadata document paths (RFC 9728 §3.1).
const (
	metadataRoot   = "/.well-known/oauth-protected-resource"
	metadataCEPath = metadataRoot + cePath
	metadataEEPath = metadataRoot + eePath
)

// metadataDoc is the exact document glmcp serves for the endpoint at
// resource (issuer "" = no authorization server configured).
func metadataDoc(resource, issuer string, ee bool) string {
	as := ""
	if issuer != "" {
		as = `"authorization_servers":["` + issuer + `"],`
	}
	scopes, name := `["mcp"]`, "GitLab MCP Server"
	if ee {
		scopes, name = `["mcp_orbit","mcp"]`, "GitLab Orbit MCP Server"
	}
	return `{"resource":"` + resource + `",` + as + `"scopes_supported":` + scopes +
		`,"bearer_methods_supported":["header"],"resource_name":"` + name + `"}`
}

// expectMetadata fetches url and asserts the exact document and headers.
func expectMetadata(t *testing.T, h *harness, url, want string) {
	t.Helper()
	r := h.send(t, call{Verb: http.MethodGet, URL: url, Header: http.Header{"Origin": {"https://inspector.example"}}})
	if r.Status != http.StatusOK {
		t.Fatalf("GET %s = %d; body %s", url, r.Status, r.Body)
	}
	if got := string(r.Body); got != want {
		t.Fatalf("GET %s body =\n%s\nwant\n%s", url, got, want)
	}
	for name, want := range map[string]string{
		"Content-Type":                "application/json",
		"Cache-Control":               "public, max-age=3600",
		"Access-Control-Allow-Origin": "*",
		"Content-Length":              strconv.Itoa(len(want)),
	} {
		if got := r.Header.Get(name); got != want {
			t.Errorf("GET %s: %s = %q, want %q", url, name, got, want)
		}
	}
	if r.Header.Get("WWW-Authenticate") != "" || r.Header.Get("Set-Cookie") != "" {
		t.Errorf("GET %s: unexpected auth or cookie headers %v", url, r.Header)
	}
}

func TestMetadata_documents(t *testing.T) {
	iss := newTestIssuer(t)

	t.Run("CE edition", func(t *testing.T) {
		h := startServer(t, withOAuth(iss))
		ce := metadataDoc(h.CE, iss.URL, false)
		expectMetadata(t, h, h.URL+metadataCEPath, ce)
		expectMetadata(t, h, h.URL+metadataRoot, ce)
		r := h.send(t, call{Verb: http.MethodGet, URL: h.URL + metadataEEPath})
		if r.Status != http.StatusNotFound {
			t.Fatalf("EE document with EE off: %d, want 404; body %s", r.Status, r.Body)
		}
		if r := h.send(t, call{Verb: http.MethodOptions, URL: h.URL + metadataEEPath}); r.Status != http.StatusNotFound {
			t.Fatalf("OPTIONS on the EE document with EE off: %d, want 404", r.Status)
		}
	})

	t.Run("EE edition", func(t *testing.T) {
		h := startServer(t, withOAuth(iss), withEE())
		expectMetadata(t, h, h.URL+metadataEEPath, metadataDoc(h.EE, iss.URL, true))
		expectMetadata(t, h, h.URL+metadataCEPath, metadataDoc(h.CE, iss.URL, false))
		// The root describes the CE endpoint on EE too.
		expectMetadata(t, h, h.URL+metadataRoot, metadataDoc(h.CE, iss.URL, false))
	})

	t.Run("GLMCP_GITLAB_URL is the authorization server", func(t *testing.T) {
		h := startServer(t, withEE(), withGitLabURL)
		expectMetadata(t, h, h.URL+metadataCEPath, metadataDoc(h.CE, gitlabURL, false))
		expectMetadata(t, h, h.URL+metadataEEPath, metadataDoc(h.EE, gitlabURL, true))
		r := h.send(t, call{URL: h.CE, Method: "tools/list", Token: "glpat-" + "AAAAAAAAAAAAAAAAAAAA"})
		expectAuthFailure(t, r, http.StatusUnauthorized, invalidTokenBody(reasonInvalid), challenge401(h.metadataURL(h.CE), reasonInvalid))
		followChallenge(t, h, r, h.metadataURL(h.CE), h.CE)
	})

	t.Run("several authorization servers", func(t *testing.T) {
		h := startServer(t, withOAuth(iss), func(c *app.Config) {
			c.OAuthAuthorizationServers = []string{"https://kc.example.com/realms/gitlab", iss.URL}
		})
		want := `{"resource":"` + h.CE + `","authorization_servers":["https://kc.example.com/realms/gitlab","` + iss.URL +
			`"],"scopes_supported":["mcp"],"bearer_methods_supported":["header"],"resource_name":"GitLab MCP Server"}`
		expectMetadata(t, h, h.URL+metadataCEPath, want)
	})

	t.Run("HEAD", func(t *testing.T) {
		h := startServer(t, withOAuth(iss), withEE())
		r := h.send(t, call{Verb: http.MethodHead, URL: h.URL + metadataEEPath})
		if r.Status != http.StatusOK || len(r.Body) != 0 {
			t.Fatalf("HEAD = %d with %d body bytes, want 200 and none", r.Status, len(r.Body))
		}
		if got, want := r.Header.Get("Content-Length"), strconv.Itoa(len(metadataDoc(h.EE, iss.URL, true))); got != want {
			t.Errorf("HEAD Content-Length = %q, want %q", got, want)
		}
	})
}

func TestMetadata_CORSPreflight(t *testing.T) {
	h := startServer(t, withEE(), withGitLabURL)
	for _, p := range []string{metadataRoot, metadataCEPath, metadataEEPath} {
		t.Run(p, func(t *testing.T) {
			r := h.send(t, call{Verb: http.MethodOptions, URL: h.URL + p, Header: http.Header{
				"Origin":                         {"https://inspector.example"},
				"Access-Control-Request-Method":  {"GET"},
				"Access-Control-Request-Headers": {"mcp-protocol-version"},
			}})
			if r.Status != http.StatusNoContent {
				t.Fatalf("OPTIONS = %d, want 204; body %s", r.Status, r.Body)
			}
			if len(r.Body) != 0 {
				t.Errorf("OPTIONS body = %q, want empty", r.Body)
			}
			for name, want := range map[string]string{
				"Access-Control-Allow-Origin":  "*",
				"Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
				"Access-Control-Allow-Headers": "mcp-protocol-version",
				"Access-Control-Max-Age":       "86400",
				"Vary":                         "Access-Control-Request-Headers",
			} {
				if got := r.Header.Get(name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
		})
	}
}

// gitlabURL is the GitLab instance of withGitLabURL.
const gitlabURL = "https://gitlab.example.com"

// withGitLabURL sets GLMCP_GITLAB_URL (and no OAuth issuer).
func withGitLabURL(c *app.Config) { c.GitLabURL = gitlabURL + "/" }

// TestMetadata_noAuthorizationServer: with no authorization server the
// challenges name no metadata, no document is served and registration is
// refused with what to do instead, so an MCP client does not try to sign in
// (mcp-remote showed "Dynamic Client Registration rejected (404)" and "SSE
// 405" instead of the token problem).
func TestMetadata_noAuthorizationServer(t *testing.T) {
	h := startServer(t, withEE())
	for _, p := range []string{metadataRoot, metadataCEPath, metadataEEPath} {
		for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodOptions} {
			if r := h.send(t, call{Verb: m, URL: h.URL + p}); r.Status != http.StatusNotFound {
				t.Errorf("%s %s = %d, want 404", m, p, r.Status)
			}
		}
	}
	for _, ep := range []string{h.CE, h.EE} {
		expectAuthFailure(t, h.send(t, call{URL: ep, Method: "tools/list"}), http.StatusUnauthorized, anonymousHintBody(), `Bearer realm="GitLab"`)
		expectAuthFailure(t, h.send(t, call{URL: ep, Method: "tools/list", Token: "glpat-" + "AAAAAAAAAAAAAAAAAAAA"}), http.StatusUnauthorized,
			invalidTokenHintBody(reasonInvalid), challenge401("", reasonInvalid))
	}
	r := h.send(t, call{URL: h.URL + "/register", Body: `{"redirect_uris":["http://localhost:1/cb"]}`, Header: http.Header{"Content-Type": {"application/json"}}})
	want, _ := json.Marshal(map[string]string{"error": "invalid_client_metadata", "error_description": wellknown.NoRegistrationDescription})
	if r.Status != http.StatusBadRequest || string(r.Body) != string(want) {
		t.Fatalf("POST /register = %d %s, want 400 %s", r.Status, r.Body, want)
	}
}

// TestMetadata_registrationExplainsTheToken: with no authorization server,
// a client whose token was refused ends up at /register (mcp-remote,
// Claude Code) with its configured headers; the registration error leads
// with what the endpoints would answer that token, so that is what the
// user reads, and the attempt spends a failed authentication like the
// endpoint's 401.
func TestMetadata_registrationExplainsTheToken(t *testing.T) {
	h := startServer(t, withEE())
	revoked, rt := authMint(t, h, "alice", []string{"mcp"}, nil)
	if err := h.Env.Store.Users.RevokeToken(context.Background(), rt.ID); err != nil {
		t.Fatal(err)
	}
	readAPI, _ := authMint(t, h, "alice", []string{"read_api"}, nil)
	expired, _ := authMint(t, h, "alice", []string{"mcp"}, authDay(-1))
	note := " " + wellknown.NoRegistrationNote
	tests := []struct {
		name   string
		header http.Header
		want   string
	}{
		{"no credential", nil, wellknown.NoRegistrationDescription},
		{"unknown token", http.Header{"Authorization": {"Bearer glpat-" + strings.Repeat("w", 20)}}, reasonInvalid + note},
		{"revoked token", http.Header{"Authorization": {"Bearer " + revoked}}, reasonRevoked + note},
		{"expired token in PRIVATE-TOKEN", http.Header{"Private-Token": {expired}}, reasonExpired + note},
		{"malformed token", http.Header{"Authorization": {"Bearer glpat-short"}}, reasonMalformed + note},
		{"blocked user", http.Header{"Authorization": {"Bearer " + h.Tokens["dave"]}}, reasonBlocked + note},
		{"read_api: Orbit refuses", http.Header{"Authorization": {"Bearer " + readAPI}},
			"/api/v4/orbit/mcp: Personal access token lacks a scope this endpoint accepts (mcp_orbit, mcp, api or ai_workflows). " +
				"Create a token with the mcp scope. Its scopes: read_api." + note},
		{"no EE seat", http.Header{"Authorization": {"Bearer " + h.Tokens["bob"]}},
			"/api/v4/orbit/mcp: GitLab Orbit MCP server requires a GitLab Duo Enterprise seat; ask an administrator to assign one to your account." + note},
		{"valid", http.Header{"Authorization": {"Bearer " + h.Tokens["alice"]}},
			"The token is valid: /api/v4/mcp and /api/v4/orbit/mcp accept it; no sign-in or registration is needed." + note},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hd := http.Header{"Content-Type": {"application/json"}}
			for k, v := range tt.header {
				hd[k] = v
			}
			r := h.send(t, call{URL: h.URL + "/register", Body: `{"redirect_uris":["http://localhost:1/cb"]}`, Header: hd})
			var body struct {
				Error       string `json:"error"`
				Description string `json:"error_description"`
			}
			if err := json.Unmarshal(r.Body, &body); err != nil || r.Status != http.StatusBadRequest || body.Error != "invalid_client_metadata" {
				t.Fatalf("POST /register = %d %s, want 400 invalid_client_metadata", r.Status, r.Body)
			}
			if body.Description != tt.want {
				t.Fatalf("error_description =\n%s\nwant\n%s", body.Description, tt.want)
			}
			if first, _, _ := strings.Cut(body.Description, ". "); len(first) > 200 {
				t.Errorf("the first sentence is %d characters; clients that cut at 200 lose what to do", len(first))
			}
		})
	}
}

// TestMetadata_registrationSpendsFailures: explaining a refused token at
// /register spends the address's failed authentications, and a spent
// budget is said instead of looking the token up.
func TestMetadata_registrationSpendsFailures(t *testing.T) {
	h := startServer(t, func(c *app.Config) { c.AuthFailureLimit = "2/60s" })
	bad := http.Header{"Authorization": {"Bearer glpat-" + strings.Repeat("w", 20)}, "Content-Type": {"application/json"}}
	for range 2 {
		if r := h.send(t, call{URL: h.URL + "/register", Body: `{}`, Header: bad}); !strings.Contains(string(r.Body), "Personal access token is invalid") {
			t.Fatalf("POST /register = %d %s", r.Status, r.Body)
		}
	}
	r := h.send(t, call{URL: h.URL + "/register", Body: `{}`, Header: bad})
	if !strings.Contains(string(r.Body), "Too many failed authentications from this address; retry in ") {
		t.Fatalf("POST /register over the budget = %d %s", r.Status, r.Body)
	}
	// The endpoint shares the budget.
	r = h.send(t, call{Method: "tools/list", User: "alice"})
	r.expectError(t, http.StatusTooManyRequests, -31029)
}

// resourceMetadataParam extracts resource_metadata from a challenge.
var resourceMetadataParam = regexp.MustCompile(`resource_metadata="([^"]*)"`)

// followChallenge asserts that r's challenge names wantURL and that the
// document there describes resource.
func followChallenge(t *testing.T, h *harness, r *response, wantURL, resource string) {
	t.Helper()
	m := resourceMetadataParam.FindStringSubmatch(r.Header.Get("WWW-Authenticate"))
	if m == nil {
		t.Fatalf("status %d: no resource_metadata in WWW-Authenticate %q", r.Status, r.Header.Get("WWW-Authenticate"))
	}
	if m[1] != wantURL {
		t.Fatalf("resource_metadata = %q, want %q", m[1], wantURL)
	}
	doc := h.send(t, call{Verb: http.MethodGet, URL: m[1]})
	if doc.Status != http.StatusOK {
		t.Fatalf("GET %s = %d", m[1], doc.Status)
	}
	var md struct {
		Resource string `json:"resource"`
	}
	if err := json.Unmarshal(doc.Body, &md); err != nil || md.Resource != resource {
		t.Fatalf("document at %s describes %q (err %v), want %q", m[1], md.Resource, err, resource)
	}
}

func TestMetadata_everyChallengeNamesItsGroup(t *testing.T) {
	iss := newTestIssuer(t)
	h := startServer(t, withOAuth(iss), withEE())
	readUser, _ := authMint(t, h, "alice", []string{"read_user"}, nil)
	body := envelope(t, 1, "tools/list", map[string]any{})

	for _, g := range []struct{ name, endpoint string }{{"CE", h.CE}, {"EE", h.EE}} {
		md := h.metadataURL(g.endpoint)
		t.Run(g.name+" no credential", func(t *testing.T) {
			r := h.send(t, call{URL: g.endpoint, Body: body})
			expectAuthFailure(t, r, http.StatusUnauthorized, `{"message":"401 Unauthorized"}`, `Bearer realm="GitLab", resource_metadata="`+md+`"`)
			followChallenge(t, h, r, md, g.endpoint)
		})
		t.Run(g.name+" unknown personal access token", func(t *testing.T) {
			r := h.send(t, call{URL: g.endpoint, Body: body, Header: auth("glpat-" + "AAAAAAAAAAAAAAAAAAAA")})
			if r.Status != http.StatusUnauthorized {
				t.Fatalf("status = %d; body %s", r.Status, r.Body)
			}
			followChallenge(t, h, r, md, g.endpoint)
		})
		t.Run(g.name+" refused JWT", func(t *testing.T) {
			r := h.send(t, call{URL: g.endpoint, Body: body, Header: auth(unsignedJWT(t, iss.claims("1", g.endpoint)))})
			if r.Status != http.StatusUnauthorized {
				t.Fatalf("status = %d; body %s", r.Status, r.Body)
			}
			followChallenge(t, h, r, md, g.endpoint)
		})
		t.Run(g.name+" insufficient scope", func(t *testing.T) {
			r := h.send(t, call{URL: g.endpoint, Body: body, Header: auth(readUser)})
			if r.Status != http.StatusForbidden {
				t.Fatalf("status = %d; body %s", r.Status, r.Body)
			}
			followChallenge(t, h, r, md, g.endpoint)
		})
	}
}

func TestMetadata_followsThePublicURL(t *testing.T) {
	iss := newTestIssuer(t)
	const public = "https://gitlab.example.com"
	h := startServer(t, withOAuth(iss), withEE(), func(c *app.Config) { c.PublicURL = public + "/" })
	expectMetadata(t, h, h.URL+metadataCEPath, metadataDoc(public+cePath, iss.URL, false))
	expectMetadata(t, h, h.URL+metadataEEPath, metadataDoc(public+eePath, iss.URL, true))

	for _, ep := range []string{cePath, eePath} {
		r := h.send(t, call{URL: h.URL + ep, Method: "tools/list", Params: map[string]any{}})
		want := `Bearer realm="GitLab", resource_metadata="` + public + metadataRoot + ep + `"`
		expectAuthFailure(t, r, http.StatusUnauthorized, `{"message":"401 Unauthorized"}`, want)
	}

	// Tokens are bound to the public resource URL, not the address the
	// server happens to listen on.
	aliceID := h.userID(t, "alice")
	ok := h.withToken("jwt:public", iss.mint(t, iss.claims(aliceID, public+cePath)))
	if r := listTools(t, h, h.CE, ok); r.Status != http.StatusOK {
		t.Fatalf("token for the public URL: %d %s", r.Status, r.Body)
	}
	local := h.withToken("jwt:local", iss.mint(t, iss.claims(aliceID, h.CE)))
	r := listTools(t, h, h.CE, local)
	expectAuthFailure(t, r, http.StatusUnauthorized, invalidTokenBody(jwtReason("wrong audience")),
		challenge401(public+metadataCEPath, jwtReason("wrong audience")))
}
