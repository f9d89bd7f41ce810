package store_test

import (
	"context"
	"sync"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

func TestStore_EnsureSetting(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		v, err := s.Settings.EnsureSetting(ctx, "secret", "first")
		if err != nil || v != "first" {
			t.Fatalf("EnsureSetting(new) = %q, %v; want first", v, err)
		}
		if v, err = s.Settings.EnsureSetting(ctx, "secret", "second"); err != nil || v != "first" {
			t.Fatalf("EnsureSetting(existing) = %q, %v; want the stored first", v, err)
		}
		if _, err = s.Settings.EnsureSetting(ctx, "", "x"); err == nil {
			t.Fatal("empty key accepted")
		}
		// Racing instances agree on one value.
		var wg sync.WaitGroup
		got := make([]string, 8)
		for i := range got {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[i], _ = s.Settings.EnsureSetting(ctx, "race", string(rune('a'+i)))
			}()
		}
		wg.Wait()
		for _, g := range got {
			if g == "" || g != got[0] {
				t.Fatalf("racing EnsureSetting returned %q, want one value for all", got)
			}
		}
	})
}

// Ensure ReplaceSetting swaps only the expected value (two rotations racing
// cannot both win) and RevokeAllTokens counts what it revoked.
func TestStore_ReplaceSettingAndRevokeAll(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		if _, err := s.Settings.EnsureSetting(ctx, "fp", "a"); err != nil {
			t.Fatal(err)
		}
		wantErr(t, "ReplaceSetting(a→b)", s.Settings.ReplaceSetting(ctx, "fp", "a", "b"), nil)
		wantErr(t, "ReplaceSetting(stale a→c)", s.Settings.ReplaceSetting(ctx, "fp", "a", "c"), models.ErrConflict)
		wantErr(t, "ReplaceSetting(missing key)", s.Settings.ReplaceSetting(ctx, "nope", "a", "c"), models.ErrConflict)
		if v, _ := s.Settings.EnsureSetting(ctx, "fp", "z"); v != "b" {
			t.Fatalf("setting = %q, want b", v)
		}
		u := mustCreateUser(t, s, "alice")
		for _, d := range []string{"d1", "d2"} {
			wantErr(t, "CreateToken", s.Users.CreateToken(ctx, &models.PersonalAccessToken{UserID: u.ID, Name: d, TokenDigest: d}), nil)
		}
		if n, err := s.Users.RevokeAllTokens(ctx); n != 2 || err != nil {
			t.Fatalf("RevokeAllTokens = %d, %v; want 2", n, err)
		}
		if n, err := s.Users.RevokeAllTokens(ctx); n != 0 || err != nil {
			t.Fatalf("RevokeAllTokens again = %d, %v; want 0", n, err)
		}
	})
}
