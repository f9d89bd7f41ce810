package subscriptions

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
)

// waitTimeout bounds every wait for something that must happen (liveness,
// not speed).
const waitTimeout = 10 * time.Second

func ceOnly(_ string, e models.Edition) bool { return e == models.EditionCE }

func TestHub_Publish_fansOutToEverySubscriber(t *testing.T) {
	t.Parallel()
	h := NewHub(Options{MaxPerUser: 1})
	const n = 500
	subs := make([]*Subscription, n)
	for i := range subs {
		s, err := h.Subscribe(int64(i), nil)
		if err != nil {
			t.Fatalf("Subscribe(%d) error = %v", i, err)
		}
		subs[i] = s
	}
	want := Event{Kind: KindTools, Tool: "get_issue", Edition: models.EditionCE, Version: 3}
	h.Publish(want)
	for i, s := range subs {
		if got := pending(t, s); got != want {
			t.Fatalf("subscriber %d got %+v, want %+v", i, got, want)
		}
	}
}

func TestHub_Publish_visibility(t *testing.T) {
	t.Parallel()
	h := NewHub(Options{})
	ce, err := h.Subscribe(1, ceOnly)
	if err != nil {
		t.Fatal(err)
	}
	ee, err := h.Subscribe(2, func(string, models.Edition) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	named, err := h.Subscribe(3, func(tool string, _ models.Edition) bool { return tool == "search" })
	if err != nil {
		t.Fatal(err)
	}
	all, err := h.Subscribe(4, nil)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name  string
		event Event
		want  map[*Subscription]bool
	}{
		{
			name:  "when an EE-only tool changes the CE listener is not told",
			event: Event{Kind: KindTools, Tool: "semantic_code_search", Edition: models.EditionEE},
			want:  map[*Subscription]bool{ce: false, ee: true, named: false, all: true},
		},
		{
			name:  "when a CE tool changes CE and EE listeners are told",
			event: Event{Kind: KindTools, Tool: "get_issue", Edition: models.EditionCE},
			want:  map[*Subscription]bool{ce: true, ee: true, named: false, all: true},
		},
		{
			name:  "when a filtered-in tool changes its listener is told",
			event: Event{Kind: KindTools, Tool: "search", Edition: models.EditionEE},
			want:  map[*Subscription]bool{ce: false, ee: true, named: true, all: true},
		},
		{
			name:  "when events were missed resync reaches everyone",
			event: Event{Kind: KindResync},
			want:  map[*Subscription]bool{ce: true, ee: true, named: true, all: true},
		},
		{
			name:  "when a bulk change has no tool name everyone is told",
			event: Event{Kind: KindTools, Edition: models.EditionEE},
			want:  map[*Subscription]bool{ce: true, ee: true, named: true, all: true},
		},
		{
			name:  "when the kind is unknown nobody is told",
			event: Event{Kind: "prompts"},
			want:  map[*Subscription]bool{ce: false, ee: false, named: false, all: false},
		},
		{
			name:  "when the edition is unknown nobody is told",
			event: Event{Kind: KindTools, Tool: "get_issue", Edition: "xe"},
			want:  map[*Subscription]bool{ce: false, ee: false, named: false, all: false},
		},
	}
	for _, tt := range tests { // serial: the subtests share the hub
		t.Run(tt.name, func(t *testing.T) {
			h.Publish(tt.event)
			for s, want := range tt.want {
				select {
				case got := <-s.C():
					if !want {
						t.Errorf("user %d got %+v, want nothing", s.userID, got)
					} else if got != tt.event {
						t.Errorf("user %d got %+v, want %+v", s.userID, got, tt.event)
					}
				default:
					if want {
						t.Errorf("user %d got nothing, want %+v", s.userID, tt.event)
					}
				}
			}
		})
	}
}

func TestHub_Publish_oversizedToolNameBecomesBulk(t *testing.T) {
	t.Parallel()
	h := NewHub(Options{})
	named, err := h.Subscribe(1, func(tool string, _ models.Edition) bool { return tool == "get_issue" })
	if err != nil {
		t.Fatal(err)
	}
	long := string(make([]byte, maxToolNameBytes+1))
	h.Publish(Event{Kind: KindTools, Tool: long, Edition: models.EditionCE})
	want := Event{Kind: KindTools, Edition: models.EditionCE}
	if got := pending(t, named); got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

func TestHub_Publish_panickingVisibilityDelivers(t *testing.T) {
	t.Parallel()
	h := NewHub(Options{})
	bad, err := h.Subscribe(1, func(string, models.Edition) bool { panic("boom") })
	if err != nil {
		t.Fatal(err)
	}
	good, err := h.Subscribe(2, ceOnly)
	if err != nil {
		t.Fatal(err)
	}
	e := Event{Kind: KindTools, Tool: "get_issue", Edition: models.EditionCE}
	h.Publish(e) // must not panic
	for _, s := range []*Subscription{bad, good} {
		if got := pending(t, s); got != e {
			t.Errorf("user %d got %+v, want %+v", s.userID, got, e)
		}
	}
}

func TestHub_Publish_coalescesAndNeverBlocks(t *testing.T) {
	t.Parallel()
	h := NewHub(Options{MaxPerUser: 100})
	slow := make([]*Subscription, 50) // never read while publishing
	for i := range slow {
		s, err := h.Subscribe(1, nil)
		if err != nil {
			t.Fatal(err)
		}
		slow[i] = s
	}
	// In the test goroutine: a blocking Publish would hang the test.
	for v := int64(1); v <= 100; v++ {
		h.Publish(Event{Kind: KindTools, Tool: "get_issue", Edition: models.EditionCE, Version: v})
	}
	for i, s := range slow {
		if n := len(s.C()); n != 1 {
			t.Fatalf("listener %d has %d pending, want 1", i, n)
		}
		got := <-s.C()
		if got.Version != 1 {
			t.Errorf("listener %d pending version = %d, want 1 (the first of the burst)", i, got.Version)
		}
		select {
		case e := <-s.C():
			t.Fatalf("listener %d has a second event %+v", i, e)
		default:
		}
	}
	// Once drained, the next change is delivered again.
	h.Publish(Event{Kind: KindResync})
	for i, s := range slow {
		if got := pending(t, s); got.Kind != KindResync {
			t.Fatalf("listener %d got %+v after draining, want resync", i, got)
		}
	}
}

func TestHub_Subscribe_caps(t *testing.T) {
	t.Parallel()
	h := NewHub(Options{MaxPerUser: 2, MaxTotal: 3})
	alice1 := mustSubscribe(t, h, 1)
	mustSubscribe(t, h, 1)

	_, err := h.Subscribe(1, nil)
	if !errors.Is(err, ErrTooManyForUser) || !errors.Is(err, ErrLimitExceeded) || errors.Is(err, ErrTooManyTotal) {
		t.Fatalf("third Subscribe for user 1 error = %v, want ErrTooManyForUser", err)
	}
	if want := "subscribe: listen stream limit exceeded: too many open listen streams for this user (limit 2)"; err.Error() != want {
		t.Errorf("error text = %q, want %q", err, want)
	}

	mustSubscribe(t, h, 2)
	_, err = h.Subscribe(3, nil)
	if !errors.Is(err, ErrTooManyTotal) || !errors.Is(err, ErrLimitExceeded) || errors.Is(err, ErrTooManyForUser) {
		t.Fatalf("Subscribe beyond total error = %v, want ErrTooManyTotal", err)
	}
	if want := "subscribe: listen stream limit exceeded: too many open listen streams on this server (limit 3)"; err.Error() != want {
		t.Errorf("error text = %q, want %q", err, want)
	}
	if errors.Is(err, models.ErrForbidden) {
		t.Errorf("cap error %v wraps models.ErrForbidden; it is documented not to", err)
	}

	// A user at their own cap hears about their cap even when the server is full.
	if _, err := h.Subscribe(1, nil); !errors.Is(err, ErrTooManyForUser) {
		t.Fatalf("Subscribe for user at cap on a full server error = %v, want ErrTooManyForUser", err)
	}

	if h.Len() != 3 || h.LenForUser(1) != 2 || h.LenForUser(2) != 1 || h.LenForUser(3) != 0 {
		t.Fatalf("Len = %d, LenForUser(1,2,3) = %d,%d,%d; want 3, 2,1,0",
			h.Len(), h.LenForUser(1), h.LenForUser(2), h.LenForUser(3))
	}

	alice1.Close()
	if h.Len() != 2 || h.LenForUser(1) != 1 {
		t.Fatalf("after Close: Len = %d, LenForUser(1) = %d; want 2, 1", h.Len(), h.LenForUser(1))
	}
	// The freed slot is usable by anyone: first user 3 (total), then nobody.
	mustSubscribe(t, h, 3)
	if _, err := h.Subscribe(4, nil); !errors.Is(err, ErrTooManyTotal) {
		t.Fatalf("Subscribe after refill error = %v, want ErrTooManyTotal", err)
	}
}

func TestHub_Subscribe_defaults(t *testing.T) {
	t.Parallel()
	h := NewHub(Options{MaxPerUser: -1})
	for range DefaultMaxPerUser {
		mustSubscribe(t, h, 1)
	}
	if _, err := h.Subscribe(1, nil); !errors.Is(err, ErrTooManyForUser) {
		t.Fatalf("Subscribe %d+1 error = %v, want ErrTooManyForUser", DefaultMaxPerUser, err)
	}
	if h.maxTotal != DefaultMaxTotal {
		t.Fatalf("maxTotal = %d, want %d", h.maxTotal, DefaultMaxTotal)
	}
}

func TestSubscription_Close_idempotent(t *testing.T) {
	t.Parallel()
	h := NewHub(Options{})
	a := mustSubscribe(t, h, 1)
	b := mustSubscribe(t, h, 1)
	c := mustSubscribe(t, h, 2)

	a.Close()
	a.Close()
	if h.Len() != 2 || h.LenForUser(1) != 1 {
		t.Fatalf("after double Close: Len = %d, LenForUser(1) = %d; want 2, 1", h.Len(), h.LenForUser(1))
	}
	if _, ok := <-a.C(); ok {
		t.Fatal("closed subscription's channel is open")
	}

	// The others (one of them moved in the slice) still receive.
	h.Publish(Event{Kind: KindResync})
	for _, s := range []*Subscription{b, c} {
		if got := pending(t, s); got.Kind != KindResync {
			t.Fatalf("user %d got %+v, want resync", s.userID, got)
		}
	}
	b.Close()
	c.Close()
	if h.Len() != 0 || h.LenForUser(1) != 0 || len(h.perUser) != 0 {
		t.Fatalf("after closing all: Len = %d, perUser = %v; want empty", h.Len(), h.perUser)
	}
	h.Publish(Event{Kind: KindResync}) // nobody left; must not panic
}

func TestHub_Close(t *testing.T) {
	t.Parallel()
	h := NewHub(Options{})
	subs := []*Subscription{mustSubscribe(t, h, 1), mustSubscribe(t, h, 2)}
	h.Publish(Event{Kind: KindResync})

	h.Close()
	h.Close()
	for i, s := range subs {
		// A pending signal is still readable, then the channel reads closed.
		if e, ok := <-s.C(); !ok || e.Kind != KindResync {
			t.Fatalf("subscriber %d first read = %+v, %v; want the pending resync", i, e, ok)
		}
		if _, ok := <-s.C(); ok {
			t.Fatalf("subscriber %d channel still open after Hub.Close", i)
		}
		s.Close() // after Hub.Close: no double close, no panic
	}
	if h.Len() != 0 {
		t.Fatalf("Len after Close = %d, want 0", h.Len())
	}
	if _, err := h.Subscribe(3, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Subscribe after Close error = %v, want ErrClosed", err)
	}
	h.Publish(Event{Kind: KindResync}) // must not panic
}

func TestHub_concurrentUse(t *testing.T) {
	t.Parallel()
	h := NewHub(Options{MaxPerUser: 1000})
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 200 {
				s, err := h.Subscribe(int64(w%3), ceOnly)
				if err != nil {
					t.Errorf("Subscribe: %v", err)
					return
				}
				h.Publish(Event{Kind: KindTools, Tool: fmt.Sprint(i), Edition: models.EditionCE})
				select {
				case <-s.C():
				default:
				}
				s.Close()
			}
		})
	}
	for range 4 {
		wg.Go(func() {
			for range 500 {
				h.Publish(Event{Kind: KindResync})
				_ = h.Len()
			}
		})
	}
	wg.Wait()
	if h.Len() != 0 || len(h.perUser) != 0 {
		t.Fatalf("after all closed: Len = %d, perUser = %v", h.Len(), h.perUser)
	}
}

// Not parallel: it counts the process's goroutines.
func TestHub_leavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	h := NewHub(Options{MaxPerUser: 1000})
	subs := make([]*Subscription, 1000)
	for i := range subs {
		subs[i] = mustSubscribe(t, h, 1)
	}
	h.Publish(Event{Kind: KindResync})
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("with 1000 subscriptions: %d goroutines, was %d; the hub must start none", n, before)
	}
	for _, s := range subs[:500] {
		s.Close()
	}
	h.Close()
	waitGoroutines(t, before)
}

func mustSubscribe(t *testing.T, h *Hub, userID int64) *Subscription {
	t.Helper()
	s, err := h.Subscribe(userID, nil)
	if err != nil {
		t.Fatalf("Subscribe(%d) error = %v", userID, err)
	}
	return s
}

// pending returns the signal waiting on s, failing if there is none.
func pending(t *testing.T, s *Subscription) Event {
	t.Helper()
	select {
	case e, ok := <-s.C():
		if !ok {
			t.Fatal("channel closed, want an event")
		}
		return e
	default:
		t.Fatal("no event pending")
		return Event{}
	}
}

// waitGoroutines polls until at most want goroutines run, so goroutines
// that are exiting get time to settle.
func waitGoroutines(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		n := runtime.NumGoroutine()
		if n <= want {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines still running, want at most %d:\n%s", n, want, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestHub_Publish_beforePublishRunsFirst(t *testing.T) {
	var order []string
	var h *Hub
	h = NewHub(Options{BeforePublish: func(e Event) {
		order = append(order, "before:"+e.Tool)
		if h.Len() != 1 {
			t.Errorf("Len in hook = %d, want 1", h.Len())
		}
	}})
	s := mustSubscribe(t, h, 1)
	defer s.Close()
	h.Publish(Event{Kind: KindTools, Tool: "get_issue", Edition: models.EditionCE})
	select {
	case <-s.C():
		order = append(order, "delivered")
	default:
		t.Fatal("no event delivered")
	}
	if len(order) != 2 || order[0] != "before:get_issue" || order[1] != "delivered" {
		t.Fatalf("order = %v, want hook then delivery", order)
	}
	h.Publish(Event{Kind: "bogus"})
	if len(order) != 2 {
		t.Fatalf("hook ran for an invalid event: %v", order)
	}
}
