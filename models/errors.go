package models

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
)

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
	// ErrStoreUnavailable: the database cannot be reached right now (down,
	// stalled past its deadline, out of connections); retrying later may
	// work. The store maps driver connection errors to it.
	ErrStoreUnavailable = errors.New("store unavailable")
	// ErrInsufficientStorage: a disk glmcp writes to (the repositories or
	// the database) is full, over its quota or read-only; nothing was
	// written. Retrying once space is freed works. See IsStorageFull.
	ErrInsufficientStorage = errors.New("insufficient storage")
)

// IsStorageFull reports whether err is an ErrInsufficientStorage, or the
// operating system's "no space left on device", "disk quota exceeded" or
// "read-only file system" from a write.
func IsStorageFull(err error) bool {
	return errors.Is(err, ErrInsufficientStorage) || errors.Is(err, syscall.ENOSPC) ||
		errors.Is(err, syscall.EDQUOT) || errors.Is(err, syscall.EROFS)
}

// OpenMergeRequestExistsError: a merge request cannot be opened because
// another one of the same project, source and target branch is open
// (GitLab: "Another open merge request already exists for this source
// branch: !IID"). It is an ErrConflict.
type OpenMergeRequestExistsError struct {
	// IID is the open merge request's number in its project.
	IID int64
}

func (e *OpenMergeRequestExistsError) Error() string {
	return fmt.Sprintf("merge request !%d is already open for these branches", e.IID)
}

// Unwrap makes the error an ErrConflict.
func (e *OpenMergeRequestExistsError) Unwrap() error { return ErrConflict }

// TakenError: a new project's name or path (Fields: "Name", "Path", in
// that order) is already taken in its namespace (GitLab: "Name has already
// been taken", "Path has already been taken"). It is an ErrConflict whose
// message is written for the caller.
type TakenError struct{ Fields []string }

func (e *TakenError) Error() string {
	msgs := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		msgs[i] = f + " has already been taken"
	}
	return strings.Join(msgs, ", ")
}

// CallerMessage is the message to show the caller.
func (e *TakenError) CallerMessage() string { return e.Error() }

// Unwrap makes the error an ErrConflict.
func (e *TakenError) Unwrap() error { return ErrConflict }

// InputError is an ErrInvalidInput whose message is written for the
// caller: it names the argument and never carries database text, so the
// tools may show it as is (CallerMessage).
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

// CallerMessage is the message to show the caller.
func (e *InputError) CallerMessage() string { return e.Msg }

// Unwrap makes the error an ErrInvalidInput.
func (e *InputError) Unwrap() error { return ErrInvalidInput }

// DatabaseError is an error of a sentinel kind (Kind) whose text came from
// the database driver: constraint, table and column names, SQLSTATE. The
// store makes it from the driver's error; nothing shows its text to a
// caller, only the kind.
type DatabaseError struct {
	Kind error
	Err  error
}

func (e *DatabaseError) Error() string { return e.Kind.Error() + ": " + e.Err.Error() }

// Unwrap makes the error both its Kind and the driver's error.
func (e *DatabaseError) Unwrap() []error { return []error{e.Kind, e.Err} }
