package spec

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/app"
	"gitlab.com/glmcp/glmcp/models"
)

// authMetadataURL is the protected resource metadata URL of the group at
// path (RFC 9728 §3.1), as named in every challenge.
func authMetadataURL(h *harness, path string) string {
	return h.Cfg.PublicURL + "/.well-known/oauth-protected-resource" + path
}

// authChallengeMetadata is the resource_metadata parameter of the group
// at path's challenges (with its leading ", "), or "" when no
// authorization server is configured and challenges name none.
func authChallengeMetadata(h *harness, path string) string {
	if !h.Cfg.AuthorizationServerConfigured() {
		return ""
	}
	return `, resource_metadata="` + authMetadataURL(h, path) + `"`
}

// authUser returns the stored user called username.
func authUser(t testing.TB, h *harness, username string) *models.User {
	t.Helper()
	u, err := h.Env.Store.Users.FindUserByUsername(context.Background(), username)
	if err != nil {
		t.Fatalf("find user %s: %v", username, err)
	}
	return u
}

// authMint mints a token for username with scopes, expiring at the given
// date (nil: never).
func authMint(t testing.TB, h *harness, username string, scopes []string, expires *time.Time) (string, *models.PersonalAccessToken) {
	t.Helper()
	raw, tok, err := app.MintToken(context.Background(), h.Env, authUser(t, h, username), "spec", scopes, expires)
	if err != nil {
		t.Fatalf("mint token: %v", err)
	}
	return raw, tok
}

// authDay returns midnight UTC of today plus days.
func authDay(days int) *time.Time {
	now := time.Now().UTC()
	d := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, days)
	return &d
}

// authStoredToken reads the token with id (of the user with userID) back
// from the store.
func authStoredToken(t testing.TB, h *harness, userID, id int64) *models.PersonalAccessToken {
	t.Helper()
	list, err := h.Env.Store.Users.ListTokens(context.Background(), &userID)
	if err != nil {
		t.Fatalf("list tokens: %v", err)
	}
	for i := range list {
		if list[i].ID == id {
			return &list[i]
		}
	}
	t.Fatalf("token %d not stored", id)
	return nil
}

// authAwaitLastUsed waits (bounded: the write happens off the request
// path) until the token's last_used_at is set, and returns it.
func authAwaitLastUsed(t testing.TB, h *harness, userID, id int64) time.Time {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		if at := authStoredToken(t, h, userID, id).LastUsedAt; at != nil {
			return *at
		}
		if time.Now().After(deadline) {
			t.Fatalf("last_used_at of token %d still unset after 15s", id)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// authPost sends a Legacy tools/list with the given credential headers.
func authPost(t testing.TB, h *harness, endpoint string, hd http.Header) *response {
	t.Helper()
	return h.send(t, call{URL: endpoint, Method: "tools/list", Header: hd})
}

// authExpectOK asserts a served Legacy tools/list (see authPost).
func authExpectOK(t testing.TB, r *response) {
	t.Helper()
	r.expectStatus(t, http.StatusOK)
	validateResult(t, rev20251125, "ListToolsResult", r.Body)
}

// authSyncBuffer is a goroutine-safe log sink.
type authSyncBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *authSyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (b *authSyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

// authIssueCount counts the issues of the project at path (iids are dense
// from 1).
func authIssueCount(t testing.TB, h *harness, path string) int {
	t.Helper()
	ctx := context.Background()
	p, err := h.Env.Store.Projects.FindProjectByPath(ctx, path)
	if err != nil {
		t.Fatalf("find project %s: %v", path, err)
	}
	n := 0
	for {
		_, err := h.Env.Store.Issues.LoadIssue(ctx, p.ID, int64(n+1))
		if errors.Is(err, models.ErrNotFound) {
			return n
		}
		if err != nil {
			t.Fatalf("load issue: %v", err)
		}
		n++
	}
}
