package subscriptions

import "fmt"

// Subscription is one open listen stream registered with a Hub.
type Subscription struct {
	hub     *Hub
	userID  int64
	visible Visibility
	ch      chan Event

	// Guarded by hub.mu.
	index  int
	closed bool
}

// C returns the signal channel. It has capacity 1 and coalesces: while a
// signal is pending, later events are dropped (the pending one already means
// "re-list"), so the Event received is the first of a burst. The channel is
// closed when the subscription ends: by Close, or by Hub.Close at shutdown.
func (s *Subscription) C() <-chan Event {
	return s.ch
}

// Close ends the subscription: it frees the slot counted against the caps
// and closes the channel. It is idempotent and safe to call concurrently
// with Publish and Hub.Close.
func (s *Subscription) Close() {
	s.hub.remove(s)
}

// sees reports whether the listener could be affected by e. A panicking
// Visibility is logged and counted as "yes": a spurious list_changed is
// harmless, and Publish must not crash its caller (the PGListener loop).
func (s *Subscription) sees(e Event) (ok bool) {
	if s.visible == nil {
		return true
	}
	defer func() {
		if r := recover(); r != nil {
			s.hub.logger.Error("visibility check panicked",
				"tool", e.Tool, "user_id", s.userID, "panic", fmt.Sprint(r))
			ok = true
		}
	}()
	return s.visible(e.Tool, e.Edition)
}
