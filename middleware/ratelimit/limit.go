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

// Limits is a list of windows that all apply at once (GLMCP_RATE_LIMIT
// "600/60s,5000/1h"): a request passes only when every window has room,
// and a passing request is counted in every window.
type Limits []Limit

// maxWindows bounds the windows of one list.
const maxWindows = 8

// ParseLimits reads a comma-separated list of ParseLimit's "N/WINDOW"
// (GLMCP_RATE_LIMIT, users set-rate-limit): "600/60s,5000/1h". A single
// window reads as ParseLimit reads it, "0" included (off: enabled is
// false). In a list of two or more every window needs at least one request
// and no two windows may have the same length.
func ParseLimits(s string) (ls Limits, enabled bool, err error) {
	parts := strings.Split(s, ",")
	if len(parts) == 1 {
		l, on, err := ParseLimit(s)
		if err != nil || !on {
			return nil, on, err
		}
		return Limits{l}, true, nil
	}
	if len(parts) > maxWindows {
		return nil, false, fmt.Errorf("rate limit %q: at most %d windows", s, maxWindows)
	}
	for _, p := range parts {
		l, on, err := ParseLimit(p)
		if err != nil {
			return nil, false, fmt.Errorf("rate limit %q: %w", s, err)
		}
		if !on {
			return nil, false, fmt.Errorf("rate limit %q: window %q allows nothing; use 0 alone to turn limiting off", s, strings.TrimSpace(p))
		}
		for _, o := range ls {
			if o.Per == l.Per {
				return nil, false, fmt.Errorf("rate limit %q: two windows of %ds", s, windowSeconds(l.Per))
			}
		}
		ls = append(ls, l)
	}
	return ls, true, nil
}

// String returns the list as ParseLimits reads it, e.g. "600/60s,5000/3600s".
func (ls Limits) String() string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = l.String()
	}
	return strings.Join(parts, ",")
}

func (ls Limits) valid() bool {
	if len(ls) == 0 {
		return false
	}
	for _, l := range ls {
		if !l.valid() {
			return false
		}
	}
	return true
}
