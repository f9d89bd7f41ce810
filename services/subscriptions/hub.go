package subscriptions

import (
	"fmt"
	"log/slog"
	"sync"
)

// Default caps, used when an Options field is zero or negative.
const (
	DefaultMaxPerUser = 10
	DefaultMaxTotal   = 10000
)

// Options configure a Hub.
type Options struct {
	// MaxPerUser caps the open listen streams of one user (default 10).
	MaxPerUser int
	// MaxTotal caps the open listen streams of the instance (default 10000).
	MaxTotal int
	// Logger receives dropped-event and panic reports; nil discards.
	Logger *slog.Logger
	// Slots, when set, holds each subscription's per-user slot where every
	// instance counts it, so that MaxPerUser holds across instances; the
	// hub's own count still holds on this instance.
	Slots Slots
	// BeforePublish, when set, runs synchronously in Publish before any
	// listener is signalled, e.g. to drop a cached catalog so that a client
	// re-listing on the notification sees the change.
	BeforePublish func(Event)
}

// Slots is a per-user count of open listen streams shared by every instance
// (services/redislimit).
type Slots interface {
	// Acquire takes one of userID's max slots; release frees it. ok is
	// false when the user holds max slots already.
	Acquire(userID int64, max int) (release func(), ok bool)
}

// Hub fans catalog change events out to the open listen streams of one
// instance. It is safe for concurrent use and starts no goroutines.
type Hub struct {
	maxPerUser int
	maxTotal   int
	logger     *slog.Logger
	before     func(Event)
	slots      Slots

	mu      sync.RWMutex
	subs    []*Subscription // each knows its index, for O(1) removal
	perUser map[int64]int
	closed  bool
	// live counts the subscriptions their owners have not closed yet
	// (Hub.Close ends them but does not release them); drained is closed
	// once the hub is closed and live is zero.
	live    int
	drained chan struct{}
}

// NewHub returns an empty hub configured by opts.
func NewHub(opts Options) *Hub {
	h := &Hub{
		maxPerUser: opts.MaxPerUser,
		maxTotal:   opts.MaxTotal,
		logger:     opts.Logger,
		before:     opts.BeforePublish,
		slots:      opts.Slots,
		perUser:    make(map[int64]int),
		drained:    make(chan struct{}),
	}
	if h.maxPerUser <= 0 {
		h.maxPerUser = DefaultMaxPerUser
	}
	if h.maxTotal <= 0 {
		h.maxTotal = DefaultMaxTotal
	}
	if h.logger == nil {
		h.logger = slog.New(slog.DiscardHandler)
	}
	return h
}

// Subscribe registers a listener for userID whose list is described by
// visible (nil: sees every tool), subscribed to the given resource keys
// (see [ResourceKey]). The caller must Close the subscription when the
// stream ends.
//
// It fails with an error wrapping ErrTooManyForUser when the user is at
// Options.MaxPerUser (checked first), ErrTooManyTotal when the instance is at
// Options.MaxTotal, and ErrClosed after Close.
func (h *Hub) Subscribe(userID int64, visible Visibility, resources ...string) (*Subscription, error) {
	return h.subscribe(userID, visible, nil, resources)
}

// SubscribeFunc is Subscribe for a listener woken by a call instead of a
// channel: the subscription has no C, and wake is called after every event
// noted for it (what changed accumulates for [Subscription.Take] until
// taken, so several events may share one call, or one call find nothing
// new) and once when Hub.Close ends it ([Subscription.Ended] then reports
// true). wake runs with the hub's lock held, on the publisher's goroutine:
// it must return at once and must not call the hub. A listen stream uses
// it to interrupt a blocked read on its connection, so that one goroutine
// per stream both watches the client and delivers.
func (h *Hub) SubscribeFunc(userID int64, visible Visibility, wake func(), resources ...string) (*Subscription, error) {
	if wake == nil {
		return nil, fmt.Errorf("subscribe: wake is nil")
	}
	return h.subscribe(userID, visible, wake, resources)
}

func (h *Hub) subscribe(userID int64, visible Visibility, wake func(), resources []string) (*Subscription, error) {
	// The shared slot is taken first, without the hub's lock (it may ask
	// Redis), and given back if the hub refuses after all.
	var slot func()
	if h.slots != nil {
		if err := h.admissible(userID); err != nil {
			return nil, err
		}
		release, ok := h.slots.Acquire(userID, h.maxPerUser)
		if !ok {
			return nil, fmt.Errorf("subscribe: %w (limit %d)", ErrTooManyForUser, h.maxPerUser)
		}
		slot = release
	}
	s, err := h.register(userID, visible, wake, resources, slot)
	if err != nil && slot != nil {
		slot()
	}
	return s, err
}

// register adds a subscription holding slot, unless the hub refuses it.
func (h *Hub) register(userID int64, visible Visibility, wake func(), resources []string, slot func()) (*Subscription, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.admissibleLocked(userID); err != nil {
		return nil, err
	}
	s := &Subscription{
		slot:    slot,
		hub:     h,
		userID:  userID,
		visible: visible,
		wake:    wake,
		index:   len(h.subs),
	}
	if wake == nil {
		s.ch = make(chan Event, 1)
	}
	if len(resources) > 0 {
		s.resources = make(map[string]struct{}, len(resources))
		for _, r := range resources {
			s.resources[r] = struct{}{}
		}
		s.pendingRes = make(map[string]struct{}, len(resources))
	}
	h.subs = append(h.subs, s)
	h.perUser[userID]++
	h.live++
	return s, nil
}

// admissible reports whether the hub would take one more subscription of
// userID now.
func (h *Hub) admissible(userID int64) error {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.admissibleLocked(userID)
}

func (h *Hub) admissibleLocked(userID int64) error {
	switch {
	case h.closed:
		return fmt.Errorf("subscribe: %w", ErrClosed)
	case h.perUser[userID] >= h.maxPerUser:
		return fmt.Errorf("subscribe: %w (limit %d)", ErrTooManyForUser, h.maxPerUser)
	case len(h.subs) >= h.maxTotal:
		return fmt.Errorf("subscribe: %w (limit %d)", ErrTooManyTotal, h.maxTotal)
	}
	return nil
}

// Publish delivers e to every listener that could be affected: all of them
// for a KindResync or bulk (Tool == "") event, those subscribed to the
// resource for a KindResource event, otherwise those whose Visibility
// accepts the tool. What changed is collected per listener for
// [Subscription.Take]. It never blocks on a listener: one that
// already has a signal pending keeps it and the new one is dropped. An event
// of unknown kind or edition is logged and dropped. Cost: one Visibility
// call and one non-blocking send per listener.
func (h *Hub) Publish(e Event) {
	if err := e.validate(); err != nil {
		h.logger.Warn("drop catalog event", "error", err)
		return
	}
	e = e.normalized()
	if h.before != nil && e.Kind != KindResource {
		h.before(e)
	}

	h.mu.RLock()
	defer h.mu.RUnlock()
	for _, s := range h.subs {
		if !s.wants(e) {
			continue
		}
		s.note(e)
		s.signal(e)
	}
}

// Len returns the number of open subscriptions.
func (h *Hub) Len() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.subs)
}

// LenForUser returns the number of open subscriptions of userID.
func (h *Hub) LenForUser(userID int64) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.perUser[userID]
}

// Close ends every subscription by closing its channel (or waking a
// SubscribeFunc listener, whose Ended then reports true), so each handler
// can send the graceful final subscriptions/listen result. Later Subscribe
// calls fail with ErrClosed; later Publish calls do nothing. Close is
// idempotent.
func (h *Hub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.closed = true
	for _, s := range h.subs {
		s.end()
		if s.wake != nil {
			s.wake()
		}
	}
	h.subs = nil
	clear(h.perUser)
	if h.live == 0 {
		close(h.drained)
	}
}

// Drained returns a channel closed once Close has run and every
// subscription has been closed by its owner ([Subscription.Close]): every
// listen stream has sent its final result, or given up. A server that
// shuts down waits for it, bounded, before exiting; streams served outside
// net/http's own bookkeeping (hijacked connections) are otherwise not
// waited for.
func (h *Hub) Drained() <-chan struct{} {
	return h.drained
}

// remove releases s for its owner and unregisters it, unless Close did.
// Its shared slot is freed after, outside the lock: that may ask Redis.
func (h *Hub) remove(s *Subscription) {
	if slot := h.unregister(s); slot != nil {
		slot()
	}
}

// unregister is remove under the hub's lock; it returns the shared slot to
// free, the first time only.
func (h *Hub) unregister(s *Subscription) (slot func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !s.released {
		s.released = true
		slot = s.slot
		if h.live--; h.live == 0 && h.closed {
			close(h.drained)
		}
	}
	if s.closed {
		return slot
	}
	s.end()

	last := len(h.subs) - 1
	moved := h.subs[last]
	h.subs[s.index] = moved
	moved.index = s.index
	h.subs[last] = nil
	h.subs = h.subs[:last]

	if n := h.perUser[s.userID] - 1; n > 0 {
		h.perUser[s.userID] = n
	} else {
		delete(h.perUser, s.userID)
	}
	return slot
}
