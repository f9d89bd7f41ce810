package store_test

import (
	"context"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

func TestStore_Users(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		alice := mustCreateUser(t, s, "alice")
		if alice.ID == 0 || alice.State != models.UserActive || alice.CreatedAt.IsZero() {
			t.Errorf("CreateUser() filled %+v, want ID, active state and created_at", alice)
		}
		bob := mustCreateUser(t, s, "bob")

		tests := []struct {
			name string
			user models.User
			want error
		}{
			{"username taken, ignoring case", models.User{Username: "ALICE", Email: "other@example.com"}, models.ErrConflict},
			{"email taken, ignoring case", models.User{Username: "alice2", Email: "Alice@Example.com"}, models.ErrConflict},
			{"empty username", models.User{Email: "x@example.com"}, models.ErrInvalidInput},
			{"empty email", models.User{Username: "x"}, models.ErrInvalidInput},
			{"unknown state", models.User{Username: "x", Email: "x@example.com", State: "zombie"}, models.ErrInvalidInput},
		}
		for _, tt := range tests {
			err := s.Users.CreateUser(ctx, &tt.user)
			wantErr(t, "CreateUser("+tt.name+")", err, tt.want)
		}
		if n := countRows(t, s, "users"); n != 2 {
			t.Errorf("users = %d after refused creates, want 2", n)
		}

		got, err := s.Users.FindUserByUsername(ctx, "Alice")
		if err != nil || got.ID != alice.ID {
			t.Errorf("FindUserByUsername(Alice) = %+v, %v; want alice", got, err)
		}
		got, err = s.Users.FindUserByID(ctx, bob.ID)
		if err != nil || got.Username != "bob" {
			t.Errorf("FindUserByID(bob) = %+v, %v", got, err)
		}
		_, err = s.Users.FindUserByID(ctx, 999)
		wantErr(t, "FindUserByID(999)", err, models.ErrNotFound)
		_, err = s.Users.FindUserByUsername(ctx, "nobody")
		wantErr(t, "FindUserByUsername(nobody)", err, models.ErrNotFound)

		users, err := s.Users.ListUsers(ctx)
		if err != nil || len(users) != 2 || users[0].Username != "alice" || users[1].Username != "bob" {
			t.Errorf("ListUsers() = %+v, %v; want alice, bob", users, err)
		}

		wantErr(t, "SetUserState(bob, blocked)", s.Users.SetUserState(ctx, "BOB", models.UserBlocked), nil)
		if got, _ := s.Users.FindUserByID(ctx, bob.ID); got.State != models.UserBlocked || got.Active() {
			t.Errorf("bob after SetUserState = %+v, want blocked", got)
		}
		wantErr(t, "SetUserState(bob, blocked) again", s.Users.SetUserState(ctx, "bob", models.UserBlocked), nil)
		wantErr(t, "SetUserState(nobody)", s.Users.SetUserState(ctx, "nobody", models.UserBlocked), models.ErrNotFound)
		wantErr(t, "SetUserState(bob, zombie)", s.Users.SetUserState(ctx, "bob", "zombie"), models.ErrInvalidInput)
	})
}
