package subscriptions

import (
	"errors"
	"testing"

	"gitlab.com/glmcp/glmcp/services/redislimit"
	"gitlab.com/glmcp/glmcp/services/redislimit/redistest"
)

// Two hubs (two instances) sharing slots in Redis hold one per-user cap
// between them; a stream refused by a hub's own caps gives its slot back,
// and a closed stream frees it.
func TestHub_sharedSlots(t *testing.T) {
	srv := redistest.Start(t)
	client := func() *redislimit.Client {
		c, err := redislimit.New(redislimit.Config{URL: srv.URL(), Prefix: "hub:"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	a := NewHub(Options{MaxPerUser: 3, MaxTotal: 2, Slots: client()})
	b := NewHub(Options{MaxPerUser: 3, Slots: client()})
	a1, err := a.Subscribe(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Subscribe(1, nil); err != nil {
		t.Fatal(err)
	}
	b1, err := b.Subscribe(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Subscribe(1, nil); !errors.Is(err, ErrTooManyForUser) {
		t.Fatalf("fourth stream across the hubs: %v, want ErrTooManyForUser", err)
	}
	// a is at its own total cap: the refusal must not keep a slot.
	if _, err := a.Subscribe(2, nil); !errors.Is(err, ErrTooManyTotal) {
		t.Fatalf("over a's total: %v, want ErrTooManyTotal", err)
	}
	if n := srv.Int("ZCARD", "hub:streams:2"); n != 0 {
		t.Fatalf("a refused stream holds %d slots", n)
	}
	b1.Close()
	b1.Close()
	if n := srv.Int("ZCARD", "hub:streams:1"); n != 2 {
		t.Fatalf("after closing one stream the user holds %d slots, want 2", n)
	}
	if _, err := b.Subscribe(1, nil); err != nil {
		t.Fatalf("stream after one closed: %v", err)
	}
	// Hub.Close ends the streams; their owners' Close frees the slots.
	a.Close()
	a1.Close()
	if n := srv.Int("ZCARD", "hub:streams:1"); n != 2 {
		t.Fatalf("after a's shutdown and one owner's close the user holds %d slots, want 2", n)
	}
}
