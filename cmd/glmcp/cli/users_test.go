package cli

import (
	"strconv"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/auth"
)

// Ensure users create stores an active user and prints its id.
func TestUsersCreate(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		out := b.mustRun(t, "users", "create", "--username", "erin.k", "--email", "erin@example.com", "--name", "Erin K", "--admin", "--ee-seat")
		id, err := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
		if err != nil || strings.Count(out, "\n") != 1 {
			t.Fatalf("stdout = %q, want the user id on one line", out)
		}
		u := findUser(t, b.store(t), "erin.k")
		if u.ID != id || u.Email != "erin@example.com" || u.Name != "Erin K" || u.State != models.UserActive || !u.Admin || !u.EESeat {
			t.Errorf("stored user = %+v", u)
		}

		b.mustRun(t, "users", "create", "--username", "frank", "--email", "frank@example.com")
		if u := findUser(t, b.store(t), "frank"); u.Name != "frank" || u.Admin || u.EESeat {
			t.Errorf("defaults: name %q admin %t ee seat %t, want frank/false/false", u.Name, u.Admin, u.EESeat)
		}
	})
}

// Ensure invalid and duplicate users are refused with a clear message and
// no row is written.
func TestUsersCreate_invalid(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		b.createUser(t, "erin")
		s := b.store(t)
		tests := []struct {
			name string
			args []string
			want []string
		}{
			{"username with a space", []string{"--username", "bad name", "--email", "x@example.com"}, []string{"--username", "not a valid username", "jane.doe"}},
			{"username starting with a dash", []string{"--username", "-bad", "--email", "x@example.com"}, []string{"--username"}},
			{"username too short", []string{"--username", "x", "--email", "x@example.com"}, []string{"--username", "at least 2 characters"}},
			{"missing username", []string{"--email", "x@example.com"}, []string{"--username", "required"}},
			{"bad email", []string{"--username", "xavier", "--email", "not-an-email"}, []string{"--email", "not a valid email address (for example jane@example.com)"}},
			{"missing email", []string{"--username", "xavier"}, []string{"--email", "required"}},
			{"duplicate username", []string{"--username", "erin", "--email", "other@example.com"}, []string{"already exists", `"erin"`}},
			{"duplicate email", []string{"--username", "erin2", "--email", "erin@example.com"}, []string{"already exists", "erin@example.com"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				before := count(t, s, &models.User{})
				b.wantErr(t, tt.want, append([]string{"users", "create"}, tt.args...)...)
				if after := count(t, s, &models.User{}); after != before {
					t.Errorf("user rows: %d before, %d after", before, after)
				}
			})
		}
	})
}

// Ensure block, deactivate and unblock change the user's state, and a
// blocked user's tokens stop working until it is unblocked.
func TestUsersState(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		b.createUser(t, "erin")
		token := strings.TrimSpace(b.mustRun(t, "tokens", "create", "--user", "erin", "--scopes", "mcp"))
		s := b.store(t)
		secret := b.secret(t)

		steps := []struct {
			cmd      string
			state    models.UserState
			wantAuth bool
		}{
			{"block", models.UserBlocked, false},
			{"unblock", models.UserActive, true},
			{"deactivate", models.UserDeactivated, false},
			{"unblock", models.UserActive, true},
		}
		for _, st := range steps {
			if out := b.mustRun(t, "users", st.cmd, "erin"); out != "" {
				t.Errorf("users %s printed %q, want nothing", st.cmd, out)
			}
			if u := findUser(t, s, "erin"); u.State != st.state {
				t.Fatalf("after users %s: state %q, want %q", st.cmd, u.State, st.state)
			}
			_, err := authenticate(t, s, secret, token)
			if st.wantAuth && err != nil {
				t.Errorf("after users %s: token refused: %v", st.cmd, err)
			}
			if !st.wantAuth && authKind(err) != auth.UserForbidden {
				t.Errorf("after users %s: authenticate = %v, want a forbidden user", st.cmd, err)
			}
		}
		b.wantErr(t, []string{`no user "nobody"`}, "users", "block", "nobody")
		b.wantErr(t, []string{"accepts 1 arg"}, "users", "block")
	})
}

// Ensure users list prints every user with its state.
func TestUsersList(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		b.createUser(t, "erin")
		b.createUser(t, "frank")
		b.mustRun(t, "users", "block", "frank")
		rows := lines(b.mustRun(t, "users", "list"))
		if len(rows) != 3 || !strings.HasPrefix(rows[0], "ID") {
			t.Fatalf("users list = %q, want a header and 2 rows", rows)
		}
		if f := strings.Fields(rows[1]); f[1] != "erin" || !strings.Contains(rows[1], "active") {
			t.Errorf("row 1 = %q, want erin, active", rows[1])
		}
		if f := strings.Fields(rows[2]); f[1] != "frank" || !strings.Contains(rows[2], "blocked") {
			t.Errorf("row 2 = %q, want frank, blocked", rows[2])
		}
	})
}

// Ensure users set-rate-limit stores a user's own limit, "default" clears
// it, users list shows it, and bad input changes nothing.
func TestUsersSetRateLimit(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		b.createUser(t, "erin")
		b.mustRun(t, "users", "set-rate-limit", "erin", "60/60s")
		if u := findUser(t, b.store(t), "erin"); u.RateLimitRequests != 60 || u.RateLimitPeriodSeconds != 60 {
			t.Fatalf("stored limit = %d/%ds, want 60/60s", u.RateLimitRequests, u.RateLimitPeriodSeconds)
		}
		rows := lines(b.mustRun(t, "users", "list"))
		if !strings.HasSuffix(rows[0], "RATE LIMIT") || !strings.HasSuffix(rows[1], "60/60s") {
			t.Errorf("users list = %q, want a RATE LIMIT column with 60/60s", rows)
		}
		for _, bad := range []struct{ args, want []string }{
			{[]string{"erin", "0"}, []string{"at least 1 request", "default"}},
			{[]string{"erin", "60"}, []string{"want N/WINDOW"}},
			{[]string{"erin", "60/500ms"}, []string{"whole seconds"}},
			{[]string{"nobody", "60/60s"}, []string{`no user "nobody"`}},
		} {
			b.wantErr(t, bad.want, append([]string{"users", "set-rate-limit"}, bad.args...)...)
		}
		if u := findUser(t, b.store(t), "erin"); u.RateLimitRequests != 60 || u.RateLimitPeriodSeconds != 60 || u.RateLimitWindows != "60/60s" {
			t.Fatalf("limit after refused changes = %d/%ds %q, want 60/60s", u.RateLimitRequests, u.RateLimitPeriodSeconds, u.RateLimitWindows)
		}
		// A list of windows is stored whole, its first window also in
		// the older columns; a bad list changes nothing.
		b.mustRun(t, "users", "set-rate-limit", "erin", "600/60s,5000/1h")
		if u := findUser(t, b.store(t), "erin"); u.RateLimitWindows != "600/60s,5000/3600s" || u.RateLimitRequests != 600 || u.RateLimitPeriodSeconds != 60 {
			t.Fatalf("stored list = %q (%d/%ds), want 600/60s,5000/3600s", u.RateLimitWindows, u.RateLimitRequests, u.RateLimitPeriodSeconds)
		}
		if rows := lines(b.mustRun(t, "users", "list")); !strings.HasSuffix(rows[1], "600/60s,5000/3600s") {
			t.Errorf("users list = %q, want the whole list", rows[1])
		}
		for _, bad := range []struct{ args, want []string }{
			{[]string{"erin", "600/60s,10/1m"}, []string{"two windows of 60s"}},
			{[]string{"erin", "600/60s,"}, []string{"want N/WINDOW"}},
			{[]string{"erin", "600/60s,0/1h"}, []string{"allows nothing"}},
		} {
			b.wantErr(t, bad.want, append([]string{"users", "set-rate-limit"}, bad.args...)...)
		}
		if u := findUser(t, b.store(t), "erin"); u.RateLimitWindows != "600/60s,5000/3600s" {
			t.Fatalf("list after refused changes = %q", u.RateLimitWindows)
		}
		b.mustRun(t, "users", "set-rate-limit", "ERIN", "default")
		if u := findUser(t, b.store(t), "erin"); u.RateLimitRequests != 0 || u.RateLimitPeriodSeconds != 0 || u.RateLimitWindows != "" {
			t.Fatalf("limit after default = %d/%ds %q, want 0/0 and no list", u.RateLimitRequests, u.RateLimitPeriodSeconds, u.RateLimitWindows)
		}
		if rows := lines(b.mustRun(t, "users", "list")); !strings.HasSuffix(rows[1], "default") {
			t.Errorf("users list after default = %q", rows[1])
		}
	})
}
