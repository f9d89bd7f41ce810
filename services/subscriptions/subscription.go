package subscriptions

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Subscription is one open listen stream registered with a Hub.
type Subscription struct {
	hub     *Hub
	userID  int64
	visible Visibility
	// resources is the set of resource keys subscribed to; fixed at
	// Subscribe.
	resources map[string]struct{}
	ch        chan Event // nil for a SubscribeFunc listener
	wake      func()     // nil for a channel listener

	// Guarded by hub.mu.
	index    int
	closed   bool // ended: by its owner or by Hub.Close
	released bool // closed by its owner
	// slot frees the stream's shared per-user slot (Options.Slots); nil
	// without one.
	slot func()

	// ended mirrors closed for readers without the hub's lock.
	ended atomic.Bool

	// What happened since the last Take.
	mu           sync.Mutex
	pendingTools bool
	pendingRes   map[string]struct{}
}

// Pending is what a listener has to tell its client after a signal.
type Pending struct {
	// Tools: the tool list may have changed (or events were missed).
	Tools bool
	// Resources are the subscribed resource keys that changed (all of
	// them after missed events), in no particular order.
	Resources []string
}

// Ended reports whether the subscription has ended: by Hub.Close (the
// server is shutting down) or by Close.
func (s *Subscription) Ended() bool {
	return s.ended.Load()
}

// C returns the signal channel (nil for a SubscribeFunc listener). It has capacity 1 and coalesces: while a
// signal is pending, later events are dropped (the pending one already means
// "look again"), so the Event received is the first of a burst; what the
// burst changed is collected for [Subscription.Take]. The channel is
// closed when the subscription ends: by Close, or by Hub.Close at shutdown.
func (s *Subscription) C() <-chan Event {
	return s.ch
}

// Take returns and clears what changed since the last Take.
func (s *Subscription) Take() Pending {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := Pending{Tools: s.pendingTools}
	for k := range s.pendingRes {
		p.Resources = append(p.Resources, k)
	}
	s.pendingTools = false
	clear(s.pendingRes)
	return p
}

// signal tells the listener something is pending: a non-blocking send
// (a signal already pending covers this one) or a wake call. hub.mu is
// held.
func (s *Subscription) signal(e Event) {
	if s.wake != nil {
		s.wake()
		return
	}
	select {
	case s.ch <- e:
	default: // a signal is already pending; it covers this one
	}
}

// end marks s ended and closes its channel; hub.mu is held.
func (s *Subscription) end() {
	s.closed = true
	s.ended.Store(true)
	if s.ch != nil {
		close(s.ch)
	}
}

// note records e as pending.
func (s *Subscription) note(e Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch e.Kind {
	case KindResource:
		s.pendingRes[e.Resource] = struct{}{}
	case KindResync:
		s.pendingTools = true
		for k := range s.resources {
			s.pendingRes[k] = struct{}{}
		}
	default:
		s.pendingTools = true
	}
}

// Close ends the subscription: it frees the slot counted against the caps
// and closes the channel. Its owner calls it when the stream is over, also
// after Hub.Close (see [Hub.Drained]). It is idempotent and safe to call
// concurrently with Publish and Hub.Close.
func (s *Subscription) Close() {
	s.hub.remove(s)
}

// wants reports whether e concerns the listener.
func (s *Subscription) wants(e Event) bool {
	switch {
	case e.Kind == KindResource:
		_, ok := s.resources[e.Resource]
		return ok
	case e.toAll():
		return true
	}
	return s.sees(e)
}

// sees reports whether the listener could be affected by the tools event
// e. A panicking Visibility is logged and counted as "yes": a spurious
// list_changed is harmless, and Publish must not crash its caller (the
// PGListener loop).
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
