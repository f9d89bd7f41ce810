package subscriptions

import (
	"errors"
	"fmt"
)

// Errors returned by [Hub.Subscribe].
//
// The caps are not authorization failures, so they do not wrap
// models.ErrForbidden: ErrTooManyForUser is the caller's own doing (HTTP 429
// fits), ErrTooManyTotal is the server's capacity (HTTP 503 fits). Both wrap
// ErrLimitExceeded, so one errors.Is check covers them.
var (
	// ErrLimitExceeded is the class of both stream caps.
	ErrLimitExceeded = errors.New("listen stream limit exceeded")
	// ErrTooManyForUser: the user already has Options.MaxPerUser open streams.
	ErrTooManyForUser = fmt.Errorf("%w: too many open listen streams for this user", ErrLimitExceeded)
	// ErrTooManyTotal: the instance already has Options.MaxTotal open streams.
	ErrTooManyTotal = fmt.Errorf("%w: too many open listen streams on this server", ErrLimitExceeded)
	// ErrClosed: the hub has been closed (the server is shutting down).
	ErrClosed = errors.New("subscription hub is closed")
)
