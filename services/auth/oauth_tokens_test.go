package auth_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/internal/clocktest"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/auth"
)

// A GitLab OAuth access token and its two stored forms, computed with
// Python's hashlib (sha512 and pbkdf2_hmac('sha512', token, b”, 20000, 64),
// passlib's base64 with "+" as "." and no padding).
const (
	oauthToken       = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	oauthSHA512      = "286f37dd952ff65ef75ffdc183e73b33e111d0d1652c3356e4bc54c714a34df8c3bb4c8d48b799e11e97ff2bd86f4d396bd13e764c81d2be8ead32d47bd8f848"
	oauthLegacyPBKDF = "$pbkdf2-sha512$20000$$kCXhAOhSUrVtIdHFSlZPpAZKnCUgT5Whz6ZSLCGyGAfIU0rXaLtiZLDS19RbGe9jIo9UBLvN2wtZaQ5kS9qRDQ"
)

func TestOAuthDigests(t *testing.T) {
	if got := auth.OAuthDigest(oauthToken); got != oauthSHA512 {
		t.Errorf("OAuthDigest = %s, want %s", got, oauthSHA512)
	}
	if got := auth.OAuthLegacyDigest(oauthToken); got != oauthLegacyPBKDF {
		t.Errorf("OAuthLegacyDigest = %s, want %s", got, oauthLegacyPBKDF)
	}
	tok, err := auth.GenerateOAuthToken(nil)
	if err != nil || len(tok) != 64 || strings.Trim(tok, "0123456789abcdef") != "" {
		t.Fatalf("GenerateOAuthToken = %q, %v; want 64 hex characters", tok, err)
	}
}

// fakeOAuthStore serves OAuth tokens by digest and records lookups.
type fakeOAuthStore struct {
	mu       sync.Mutex
	byDigest map[string]*models.OAuthAccessToken
	finds    []string
	err      error
}

func (s *fakeOAuthStore) FindOAuthTokenByDigest(_ context.Context, digest string) (*models.OAuthAccessToken, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.finds = append(s.finds, digest)
	if s.err != nil {
		return nil, s.err
	}
	if t, ok := s.byDigest[digest]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("find: %w", models.ErrNotFound)
}

func intp(n int) *int { return &n }

func TestAuthenticator_OAuthTokens(t *testing.T) {
	u := activeUser()
	created := t0.Add(-time.Hour)
	revokedAt := t0.Add(-time.Minute)
	later := t0.Add(time.Hour)
	row := func(mod func(*models.OAuthAccessToken)) *models.OAuthAccessToken {
		r := &models.OAuthAccessToken{ID: 31, ResourceOwnerID: &u.ID, User: u, CreatedAt: created, ExpiresIn: intp(7200), Scopes: "mcp read_user"}
		if mod != nil {
			mod(r)
		}
		return r
	}
	tests := []struct {
		name    string
		digest  string
		row     *models.OAuthAccessToken
		kind    auth.Kind // 0: accepted
		reason  string
		lookups int
	}{
		{"SHA-512 row", oauthSHA512, row(nil), 0, "", 1},
		{"PBKDF2 row (older GitLab)", oauthLegacyPBKDF, row(nil), 0, "", 2},
		{"never expires", oauthSHA512, row(func(r *models.OAuthAccessToken) { r.ExpiresIn = nil }), 0, "", 1},
		{"revocation scheduled later", oauthSHA512, row(func(r *models.OAuthAccessToken) { r.RevokedAt = &later }), 0, "", 1},
		{"unknown", "", nil, auth.Unauthenticated, "Access token is invalid: this server knows no such personal access token or OAuth access token. Sign in again, or send a personal access token.", 2},
		{"expired at created_at + expires_in", oauthSHA512, row(func(r *models.OAuthAccessToken) { r.ExpiresIn = intp(3600) }), auth.Unauthenticated, "OAuth access token has expired. Refresh it, or sign in again.", 1},
		{"revoked", oauthSHA512, row(func(r *models.OAuthAccessToken) { r.RevokedAt = &revokedAt }), auth.Unauthenticated, "OAuth access token was revoked. You have to re-authorize the application: sign in again.", 1},
		{"no resource owner", oauthSHA512, row(func(r *models.OAuthAccessToken) { r.ResourceOwnerID, r.User = nil, nil }), auth.Unauthenticated, "OAuth access token acts for no user (client credentials). Sign in as a user, or send a personal access token.", 1},
		{"blocked owner", oauthSHA512, row(func(r *models.OAuthAccessToken) { r.User = &models.User{ID: 7, State: models.UserBlocked} }), auth.UserForbidden, "Your account has been blocked. Ask an administrator to unblock it.", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os := &fakeOAuthStore{byDigest: map[string]*models.OAuthAccessToken{}}
			if tt.row != nil {
				os.byDigest[tt.digest] = tt.row
			}
			pats := newFakeTokenStore()
			a, err := auth.NewAuthenticator(pats, testSecret, clocktest.New(t0).Now, nil, auth.WithOAuthTokens(os))
			if err != nil {
				t.Fatal(err)
			}
			id, err := a.Authenticate(context.Background(), oauthToken)
			if len(os.finds) != tt.lookups || len(pats.findCalls()) != 0 {
				t.Fatalf("oauth lookups %d (want %d), PAT lookups %d (want 0)", len(os.finds), tt.lookups, len(pats.findCalls()))
			}
			if tt.kind != 0 {
				wantAuthError(t, err, tt.kind, tt.reason)
				return
			}
			if err != nil {
				t.Fatalf("Authenticate: %v", err)
			}
			want := &models.Identity{User: u, Method: models.MethodOAuth, OAuthTokenID: 31, Scopes: []string{"mcp", "read_user"}}
			if !reflect.DeepEqual(id, want) {
				t.Fatalf("identity = %+v, want %+v", id, want)
			}
		})
	}

	t.Run("non-hex token skips the PBKDF2 form", func(t *testing.T) {
		os := &fakeOAuthStore{byDigest: map[string]*models.OAuthAccessToken{}}
		a, err := auth.NewAuthenticator(newFakeTokenStore(), testSecret, nil, nil, auth.WithOAuthTokens(os))
		if err != nil {
			t.Fatal(err)
		}
		_, err = a.Authenticate(context.Background(), "ghp_"+strings.Repeat("a", 36))
		wantAuthError(t, err, auth.Unauthenticated, "Access token is invalid: this server knows no such personal access token or OAuth access token. Sign in again, or send a personal access token.")
		if len(os.finds) != 1 || os.finds[0] != auth.OAuthDigest("ghp_"+strings.Repeat("a", 36)) {
			t.Fatalf("lookups = %q, want the SHA-512 one only", os.finds)
		}
	})
	t.Run("store failure is an error, not a refusal", func(t *testing.T) {
		os := &fakeOAuthStore{err: errors.New("connection refused")}
		a, err := auth.NewAuthenticator(newFakeTokenStore(), testSecret, nil, nil, auth.WithOAuthTokens(os))
		if err != nil {
			t.Fatal(err)
		}
		_, err = a.Authenticate(context.Background(), oauthToken)
		var ae *auth.Error
		if err == nil || errors.As(err, &ae) {
			t.Fatalf("err = %v, want a store error", err)
		}
	})
	t.Run("not looked up: malformed shapes and no OAuth store", func(t *testing.T) {
		os := &fakeOAuthStore{byDigest: map[string]*models.OAuthAccessToken{}}
		a, err := auth.NewAuthenticator(newFakeTokenStore(), testSecret, nil, nil, auth.WithOAuthTokens(os))
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range []string{"short", "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.", strings.Repeat("a", 256), oauthToken + "!"} {
			_, err := a.Authenticate(context.Background(), raw)
			wantAuthError(t, err, auth.Unauthenticated, "Token is malformed: it is not a GitLab personal access token (glpat-...) or OAuth access token. Send the whole token, as Authorization: Bearer TOKEN.")
		}
		if len(os.finds) != 0 {
			t.Fatalf("lookups %q for malformed credentials", os.finds)
		}
		plain := newAuthenticator(t, newFakeTokenStore(), clocktest.New(t0))
		_, err = plain.Authenticate(context.Background(), oauthToken)
		wantAuthError(t, err, auth.Unauthenticated, "Token is malformed: it is not a GitLab personal access token (glpat-...) or OAuth access token. Send the whole token, as Authorization: Bearer TOKEN.")
	})
}

// Ensure a routable token whose `u` names another user than its row's
// owner is refused exactly like an unknown token, and that tokens minted
// before GitLab's formats (glmcp v0) still verify.
func TestAuthenticator_routingUserAndOldTokens(t *testing.T) {
	store := newFakeTokenStore()
	other, err := auth.DefaultTokenFormat().Generate(nil, 8) // u = 8
	if err != nil {
		t.Fatal(err)
	}
	store.add(other, &models.PersonalAccessToken{ID: 3, User: activeUser()}) // owner 7
	oldGlmcp := v0("AAECAwQFBgcICQoLDA0ODxAREhMUFRYX", "01")
	store.add(oldGlmcp, &models.PersonalAccessToken{ID: 4, User: activeUser(), Scopes: models.StringList{"mcp"}})
	a := newAuthenticator(t, store, clocktest.New(t0))

	_, err = a.Authenticate(context.Background(), other)
	wantAuthError(t, err, auth.Unauthenticated, "Personal access token is invalid: this server knows no such token. Check it was copied whole, or create a new one with the mcp scope.")

	id, err := a.Authenticate(context.Background(), oldGlmcp)
	if err != nil || id.TokenID != 4 {
		t.Fatalf("Authenticate(glmcp v0 token) = %+v, %v; want token 4", id, err)
	}
}
