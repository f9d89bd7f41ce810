package models

import "time"

// UserState is GitLab's user state.
type UserState string

// User states. Only active users may authenticate; blocked and deactivated
// users are refused with 403 and the reason.
const (
	UserActive      UserState = "active"
	UserBlocked     UserState = "blocked"
	UserDeactivated UserState = "deactivated"
)

// User is a GitLab user (table users).
type User struct {
	ID       int64     `gorm:"primaryKey" json:"id"`
	Username string    `json:"username"`
	Name     string    `json:"name"`
	Email    string    `json:"email"`
	State    UserState `json:"state"`
	Admin    bool      `json:"admin"`
	EESeat   bool      `gorm:"column:ee_seat" json:"ee_seat"`
	// RateLimitRequests per RateLimitPeriodSeconds is the user's own MCP
	// request limit (glmcp users set-rate-limit); zero: the server's.
	RateLimitRequests      int `gorm:"column:mcp_rate_limit_requests" json:"-"`
	RateLimitPeriodSeconds int `gorm:"column:mcp_rate_limit_period_seconds" json:"-"`
	// RateLimitWindows is the user's whole list of windows ("60/60s,1000/3600s"),
	// every one enforced; RateLimitRequests/PeriodSeconds is its first.
	RateLimitWindows string    `gorm:"column:mcp_rate_limit_windows" json:"-"`
	CreatedAt        time.Time `json:"created_at"`
	UpdatedAt        time.Time `json:"updated_at"`
}

// Active reports whether the user may use the API.
func (u *User) Active() bool { return u != nil && u.State == UserActive }

// RateWindow is one window of a user's own MCP request limit: Requests per
// PeriodSeconds.
type RateWindow struct {
	Requests      int
	PeriodSeconds int
}
