package store_test

import (
	"context"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

// A user's own list of windows is stored whole, its first window in the
// older columns; a bad list is ErrInvalidInput and changes nothing.
func TestUsers_SetUserRateLimits(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		mustCreateUser(t, s, "erin")
		get := func() *models.User {
			u, err := s.Users.FindUserByUsername(ctx, "erin")
			if err != nil {
				t.Fatal(err)
			}
			return u
		}
		ws := []models.RateWindow{{Requests: 600, PeriodSeconds: 60}, {Requests: 5000, PeriodSeconds: 3600}}
		wantErr(t, "set", s.Users.SetUserRateLimits(ctx, "Erin", ws), nil)
		if u := get(); u.RateLimitWindows != "600/60s,5000/3600s" || u.RateLimitRequests != 600 || u.RateLimitPeriodSeconds != 60 {
			t.Fatalf("stored %q %d/%ds", u.RateLimitWindows, u.RateLimitRequests, u.RateLimitPeriodSeconds)
		}
		nine := make([]models.RateWindow, 9)
		for i := range nine {
			nine[i] = models.RateWindow{Requests: 1, PeriodSeconds: i + 1}
		}
		for name, bad := range map[string][]models.RateWindow{
			"same length":  {{Requests: 1, PeriodSeconds: 60}, {Requests: 2, PeriodSeconds: 60}},
			"no requests":  {{Requests: 1, PeriodSeconds: 60}, {Requests: 0, PeriodSeconds: 3600}},
			"too long":     {{Requests: 1, PeriodSeconds: 86_401}},
			"too many":     {{Requests: 1_000_001, PeriodSeconds: 60}},
			"nine windows": nine,
		} {
			wantErr(t, name, s.Users.SetUserRateLimits(ctx, "erin", bad), models.ErrInvalidInput)
		}
		if u := get(); u.RateLimitWindows != "600/60s,5000/3600s" || u.RateLimitRequests != 600 {
			t.Fatalf("after bad lists: %q %d", u.RateLimitWindows, u.RateLimitRequests)
		}
		wantErr(t, "unknown user", s.Users.SetUserRateLimits(ctx, "nobody", ws), models.ErrNotFound)
		wantErr(t, "clear", s.Users.SetUserRateLimit(ctx, "erin", 0, 0), nil)
		if u := get(); u.RateLimitWindows != "" || u.RateLimitRequests != 0 || u.RateLimitPeriodSeconds != 0 {
			t.Fatalf("after clear: %q %d/%ds", u.RateLimitWindows, u.RateLimitRequests, u.RateLimitPeriodSeconds)
		}
	})
}
