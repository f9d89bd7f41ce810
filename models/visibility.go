package models

import (
	"fmt"
	"strings"
)

// Visibility is GitLab's visibility of a group or project.
type Visibility string

// Visibility levels (GitLab's names and order: private < internal < public).
const (
	VisibilityPrivate  Visibility = "private"
	VisibilityInternal Visibility = "internal"
	VisibilityPublic   Visibility = "public"
)

// Valid reports whether v is one of the three visibility levels.
func (v Visibility) Valid() bool {
	switch v {
	case VisibilityPrivate, VisibilityInternal, VisibilityPublic:
		return true
	}
	return false
}

// ParseVisibility parses a visibility name (case-insensitive, surrounding
// space ignored). Anything else wraps ErrInvalidInput.
func ParseVisibility(s string) (Visibility, error) {
	v := Visibility(strings.ToLower(strings.TrimSpace(s)))
	if !v.Valid() {
		return "", fmt.Errorf("visibility %q: %w", s, ErrInvalidInput)
	}
	return v, nil
}

// Rank orders the levels: 0 private, 1 internal, 2 public (an unknown
// level ranks as private). A project or subgroup may not be more visible
// than its group.
func (v Visibility) Rank() int {
	switch v {
	case VisibilityPublic:
		return 2
	case VisibilityInternal:
		return 1
	}
	return 0
}
