package subscriptions

import (
	"slices"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

func TestHub_Publish_resources(t *testing.T) {
	t.Parallel()
	h := NewHub(Options{})
	issue := ResourceKey('i', 7, "3")
	branch := ResourceKey('r', 7, "main")
	tools, err := h.Subscribe(1, nil) // tools only
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.Subscribe(2, func(string, models.Edition) bool { return false }, issue, branch)
	if err != nil {
		t.Fatal(err)
	}

	h.Publish(Event{Kind: KindResource, Resource: ResourceKey('i', 7, "4")}) // another issue
	h.Publish(Event{Kind: KindResource, Resource: ResourceKey('i', 8, "3")}) // another project
	for _, s := range []*Subscription{tools, res} {
		select {
		case e := <-s.C():
			t.Fatalf("unsubscribed resource signalled %+v", e)
		default:
		}
	}

	// A burst: one signal, every key collected.
	h.Publish(Event{Kind: KindResource, Resource: issue})
	h.Publish(Event{Kind: KindResource, Resource: branch})
	h.Publish(Event{Kind: KindResource, Resource: issue})
	if got := pending(t, res); got.Kind != KindResource {
		t.Fatalf("signal = %+v", got)
	}
	p := res.Take()
	slices.Sort(p.Resources)
	if p.Tools || !slices.Equal(p.Resources, []string{issue, branch}) {
		t.Fatalf("Take = %+v, want resources %q and %q", p, issue, branch)
	}
	if p := res.Take(); p.Tools || len(p.Resources) != 0 {
		t.Fatalf("second Take = %+v, want nothing", p)
	}
	select {
	case e := <-tools.C():
		t.Fatalf("tools-only listener signalled %+v", e)
	default:
	}

	// A tools change pending behind a resource signal is not lost.
	h.Publish(Event{Kind: KindResource, Resource: issue})
	h.Publish(Event{Kind: KindTools}) // bulk: reaches everyone
	pending(t, res)
	if p := res.Take(); !p.Tools || len(p.Resources) != 1 {
		t.Fatalf("Take = %+v, want tools and one resource", p)
	}

	// A resync marks everything subscribed.
	pending(t, tools)
	tools.Take()
	h.Publish(Event{Kind: KindResync})
	pending(t, res)
	if p := res.Take(); !p.Tools || len(p.Resources) != 2 {
		t.Fatalf("after resync Take = %+v, want tools and both resources", p)
	}
	pending(t, tools)
	if p := tools.Take(); !p.Tools || len(p.Resources) != 0 {
		t.Fatalf("tools-only after resync Take = %+v", p)
	}
}

func TestHub_Publish_resourceEventValidated(t *testing.T) {
	t.Parallel()
	h := NewHub(Options{})
	s, err := h.Subscribe(1, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	h.Publish(Event{Kind: KindResource}) // no key: dropped
	h.Publish(Event{Kind: KindResource, Resource: string(make([]byte, maxResourceKeyBytes+1))})
	select {
	case e := <-s.C():
		t.Fatalf("invalid resource event delivered: %+v", e)
	default:
	}
	if _, err := decodePayload(`{"kind":"resource"}`); err == nil {
		t.Fatal("a resource payload without a key decoded")
	}
}
