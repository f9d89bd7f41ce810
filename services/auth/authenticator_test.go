package auth_test

import (
	"bytes"
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

const testSecret = "0123456789abcdef0123456789abcdef-and-more"

var t0 = time.Date(2026, 9, 14, 12, 0, 0, 0, time.UTC)

// touchCall is one recorded TouchTokenLastUsed.
type touchCall struct {
	id        int64
	at        time.Time
	ctxErrNil bool
}

// fakeTokenStore serves tokens by digest and records every call. Touches
// are also sent on touched (buffered), so tests can wait for them.
type fakeTokenStore struct {
	mu       sync.Mutex
	byDigest map[string]*models.PersonalAccessToken
	findErr  error
	finds    []string
	touches  []touchCall
	touched  chan touchCall
}

func newFakeTokenStore() *fakeTokenStore {
	return &fakeTokenStore{byDigest: map[string]*models.PersonalAccessToken{}, touched: make(chan touchCall, 100)}
}

// add stores tok under raw's digest.
func (s *fakeTokenStore) add(raw string, tok *models.PersonalAccessToken) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if tok.UserID == 0 && tok.User != nil {
		tok.UserID = tok.User.ID // as the store fills it
	}
	s.byDigest[auth.Digest(raw, testSecret)] = tok
}

func (s *fakeTokenStore) FindTokenByDigest(_ context.Context, digest string) (*models.PersonalAccessToken, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.finds = append(s.finds, digest)
	if s.findErr != nil {
		return nil, s.findErr
	}
	tok, ok := s.byDigest[digest]
	if !ok {
		return nil, fmt.Errorf("find token by digest: %w", models.ErrNotFound)
	}
	return tok, nil
}

func (s *fakeTokenStore) TouchTokenLastUsed(ctx context.Context, id int64, at time.Time) error {
	c := touchCall{id: id, at: at, ctxErrNil: ctx.Err() == nil}
	s.mu.Lock()
	s.touches = append(s.touches, c)
	s.mu.Unlock()
	s.touched <- c
	return nil
}

func (s *fakeTokenStore) findCalls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.finds...)
}

func (s *fakeTokenStore) touchCalls() []touchCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]touchCall(nil), s.touches...)
}

// nextTouch waits (bounded) for the next TouchTokenLastUsed.
func (s *fakeTokenStore) nextTouch(t *testing.T) touchCall {
	t.Helper()
	select {
	case c := <-s.touched:
		return c
	case <-time.After(5 * time.Second):
		t.Fatal("no TouchTokenLastUsed within 5s")
		return touchCall{}
	}
}

// mintToken returns a versioned routable token of activeUser generated
// from seed.
func mintToken(t *testing.T, seed byte) string {
	t.Helper()
	tok, err := auth.DefaultTokenFormat().Generate(bytes.NewReader(bytes.Repeat([]byte{seed}, 16)), activeUser().ID)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return tok
}

func newAuthenticator(t *testing.T, store auth.TokenStore, clk *clocktest.Clock) *auth.Authenticator {
	t.Helper()
	a, err := auth.NewAuthenticator(store, testSecret, clk.Now, nil)
	if err != nil {
		t.Fatalf("NewAuthenticator: %v", err)
	}
	return a
}

func activeUser() *models.User {
	return &models.User{ID: 7, Username: "alice", State: models.UserActive}
}

// wantAuthError asserts err is an *auth.Error of kind with reason.
func wantAuthError(t *testing.T, err error, kind auth.Kind, reason string) *auth.Error {
	t.Helper()
	var ae *auth.Error
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v (%T), want *auth.Error", err, err)
	}
	if ae.Kind != kind || ae.Reason != reason {
		t.Fatalf("err = {Kind %d, Reason %q}, want {Kind %d, Reason %q}", ae.Kind, ae.Reason, kind, reason)
	}
	if !ae.Presented {
		t.Fatalf("err.Presented = false for a presented token")
	}
	return ae
}

func TestAuthenticator_Authenticate_malformedSkipsStore(t *testing.T) {
	store := newFakeTokenStore()
	a := newAuthenticator(t, store, clocktest.New(t0))
	good := mintToken(t, 1)
	for _, raw := range []string{"", "glpat-short", "not-a-token", good[:len(good)-1] + map[bool]string{true: "y", false: "x"}[strings.HasSuffix(good, "x")], strings.Repeat("a", 300)} {
		id, err := a.Authenticate(context.Background(), raw)
		if id != nil {
			t.Fatalf("Authenticate(%q) identity = %+v, want nil", raw, id)
		}
		wantAuthError(t, err, auth.Unauthenticated, "Token is malformed: it is not a GitLab personal access token (glpat-...) or OAuth access token. Send the whole token, as Authorization: Bearer TOKEN.")
	}
	if calls := store.findCalls(); len(calls) != 0 {
		t.Fatalf("store called %d times for malformed tokens", len(calls))
	}
}

func TestAuthenticator_Authenticate(t *testing.T) {
	future := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	past := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		tok    *models.PersonalAccessToken // nil: not stored
		kind   auth.Kind
		reason string
	}{
		{"unknown token", nil, auth.Unauthenticated, "Personal access token is invalid: this server knows no such token. Check it was copied whole, or create a new one with the mcp scope."},
		{"revoked token", &models.PersonalAccessToken{ID: 1, Revoked: true, User: activeUser(), ExpiresAt: &future},
			auth.Unauthenticated, "Personal access token was revoked. Create a new one with the mcp scope (GitLab: User settings, Access tokens) and use it instead."},
		{"expired token", &models.PersonalAccessToken{ID: 1, User: activeUser(), ExpiresAt: &past},
			auth.Unauthenticated, "Personal access token has expired. Create a new one with the mcp scope (GitLab: User settings, Access tokens) and use it instead."},
		{"token without user", &models.PersonalAccessToken{ID: 1},
			auth.Unauthenticated, "Personal access token is invalid: this server knows no such token. Check it was copied whole, or create a new one with the mcp scope."},
		{"blocked user", &models.PersonalAccessToken{ID: 1, User: &models.User{ID: 7, State: models.UserBlocked}},
			auth.UserForbidden, "Your account has been blocked. Ask an administrator to unblock it."},
		{"deactivated user", &models.PersonalAccessToken{ID: 1, User: &models.User{ID: 7, State: models.UserDeactivated}},
			auth.UserForbidden, "Your account has been deactivated. Please log back in from a web browser to reactivate your account."},
		{"user in an unknown state", &models.PersonalAccessToken{ID: 1, User: &models.User{ID: 7, State: "ldap_blocked"}},
			auth.UserForbidden, "Your account is not active."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := newFakeTokenStore()
			raw := mintToken(t, 2)
			if tt.tok != nil {
				store.add(raw, tt.tok)
			}
			a := newAuthenticator(t, store, clocktest.New(t0))
			id, err := a.Authenticate(context.Background(), raw)
			if id != nil {
				t.Fatalf("identity = %+v, want nil", id)
			}
			wantAuthError(t, err, tt.kind, tt.reason)
			if strings.Contains(err.Error(), raw) {
				t.Fatalf("error %q contains the token", err)
			}
			if got := store.findCalls(); len(got) != 1 || got[0] != auth.Digest(raw, testSecret) {
				t.Fatalf("store lookups = %q, want one by the digest", got)
			}
			if n := len(store.touchCalls()); n != 0 {
				t.Fatalf("%d touches queued for a refused token", n)
			}
		})
	}
}

func TestAuthenticator_Authenticate_success(t *testing.T) {
	store := newFakeTokenStore()
	raw := mintToken(t, 3)
	u := activeUser()
	future := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	store.add(raw, &models.PersonalAccessToken{ID: 42, User: u, Scopes: models.StringList{"mcp", "read_api"}, ExpiresAt: &future})
	a := newAuthenticator(t, store, clocktest.New(t0))

	id, err := a.Authenticate(context.Background(), raw)
	if err != nil {
		t.Fatalf("Authenticate: %v", err)
	}
	want := &models.Identity{User: u, Method: models.MethodPAT, TokenID: 42, Scopes: []string{"mcp", "read_api"}}
	if !reflect.DeepEqual(id, want) {
		t.Fatalf("identity = %+v, want %+v", id, want)
	}
	if id.User == u {
		t.Fatalf("identity user is the store's row, want a copy (the row may be cached and shared)")
	}
}

func TestAuthenticator_Authenticate_legacyToken(t *testing.T) {
	store := newFakeTokenStore()
	const raw = "glpat-abcdefghij0123456789"
	store.add(raw, &models.PersonalAccessToken{ID: 5, User: activeUser(), Scopes: models.StringList{"api"}})
	a := newAuthenticator(t, store, clocktest.New(t0))
	id, err := a.Authenticate(context.Background(), raw)
	if err != nil {
		t.Fatalf("Authenticate(legacy): %v", err)
	}
	if id.TokenID != 5 || id.Method != models.MethodPAT {
		t.Fatalf("identity = %+v, want token 5 by PAT", id)
	}
}

func TestAuthenticator_Authenticate_expiryBoundary(t *testing.T) {
	// The token expires on 2026-09-15: valid through 2026-09-14 23:59:59
	// UTC, expired from 2026-09-15 00:00:00 UTC on.
	day := time.Date(2026, 9, 15, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		now     time.Time
		expired bool
	}{
		{day.Add(-24 * time.Hour), false},
		{day.Add(-time.Second), false},
		{day.Add(-time.Nanosecond), false},
		{day, true},
		{day.Add(time.Second), true},
		{day.Add(48 * time.Hour), true},
		// The same instants seen from another zone decide the same way.
		{day.Add(-time.Second).In(time.FixedZone("UTC-5", -5*3600)), false},
		{day.In(time.FixedZone("UTC+9", 9*3600)), true},
	}
	for _, tt := range tests {
		t.Run(tt.now.Format(time.RFC3339Nano), func(t *testing.T) {
			store := newFakeTokenStore()
			raw := mintToken(t, 4)
			store.add(raw, &models.PersonalAccessToken{ID: 1, User: activeUser(), ExpiresAt: &day, Scopes: models.StringList{"api"}})
			a := newAuthenticator(t, store, clocktest.New(tt.now))
			id, err := a.Authenticate(context.Background(), raw)
			if tt.expired {
				wantAuthError(t, err, auth.Unauthenticated, "Personal access token has expired. Create a new one with the mcp scope (GitLab: User settings, Access tokens) and use it instead.")
				return
			}
			if err != nil || id == nil {
				t.Fatalf("Authenticate = %v, %v; want an identity", id, err)
			}
		})
	}
}

func TestAuthenticator_Authenticate_storeFailure(t *testing.T) {
	store := newFakeTokenStore()
	boom := errors.New("connection refused")
	store.findErr = boom
	raw := mintToken(t, 5)
	a := newAuthenticator(t, store, clocktest.New(t0))
	id, err := a.Authenticate(context.Background(), raw)
	if id != nil {
		t.Fatalf("identity = %+v, want nil", id)
	}
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want it to wrap %v", err, boom)
	}
	var ae *auth.Error
	if errors.As(err, &ae) {
		t.Fatalf("store failure returned *auth.Error %+v, want a plain error", ae)
	}
	if strings.Contains(err.Error(), raw) {
		t.Fatalf("error %q contains the token", err)
	}
}

func TestAuthenticator_lastUsed(t *testing.T) {
	store := newFakeTokenStore()
	rawA, rawB := mintToken(t, 6), mintToken(t, 7)
	store.add(rawA, &models.PersonalAccessToken{ID: 1, User: activeUser(), Scopes: models.StringList{"api"}})
	store.add(rawB, &models.PersonalAccessToken{ID: 2, User: activeUser(), Scopes: models.StringList{"api"}})
	clk := clocktest.New(t0)
	a := newAuthenticator(t, store, clk)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})

	authOK := func(raw string) {
		t.Helper()
		if _, err := a.Authenticate(context.Background(), raw); err != nil {
			t.Fatalf("Authenticate: %v", err)
		}
	}

	// First use of token 1 queues one write.
	authOK(rawA)
	if got := store.nextTouch(t); got.id != 1 || !got.at.Equal(t0) {
		t.Fatalf("touch = %+v, want token 1 at %v", got, t0)
	}

	// Within ten minutes nothing is queued for token 1. Token 2 then
	// queues one; the queue is FIFO with one consumer, so had token 1
	// queued a second write it would arrive first.
	clk.Set(t0.Add(9 * time.Minute))
	authOK(rawA)
	authOK(rawB)
	if got := store.nextTouch(t); got.id != 2 || !got.at.Equal(t0.Add(9*time.Minute)) {
		t.Fatalf("touch = %+v, want token 2 at t0+9m (token 1 touched again within 10m?)", got)
	}

	// Ten minutes after the first write, token 1 is written again.
	clk.Set(t0.Add(10 * time.Minute))
	authOK(rawA)
	if got := store.nextTouch(t); got.id != 1 || !got.at.Equal(t0.Add(10*time.Minute)) {
		t.Fatalf("touch = %+v, want token 1 at t0+10m", got)
	}

	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return within 5s of ctx cancel")
	}
	if got := store.touchCalls(); len(got) != 3 {
		t.Fatalf("touches = %+v, want 3", got)
	}
}

func TestAuthenticator_Run_drainsQueueOnCancel(t *testing.T) {
	store := newFakeTokenStore()
	var raws []string
	for i := range 3 {
		raw := mintToken(t, byte(10+i))
		raws = append(raws, raw)
		store.add(raw, &models.PersonalAccessToken{ID: int64(100 + i), User: activeUser(), Scopes: models.StringList{"api"}})
	}
	a := newAuthenticator(t, store, clocktest.New(t0))
	for _, raw := range raws {
		if _, err := a.Authenticate(context.Background(), raw); err != nil {
			t.Fatalf("Authenticate: %v", err)
		}
	}
	if n := len(store.touchCalls()); n != 0 {
		t.Fatalf("%d touches written before Run", n)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a.Run(ctx) // returns once the queue is drained

	got := store.touchCalls()
	if len(got) != 3 {
		t.Fatalf("touches after drain = %+v, want 3", got)
	}
	for i, c := range got {
		if c.id != int64(100+i) || !c.at.Equal(t0) {
			t.Fatalf("touch %d = %+v, want token %d at t0", i, c, 100+i)
		}
		if !c.ctxErrNil {
			t.Fatalf("touch %d ran with a cancelled context", i)
		}
	}
}

func TestNewAuthenticator_validation(t *testing.T) {
	store := newFakeTokenStore()
	tests := []struct {
		name    string
		store   auth.TokenStore
		secret  string
		wantErr bool
	}{
		{"nil store", nil, testSecret, true},
		{"empty secret", store, "", true},
		{"secret of 31 characters", store, strings.Repeat("s", 31), true},
		{"secret of 32 characters", store, strings.Repeat("s", 32), false},
		{"long secret", store, testSecret, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := auth.NewAuthenticator(tt.store, tt.secret, nil, nil)
			if tt.wantErr {
				if err == nil || a != nil {
					t.Fatalf("NewAuthenticator = %v, %v; want nil and an error", a, err)
				}
				return
			}
			if err != nil || a == nil {
				t.Fatalf("NewAuthenticator = %v, %v; want an authenticator", a, err)
			}
		})
	}
}
