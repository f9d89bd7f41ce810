package auth_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/auth"
	"gitlab.com/glmcp/glmcp/services/auth/jwtauth"
)

const (
	oauthIssuer   = "https://issuer.test/realms/glmcp"
	oauthAudience = "https://gitlab.example.com/api/v4/mcp"
)

var hsSecret = []byte("an-hs256-shared-secret-of-32-bytes!!")

// fakeUserStore serves users by id and username and records lookups.
type fakeUserStore struct {
	mu     sync.Mutex
	users  []*models.User
	err    error
	byID   []int64
	byName []string
}

func (s *fakeUserStore) FindUserByID(_ context.Context, id int64) (*models.User, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byID = append(s.byID, id)
	if s.err != nil {
		return nil, s.err
	}
	for _, u := range s.users {
		if u.ID == id {
			return u, nil
		}
	}
	return nil, fmt.Errorf("find user %d: %w", id, models.ErrNotFound)
}

func (s *fakeUserStore) FindUserByUsername(_ context.Context, name string) (*models.User, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byName = append(s.byName, name)
	if s.err != nil {
		return nil, s.err
	}
	for _, u := range s.users {
		if u.Username == name {
			return u, nil
		}
	}
	return nil, fmt.Errorf("find user %q: %w", name, models.ErrNotFound)
}

func newOAuth(t *testing.T, users auth.UserStore, userClaim string) *auth.OAuth {
	t.Helper()
	v, err := jwtauth.New(jwtauth.Config{
		Issuer:      oauthIssuer,
		HS256Secret: hsSecret,
		UserClaim:   userClaim,
		Now:         func() time.Time { return t0 },
	})
	if err != nil {
		t.Fatalf("jwtauth.New: %v", err)
	}
	o, err := auth.NewOAuth(v, users)
	if err != nil {
		t.Fatalf("NewOAuth: %v", err)
	}
	return o
}

// signJWT signs claims (over a valid base set) with HS256 and typ at+jwt.
func signJWT(t *testing.T, key []byte, typ string, extra jwt.MapClaims) string {
	t.Helper()
	claims := jwt.MapClaims{
		"iss":   oauthIssuer,
		"aud":   oauthAudience,
		"sub":   "7",
		"exp":   t0.Add(5 * time.Minute).Unix(),
		"iat":   t0.Add(-time.Minute).Unix(),
		"scope": "mcp api",
	}
	for k, v := range extra {
		if v == nil {
			delete(claims, k)
			continue
		}
		claims[k] = v
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
	tok.Header["typ"] = typ
	raw, err := tok.SignedString(key)
	if err != nil {
		t.Fatalf("sign: %v", err)
	}
	return raw
}

func TestOAuth_Authenticate(t *testing.T) {
	alice := &models.User{ID: 7, Username: "alice", State: models.UserActive}
	bob := &models.User{ID: 8, Username: "bob", State: models.UserActive}
	dave := &models.User{ID: 9, Username: "dave", State: models.UserBlocked}

	t.Run("sub names the user by id", func(t *testing.T) {
		users := &fakeUserStore{users: []*models.User{alice, bob}}
		o := newOAuth(t, users, "")
		id, err := o.Authenticate(context.Background(), signJWT(t, hsSecret, "at+jwt", nil), oauthAudience)
		if err != nil {
			t.Fatalf("Authenticate: %v", err)
		}
		want := &models.Identity{User: alice, Method: models.MethodOAuth, Scopes: []string{"mcp", "api"}}
		if !reflect.DeepEqual(id, want) {
			t.Fatalf("identity = %+v, want %+v", id, want)
		}
		if !reflect.DeepEqual(users.byID, []int64{7}) || len(users.byName) != 0 {
			t.Fatalf("lookups byID=%v byName=%v, want one by id 7", users.byID, users.byName)
		}
	})

	t.Run("username claim names the user by username", func(t *testing.T) {
		users := &fakeUserStore{users: []*models.User{alice, bob}}
		o := newOAuth(t, users, "preferred_username")
		raw := signJWT(t, hsSecret, "application/at+jwt", jwt.MapClaims{"sub": "opaque-subject", "preferred_username": "bob"})
		id, err := o.Authenticate(context.Background(), raw, oauthAudience)
		if err != nil {
			t.Fatalf("Authenticate: %v", err)
		}
		if id.User != bob || id.Method != models.MethodOAuth {
			t.Fatalf("identity = %+v, want bob by OAuth", id)
		}
		if !reflect.DeepEqual(users.byName, []string{"bob"}) || len(users.byID) != 0 {
			t.Fatalf("lookups byID=%v byName=%v, want one by username bob", users.byID, users.byName)
		}
	})

	t.Run("unknown user", func(t *testing.T) {
		o := newOAuth(t, &fakeUserStore{users: []*models.User{bob}}, "")
		id, err := o.Authenticate(context.Background(), signJWT(t, hsSecret, "at+jwt", nil), oauthAudience)
		if id != nil {
			t.Fatalf("identity = %+v, want nil", id)
		}
		wantAuthError(t, err, auth.Unauthenticated, "OAuth access token (JWT) names a user this server does not know. Sign in with an account that exists here (usernames must match GitLab's).")
	})

	t.Run("blocked user", func(t *testing.T) {
		o := newOAuth(t, &fakeUserStore{users: []*models.User{dave}}, "")
		id, err := o.Authenticate(context.Background(), signJWT(t, hsSecret, "at+jwt", jwt.MapClaims{"sub": "9"}), oauthAudience)
		wantAuthError(t, err, auth.UserForbidden, "Your account has been blocked. Ask an administrator to unblock it.")
		if id == nil || id.User != dave {
			t.Fatalf("identity = %+v, want one carrying the blocked user (for logging)", id)
		}
	})

	t.Run("store failure", func(t *testing.T) {
		boom := errors.New("connection reset")
		o := newOAuth(t, &fakeUserStore{err: boom}, "")
		id, err := o.Authenticate(context.Background(), signJWT(t, hsSecret, "at+jwt", nil), oauthAudience)
		if id != nil {
			t.Fatalf("identity = %+v, want nil", id)
		}
		if !errors.Is(err, boom) {
			t.Fatalf("err = %v, want it to wrap %v", err, boom)
		}
		var ae *auth.Error
		if errors.As(err, &ae) {
			t.Fatalf("store failure returned *auth.Error %+v", ae)
		}
	})

	t.Run("empty audience is a misuse, not a token failure", func(t *testing.T) {
		o := newOAuth(t, &fakeUserStore{users: []*models.User{alice}}, "")
		_, err := o.Authenticate(context.Background(), signJWT(t, hsSecret, "at+jwt", nil), "")
		var ae *auth.Error
		if err == nil || errors.As(err, &ae) {
			t.Fatalf("err = %v, want a plain error", err)
		}
	})
}

func TestOAuth_Authenticate_refusedTokens(t *testing.T) {
	alice := &models.User{ID: 7, Username: "alice", State: models.UserActive}
	other := []byte("a-different-secret-of-32-bytes-!!!!")
	tests := []struct {
		name   string
		raw    func(t *testing.T) string
		aud    string
		reason string
	}{
		{"bad signature", func(t *testing.T) string { return signJWT(t, other, "at+jwt", nil) },
			oauthAudience, jwtauth.ReasonSignature},
		{"ID token typ JWT", func(t *testing.T) string { return signJWT(t, hsSecret, "JWT", nil) },
			oauthAudience, jwtauth.ReasonTokenType},
		{"other audience", func(t *testing.T) string { return signJWT(t, hsSecret, "at+jwt", nil) },
			"https://gitlab.example.com/api/v4/orbit/mcp", jwtauth.ReasonAudience},
		{"expired", func(t *testing.T) string {
			return signJWT(t, hsSecret, "at+jwt", jwt.MapClaims{"exp": t0.Add(-time.Hour).Unix(), "iat": t0.Add(-2 * time.Hour).Unix()})
		}, oauthAudience, jwtauth.ReasonExpired},
		{"sub not a user id", func(t *testing.T) string { return signJWT(t, hsSecret, "at+jwt", jwt.MapClaims{"sub": "alice"}) },
			oauthAudience, jwtauth.ReasonUserClaim},
		{"garbage", func(*testing.T) string { return "eyJhbGciOiJIUzI1NiJ9.e30.AAAA" },
			oauthAudience, jwtauth.ReasonSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			users := &fakeUserStore{users: []*models.User{alice}}
			o := newOAuth(t, users, "")
			id, err := o.Authenticate(context.Background(), tt.raw(t), tt.aud)
			if id != nil {
				t.Fatalf("identity = %+v, want nil", id)
			}
			wantAuthError(t, err, auth.Unauthenticated, auth.JWTReason(tt.reason))
			if len(users.byID)+len(users.byName) != 0 {
				t.Fatalf("user store consulted for a refused token")
			}
		})
	}
}

func TestOAuth_LooksLikeJWT(t *testing.T) {
	o := newOAuth(t, &fakeUserStore{}, "")
	jwtRaw := signJWT(t, hsSecret, "at+jwt", nil)
	pat := mintToken(t, 1)
	for _, raw := range []string{jwtRaw, pat, "glpat-abcdefghij0123456789", "", "a.b.c"} {
		if got, want := o.LooksLikeJWT(raw), jwtauth.LooksLikeJWT(raw); got != want {
			t.Fatalf("LooksLikeJWT(%q) = %v, jwtauth says %v", raw, got, want)
		}
	}
	if !o.LooksLikeJWT(jwtRaw) || o.LooksLikeJWT(pat) {
		t.Fatalf("LooksLikeJWT: JWT %v, PAT %v; want true, false", o.LooksLikeJWT(jwtRaw), o.LooksLikeJWT(pat))
	}
}

func TestNewOAuth_validation(t *testing.T) {
	v, err := jwtauth.New(jwtauth.Config{Issuer: oauthIssuer, HS256Secret: hsSecret})
	if err != nil {
		t.Fatalf("jwtauth.New: %v", err)
	}
	if o, err := auth.NewOAuth(nil, &fakeUserStore{}); err == nil || o != nil {
		t.Fatalf("NewOAuth(nil verifier) = %v, %v; want an error", o, err)
	}
	if o, err := auth.NewOAuth(v, nil); err == nil || o != nil {
		t.Fatalf("NewOAuth(nil users) = %v, %v; want an error", o, err)
	}
}
