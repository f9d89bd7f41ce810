package subscriptions

import (
	"fmt"
	"unicode/utf8"

	"gitlab.com/glmcp/glmcp/models"
)

// Event kinds.
const (
	// KindTools: the tool list changed (a tool was enabled, disabled or
	// edited). Delivered to listeners whose Visibility accepts the tool, or to
	// every listener when Tool is empty (a bulk change).
	KindTools = "tools"
	// KindResync: events may have been missed (the cross-instance connection
	// was re-established). Delivered to every listener, which should re-list.
	KindResync = "resync"
)

// maxToolNameBytes bounds Event.Tool. A longer (or non-UTF-8) name is
// dropped, which turns the event into a bulk change that reaches everyone:
// over-notifying is harmless, missing a change is not.
const maxToolNameBytes = 255

// Event is one catalog change. Its meaning for a listener is only "your list
// may have changed, re-list"; the fields decide who is told and are
// informational otherwise.
type Event struct {
	// Kind is KindTools or KindResync.
	Kind string `json:"kind"`
	// Tool is the changed tool's name; "" for a resync or a bulk change.
	Tool string `json:"tool,omitempty"`
	// Edition is the edition of the changed tool ("" when unknown).
	Edition models.Edition `json:"edition,omitempty"`
	// Version is the catalog version after the change (informational).
	Version int64 `json:"version,omitempty"`
}

// Visibility reports whether a listener could have seen tool (of edition)
// on its list before or after the change. It is called while the hub holds
// its read lock: it must be fast, must not block and must not call into the
// hub. A nil Visibility sees everything.
type Visibility func(tool string, edition models.Edition) bool

// validate reports an unknown kind or edition as models.ErrInvalidInput.
func (e Event) validate() error {
	switch e.Kind {
	case KindTools, KindResync:
	default:
		return fmt.Errorf("event kind %q: %w", e.Kind, models.ErrInvalidInput)
	}
	switch e.Edition {
	case "", models.EditionCE, models.EditionEE:
	default:
		return fmt.Errorf("event edition %q: %w", e.Edition, models.ErrInvalidInput)
	}
	return nil
}

// normalized returns e with an unusable tool name dropped (see
// maxToolNameBytes).
func (e Event) normalized() Event {
	if len(e.Tool) > maxToolNameBytes || !utf8.ValidString(e.Tool) {
		e.Tool = ""
	}
	return e
}

// toAll reports whether e goes to every listener regardless of Visibility.
func (e Event) toAll() bool {
	return e.Kind == KindResync || e.Tool == ""
}
