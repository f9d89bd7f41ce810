package store

import (
	"context"
	"fmt"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

// CreateUser inserts u and fills its ID and timestamps. An empty State
// becomes active. A username or email already taken (ignoring case) is
// models.ErrConflict; an empty username or email, or an unknown state, is
// models.ErrInvalidInput.
func (s *Users) CreateUser(ctx context.Context, u *models.User) error {
	if u.State == "" {
		u.State = models.UserActive
	}
	if strings.TrimSpace(u.Username) == "" || strings.TrimSpace(u.Email) == "" {
		return fmt.Errorf("create user %q: username and email are required: %w", u.Username, models.ErrInvalidInput)
	}
	if !validUserState(u.State) {
		return fmt.Errorf("create user %q: state %q: %w", u.Username, u.State, models.ErrInvalidInput)
	}
	u.ID = 0
	if err := s.conn(ctx).Create(u).Error; err != nil {
		return fmt.Errorf("create user %q: %w", u.Username, translate(err))
	}
	s.changedViews(userViews(u.ID))
	return nil
}

// FindUserByID returns the user with id, or models.ErrNotFound.
func (s *Users) FindUserByID(ctx context.Context, id int64) (*models.User, error) {
	var u models.User
	if err := s.conn(ctx).Where("id = ?", id).Take(&u).Error; err != nil {
		return nil, fmt.Errorf("find user %d: %w", id, translate(err))
	}
	return &u, nil
}

// FindUserByUsername returns the user called username, ignoring case as
// GitLab does, or models.ErrNotFound.
func (s *Users) FindUserByUsername(ctx context.Context, username string) (*models.User, error) {
	var u models.User
	if err := s.conn(ctx).Where("lower(username) = lower(?)", username).Take(&u).Error; err != nil {
		return nil, fmt.Errorf("find user %q: %w", username, translate(err))
	}
	return &u, nil
}

// FindUserByEmail returns the user with e-mail email (ignoring case), or
// models.ErrNotFound: GitLab maps a commit's author to a user this way.
func (s *Users) FindUserByEmail(ctx context.Context, email string) (*models.User, error) {
	var u models.User
	if err := s.conn(ctx).Where("lower(email) = lower(?)", email).Order("id").Take(&u).Error; err != nil {
		return nil, fmt.Errorf("find user by e-mail: %w", translate(err))
	}
	return &u, nil
}

// ListUsers returns every user ordered by id.
func (s *Users) ListUsers(ctx context.Context) ([]models.User, error) {
	users := []models.User{}
	if err := s.conn(ctx).Order("id").Find(&users).Error; err != nil {
		return nil, fmt.Errorf("list users: %w", translate(err))
	}
	return users, nil
}

// SetUserState sets the state of the user called username (ignoring case).
// An unknown state is models.ErrInvalidInput; an unknown user
// models.ErrNotFound. Setting the state a user already has succeeds.
func (s *Users) SetUserState(ctx context.Context, username string, state models.UserState) error {
	if !validUserState(state) {
		return fmt.Errorf("set user %q state %q: %w", username, state, models.ErrInvalidInput)
	}
	res := s.conn(ctx).Model(&models.User{}).
		Where("lower(username) = lower(?)", username).
		Updates(map[string]any{"state": state, "updated_at": s.clock()})
	if res.Error != nil {
		return fmt.Errorf("set user %q state: %w", username, translate(res.Error))
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("set user %q state: %w", username, models.ErrNotFound)
	}
	s.changedViews(allViews) // by username: the id is not at hand
	return nil
}

func validUserState(s models.UserState) bool {
	switch s {
	case models.UserActive, models.UserBlocked, models.UserDeactivated:
		return true
	}
	return false
}

// SetUserRateLimit sets the MCP request limit of the user called username
// (ignoring case) to requests per periodSeconds; 0 and 0 clear it (the
// server's limit applies). Other values outside 1..1,000,000 requests per
// 1..86,400 seconds are models.ErrInvalidInput; an unknown user
// models.ErrNotFound. Every instance sees the change at once: it is an
// identity change (migration 20261201060000).
func (s *Users) SetUserRateLimit(ctx context.Context, username string, requests, periodSeconds int) error {
	if requests == 0 && periodSeconds == 0 {
		return s.SetUserRateLimits(ctx, username, nil)
	}
	return s.SetUserRateLimits(ctx, username, []models.RateWindow{{Requests: requests, PeriodSeconds: periodSeconds}})
}

// maxRateWindows bounds a user's list of windows.
const maxRateWindows = 8

// SetUserRateLimits sets the MCP request limit of the user called username
// to every window of windows at once (none: the server's limit). Each
// window must be 1..1,000,000 requests per 1..86,400 seconds, at most 8
// windows, no two of one length; otherwise models.ErrInvalidInput and
// nothing is written. The list is stored whole (migration
// 20261207190000), its first window also in the older columns.
func (s *Users) SetUserRateLimits(ctx context.Context, username string, windows []models.RateWindow) error {
	requests, periodSeconds, list := 0, 0, ""
	if len(windows) > maxRateWindows {
		return fmt.Errorf("set user %q rate limit: %d windows, at most %d: %w", username, len(windows), maxRateWindows, models.ErrInvalidInput)
	}
	parts := make([]string, len(windows))
	seen := make(map[int]bool, len(windows))
	for i, w := range windows {
		if w.Requests < 1 || w.Requests > 1_000_000 || w.PeriodSeconds < 1 || w.PeriodSeconds > 86_400 || seen[w.PeriodSeconds] {
			return fmt.Errorf("set user %q rate limit %d/%ds: %w", username, w.Requests, w.PeriodSeconds, models.ErrInvalidInput)
		}
		seen[w.PeriodSeconds] = true
		parts[i] = fmt.Sprintf("%d/%ds", w.Requests, w.PeriodSeconds)
	}
	if len(windows) > 0 {
		requests, periodSeconds, list = windows[0].Requests, windows[0].PeriodSeconds, strings.Join(parts, ",")
	}
	res := s.conn(ctx).Model(&models.User{}).
		Where("lower(username) = lower(?)", username).
		Updates(map[string]any{"mcp_rate_limit_requests": requests, "mcp_rate_limit_period_seconds": periodSeconds,
			"mcp_rate_limit_windows": list, "updated_at": s.clock()})
	if res.Error != nil {
		return fmt.Errorf("set user %q rate limit: %w", username, translate(res.Error))
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("set user %q rate limit: %w", username, models.ErrNotFound)
	}
	s.changedViews(allViews) // by username: the id is not at hand
	return nil
}
