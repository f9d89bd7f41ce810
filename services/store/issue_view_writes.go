package store

import (
	"slices"
	"strconv"
	"sync"
)

// viewChanges are the issue view invalidations (IssueViewCache.Invalidate
// payloads) of one transaction of WithTx, savepoints included, applied
// once it ends.
type viewChanges struct {
	mu       sync.Mutex
	payloads []string
}

// projectViews and userViews are payloads of changedViews, as
// IssueViewCache.Invalidate reads them: the views of a project, of a user.
func projectViews(id int64) string { return "p:" + strconv.FormatInt(id, 10) }

func userViews(id int64) string { return "u:" + strconv.FormatInt(id, 10) }

// allViews is the payload of a change whose views cannot be told (a
// group: every project under it, every member's role).
const allViews = "*"

// changedViews tells the issue view cache that a write of this core
// changed what views are read from (the tables the triggers of migration
// 20261201180000 watch): payloads as IssueViewCache.Invalidate reads them.
// Outside a transaction the cache drops them at once (the write has
// committed); inside one (WithTx) when the transaction ends, so that a
// client reads its own writes without waiting for the notification. The
// embedded store's versioned cache needs nothing: the write's marks commit
// with it.
func (s *core) changedViews(payloads ...string) {
	c := s.views.get()
	if c == nil || c.versioned {
		return
	}
	if s.viewTx != nil {
		s.viewTx.mu.Lock()
		s.viewTx.payloads = append(s.viewTx.payloads, payloads...)
		s.viewTx.mu.Unlock()
		return
	}
	for _, p := range payloads {
		c.Invalidate(p)
	}
}

// apply hands the transaction's invalidations to the cache in use.
func (t *viewChanges) apply(slot *issueViewSlot) {
	c := slot.get()
	if c == nil {
		return
	}
	t.mu.Lock()
	payloads := slices.Compact(slices.Sorted(slices.Values(t.payloads)))
	t.payloads = nil
	t.mu.Unlock()
	for _, p := range payloads {
		c.Invalidate(p)
	}
}
