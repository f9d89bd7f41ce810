package models

import "errors"

// Sentinel errors. Every layer wraps them with fmt.Errorf("…: %w", err);
// handlers map them to wire responses in exactly one place.
var (
	// ErrNotFound: the object does not exist, or the caller may not see it
	// (GitLab's no-oracle rule: both read the same).
	ErrNotFound = errors.New("not found")
	// ErrInvalidInput: the caller's input breaks a rule.
	ErrInvalidInput = errors.New("invalid input")
	// ErrConflict: a uniqueness or state rule would be broken.
	ErrConflict = errors.New("conflict")
	// ErrUnauthorized: no valid credential.
	ErrUnauthorized = errors.New("unauthorized")
	// ErrForbidden: a valid credential that may not do this.
	ErrForbidden = errors.New("forbidden")
)
