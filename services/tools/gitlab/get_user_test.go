package gitlab_test

import (
	"testing"
)

// Ensure get_user finds a user by username (a leading @ ignored), by id
// and as me, answers GitLab's not found for a missing one, and refuses
// anything but exactly one of the three.
func TestGetUser(t *testing.T) {
	w := newWorld(t)
	for _, tc := range []struct{ name, args, username string }{
		{"by username", `{"username":"@bob"}`, "bob"},
		{"by id", `{"id":` + itoa(w.Bob.ID) + `}`, "bob"},
		{"me", `{"me":true}`, "alice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := w.ok(t, w.Alice, "get_user", tc.args)
			if m["username"] != tc.username || m["web_url"] != publicURL+"/"+tc.username || m["state"] != "active" {
				t.Errorf("get_user %s = %v, want %s", tc.args, m, tc.username)
			}
		})
	}
	w.fails(t, w.Alice, "get_user", `{"username":"nobody-here"}`, "User not found or inaccessible")
	w.fails(t, w.Alice, "get_user", `{"id":999999}`, "User not found or inaccessible")
	w.fails(t, w.Alice, "get_user", `{}`, "Validation error: Provide exactly one of username, id, or me")
	w.fails(t, w.Alice, "get_user", `{"username":"bob","me":true}`, "Validation error: Provide exactly one of username, id, or me")
}
