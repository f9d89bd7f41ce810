package subscriptions

import (
	"sync/atomic"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

// Ensure a SubscribeFunc listener is woken once per event it wants (never
// for others), finds what changed with Take, has no channel, and is woken
// once more, Ended, when the hub closes.
func TestHub_SubscribeFunc(t *testing.T) {
	t.Parallel()
	h := NewHub(Options{})
	var wakes atomic.Int32
	s, err := h.SubscribeFunc(1, ceOnly, func() { wakes.Add(1) }, ResourceKey('i', 7, "2"))
	if err != nil {
		t.Fatal(err)
	}
	if s.C() != nil {
		t.Error("a SubscribeFunc listener has a channel")
	}
	h.Publish(Event{Kind: KindTools, Tool: "x", Edition: models.EditionEE}) // not visible
	if got := wakes.Load(); got != 0 {
		t.Fatalf("woken %d times by an event it does not see", got)
	}
	h.Publish(Event{Kind: KindTools, Tool: "x", Edition: models.EditionCE})
	h.Publish(Event{Kind: KindResource, Resource: ResourceKey('i', 7, "2")})
	if got := wakes.Load(); got != 2 {
		t.Fatalf("woken %d times by two events it wants, want 2", got)
	}
	p := s.Take()
	if !p.Tools || len(p.Resources) != 1 || p.Resources[0] != ResourceKey('i', 7, "2") {
		t.Fatalf("Take = %+v, want the tools change and the issue", p)
	}
	if s.Ended() {
		t.Fatal("Ended before the hub closed")
	}
	h.Close()
	if got := wakes.Load(); got != 3 || !s.Ended() {
		t.Fatalf("after Hub.Close: woken %d times (want 3), Ended %v (want true)", got, s.Ended())
	}
	s.Close()
	if _, err := h.SubscribeFunc(1, nil, nil); err == nil {
		t.Error("SubscribeFunc with a nil wake succeeded")
	}
}

// Ensure Drained closes only once the hub is closed and every owner has
// closed its subscription, whichever comes last, and not on a second Close
// of one subscription.
func TestHub_Drained(t *testing.T) {
	t.Parallel()
	h := NewHub(Options{})
	a := mustSubscribe(t, h, 1)
	b, err := h.SubscribeFunc(2, nil, func() {})
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	a.Close()
	select {
	case <-h.Drained():
		t.Fatal("drained before Close")
	default:
	}
	h.Close()
	select {
	case <-h.Drained():
		t.Fatal("drained while a subscription's owner has not closed it")
	default:
	}
	b.Close()
	select {
	case <-h.Drained():
	default:
		t.Fatal("not drained after every owner closed")
	}

	empty := NewHub(Options{})
	empty.Close()
	select {
	case <-empty.Drained():
	default:
		t.Fatal("an empty hub is not drained after Close")
	}
}
