package subscriptions

import (
	"runtime"
	"sync"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

const benchStreams = 2000

// BenchmarkFanout2000 measures one change reaching 2,000 open listen
// streams on one instance: each op is one Publish until all 2,000 stream
// goroutines (standing in for the SSE handlers) have received their event.
// It also reports the hub's memory per open subscription (B/sub, heap only;
// the handler goroutine and its connection are not counted).
func BenchmarkFanout2000(b *testing.B) {
	perSub := bytesPerSubscription(b)

	h := NewHub(Options{MaxPerUser: benchStreams})
	var received sync.WaitGroup
	var readers sync.WaitGroup
	for range benchStreams {
		s, err := h.Subscribe(1, ceOnly)
		if err != nil {
			b.Fatal(err)
		}
		readers.Go(func() {
			for range s.C() {
				received.Done()
			}
		})
	}
	e := Event{Kind: KindTools, Tool: "get_issue", Edition: models.EditionCE}

	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		received.Add(benchStreams)
		h.Publish(e)
		received.Wait()
	}
	b.StopTimer()
	h.Close()
	readers.Wait()
	b.ReportMetric(perSub, "B/sub") // after the loop: ResetTimer drops metrics
}

// bytesPerSubscription returns the live heap growth of benchStreams
// subscriptions, divided by their number.
func bytesPerSubscription(b *testing.B) float64 {
	b.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)

	h := NewHub(Options{MaxPerUser: benchStreams})
	subs := make([]*Subscription, 0, benchStreams) // counted: a handler holds a pointer too
	for range benchStreams {
		s, err := h.Subscribe(1, ceOnly)
		if err != nil {
			b.Fatal(err)
		}
		subs = append(subs, s)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(subs)
	runtime.KeepAlive(h)
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / benchStreams
}
