package store_test

import (
	"context"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

func TestStore_Tokens(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		alice := mustCreateUser(t, s, "alice")
		bob := mustCreateUser(t, s, "bob")

		expires := time.Date(2027, 3, 1, 17, 45, 0, 0, time.FixedZone("PST", -8*3600))
		tok := &models.PersonalAccessToken{UserID: alice.ID, Name: "laptop", TokenDigest: "digest-a",
			Scopes: models.StringList{models.ScopeMCP, models.ScopeReadAPI}, ExpiresAt: &expires}
		wantErr(t, "CreateToken(alice)", s.Users.CreateToken(ctx, tok), nil)
		wantErr(t, "CreateToken(bob)", s.Users.CreateToken(ctx, &models.PersonalAccessToken{UserID: bob.ID, Name: "ci", TokenDigest: "digest-b"}), nil)

		wantErr(t, "CreateToken(same digest)", s.Users.CreateToken(ctx, &models.PersonalAccessToken{UserID: bob.ID, Name: "dup", TokenDigest: "digest-a"}), models.ErrConflict)
		wantErr(t, "CreateToken(unknown user)", s.Users.CreateToken(ctx, &models.PersonalAccessToken{UserID: 999, Name: "x", TokenDigest: "digest-x"}), models.ErrInvalidInput)
		wantErr(t, "CreateToken(empty digest)", s.Users.CreateToken(ctx, &models.PersonalAccessToken{UserID: bob.ID, Name: "x"}), models.ErrInvalidInput)

		got, err := s.Users.FindTokenByDigest(ctx, "digest-a")
		if err != nil {
			t.Fatalf("FindTokenByDigest() error = %v", err)
		}
		if got.ID != tok.ID || got.User == nil || got.User.Username != "alice" {
			t.Fatalf("FindTokenByDigest() = %+v (user %+v), want alice's token with its user", got, got.User)
		}
		if len(got.Scopes) != 2 || !got.Scopes.Contains(models.ScopeMCP) || !got.Scopes.Contains(models.ScopeReadAPI) {
			t.Errorf("Scopes = %v, want [mcp read_api]", got.Scopes)
		}
		// expires_at is a date: the UTC day of the given instant (17:45 PST
		// on March 1st is 01:45 UTC on March 2nd), at midnight UTC.
		if got.ExpiresAt == nil || !got.ExpiresAt.Equal(time.Date(2027, 3, 2, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("ExpiresAt = %v, want 2027-03-02 (UTC day of the given instant)", got.ExpiresAt)
		}
		_, err = s.Users.FindTokenByDigest(ctx, "nope")
		wantErr(t, "FindTokenByDigest(unknown)", err, models.ErrNotFound)

		all, err := s.Users.ListTokens(ctx, nil)
		if err != nil || len(all) != 2 || all[0].Name != "laptop" || all[1].Name != "ci" || all[1].User.Username != "bob" {
			t.Errorf("ListTokens(nil) = %+v, %v; want laptop (alice), ci (bob)", all, err)
		}
		mine, err := s.Users.ListTokens(ctx, &bob.ID)
		if err != nil || len(mine) != 1 || mine[0].Name != "ci" {
			t.Errorf("ListTokens(bob) = %+v, %v; want [ci]", mine, err)
		}

		wantErr(t, "RevokeToken", s.Users.RevokeToken(ctx, tok.ID), nil)
		wantErr(t, "RevokeToken again", s.Users.RevokeToken(ctx, tok.ID), nil)
		wantErr(t, "RevokeToken(unknown)", s.Users.RevokeToken(ctx, 999), models.ErrNotFound)
		if got, _ := s.Users.FindTokenByDigest(ctx, "digest-a"); !got.Revoked {
			t.Errorf("token after RevokeToken: revoked = false")
		}
	})
}

func TestStore_TouchTokenLastUsed(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		u := mustCreateUser(t, s, "alice")
		tok := &models.PersonalAccessToken{UserID: u.ID, Name: "t", TokenDigest: "d"}
		wantErr(t, "CreateToken", s.Users.CreateToken(ctx, tok), nil)
		t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

		steps := []struct {
			name string
			at   time.Time
			want time.Time
		}{
			{"first use is recorded", t0, t0},
			{"5 minutes later: unchanged", t0.Add(5 * time.Minute), t0},
			{"exactly 10 minutes later: unchanged", t0.Add(10 * time.Minute), t0},
			{"11 minutes later: recorded", t0.Add(11 * time.Minute), t0.Add(11 * time.Minute)},
			{"an older instant never moves it back", t0, t0.Add(11 * time.Minute)},
		}
		for _, st := range steps {
			wantErr(t, "TouchTokenLastUsed("+st.name+")", s.Users.TouchTokenLastUsed(ctx, tok.ID, st.at), nil)
			got, err := s.Users.FindTokenByDigest(ctx, "d")
			if err != nil {
				t.Fatal(err)
			}
			if got.LastUsedAt == nil || !got.LastUsedAt.Equal(st.want) {
				t.Errorf("%s: last_used_at = %v, want %v", st.name, got.LastUsedAt, st.want)
			}
		}
		wantErr(t, "TouchTokenLastUsed(unknown)", s.Users.TouchTokenLastUsed(ctx, 999, t0), nil)
	})
}
