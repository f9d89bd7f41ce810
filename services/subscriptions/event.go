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
	// KindResource: a resource changed (an issue, a merge request, a
	// project, a job, or a ref of a repository). Delivered to the
	// listeners subscribed to Event.Resource only.
	KindResource = "resource"
)

// ResourceChannel is the PostgreSQL NOTIFY channel of resource changes;
// its payload is a resource key (see [ResourceKey]). Database triggers
// (migration 20261201140000) and ref updates send them.
const ResourceChannel = "glmcp_resources"

// maxResourceKeyBytes bounds a resource key (a ref name is at most a few
// hundred bytes).
const maxResourceKeyBytes = 512

// Resource keys: what changed, as the triggers spell it.
//
//	p:<project id>                       a project
//	i:<project id>:<iid>                 an issue (work item)
//	m:<project id>:<iid>                 a merge request
//	j:<project id>:<job id>              a CI job
//	r:<project id>:<ref>                 a branch or tag moved (short name)
func ResourceKey(kind byte, projectID int64, rest string) string {
	if rest == "" {
		return fmt.Sprintf("%c:%d", kind, projectID)
	}
	return fmt.Sprintf("%c:%d:%s", kind, projectID, rest)
}

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
	// Resource is the changed resource's key (KindResource only).
	Resource string `json:"resource,omitempty"`
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
	case KindResource:
		if e.Resource == "" || len(e.Resource) > maxResourceKeyBytes || !utf8.ValidString(e.Resource) {
			return fmt.Errorf("resource event without a usable key: %w", models.ErrInvalidInput)
		}
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
	return e.Kind == KindResync || (e.Kind == KindTools && e.Tool == "")
}
