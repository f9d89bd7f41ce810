package ratelimit

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Limit is Requests requests per Per, with bursts of up to Requests.
type Limit struct {
	Requests int
	Per      time.Duration
}

// DefaultLimit is GitLab's default: 600 requests per 60 seconds.
var DefaultLimit = Limit{Requests: 600, Per: time.Minute}

// Bounds ParseLimit enforces.
const (
	maxRequests = 1_000_000
	maxWindow   = 24 * time.Hour
)

// ParseLimit reads "N/WINDOW" (GLMCP_RATE_LIMIT): N requests per WINDOW,
// a Go duration in whole seconds ("60s", "1m", "1h") or a bare unit ("s",
// "m", "h" meaning one of it). "0" (or "0/WINDOW") turns limiting off:
// enabled is false. Anything else is an error.
func ParseLimit(s string) (l Limit, enabled bool, err error) {
	s = strings.TrimSpace(s)
	if s == "0" {
		return Limit{}, false, nil
	}
	n, w, ok := strings.Cut(s, "/")
	if !ok {
		return Limit{}, false, fmt.Errorf("rate limit %q: want N/WINDOW such as 600/60s, or 0 for off", s)
	}
	reqs, err := strconv.Atoi(strings.TrimSpace(n))
	if err != nil || reqs < 0 || reqs > maxRequests {
		return Limit{}, false, fmt.Errorf("rate limit %q: request count must be a whole number in 0..%d", s, maxRequests)
	}
	w = strings.TrimSpace(w)
	switch w {
	case "s", "m", "h":
		w = "1" + w
	}
	per, err := time.ParseDuration(w)
	if err != nil {
		return Limit{}, false, fmt.Errorf("rate limit %q: window: %w", s, err)
	}
	if per < time.Second || per > maxWindow || per%time.Second != 0 {
		return Limit{}, false, fmt.Errorf("rate limit %q: window must be whole seconds in 1s..%s", s, maxWindow)
	}
	if reqs == 0 {
		return Limit{}, false, nil
	}
	return Limit{Requests: reqs, Per: per}, true, nil
}

// String returns the limit as ParseLimit reads it, e.g. "600/60s".
func (l Limit) String() string {
	return fmt.Sprintf("%d/%ds", l.Requests, windowSeconds(l.Per))
}

// Policy returns the RateLimit-Policy value, e.g. "600;w=60".
func (l Limit) Policy() string {
	return fmt.Sprintf("%d;w=%d", l.Requests, windowSeconds(l.Per))
}

func (l Limit) valid() bool { return l.Requests > 0 && l.Per > 0 }

// windowSeconds rounds d up to whole seconds (at least 1).
func windowSeconds(d time.Duration) int64 {
	return max(1, ceilSeconds(d))
}

// ceilSeconds rounds d up to whole seconds; zero and negative give 0.
func ceilSeconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Second - 1) / time.Second)
}
