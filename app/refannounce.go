package app

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"gitlab.com/glmcp/glmcp/services/store"
)

// refAnnounceTimeout bounds one ref move's announcement.
const refAnnounceTimeout = 10 * time.Second

// refAnnouncer announces glmcp's own ref moves (resource keys) off the
// mover's path: a ref can move inside a store transaction
// (accept_merge_request), and on the embedded store the announcing INSERT
// waits for that transaction's write lock. One goroutine at most sends
// them, in order; a key already waiting is not queued twice. So moves in
// quick succession (an import or a fork copying thousands of refs) queue
// keys, not one goroutine each.
type refAnnouncer struct {
	st  *store.Store
	log *slog.Logger

	mu      sync.Mutex
	queue   []string
	queued  map[string]bool
	running bool
}

func newRefAnnouncer(st *store.Store, log *slog.Logger) *refAnnouncer {
	return &refAnnouncer{st: st, log: log, queued: map[string]bool{}}
}

// announce queues key and returns at once.
func (a *refAnnouncer) announce(key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.queued[key] {
		return // its announcement has not been sent yet: it covers this move
	}
	a.queued[key] = true
	a.queue = append(a.queue, key)
	if !a.running {
		a.running = true
		go a.run()
	}
}

// run sends the queued announcements until none is left.
func (a *refAnnouncer) run() {
	for {
		a.mu.Lock()
		if len(a.queue) == 0 {
			a.running = false
			a.queue = nil
			a.mu.Unlock()
			return
		}
		key := a.queue[0]
		a.queue = a.queue[1:]
		delete(a.queued, key) // a move from here on queues it again
		a.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), refAnnounceTimeout)
		if err := a.st.Resources.AnnounceResourceChange(ctx, key); err != nil {
			a.log.Warn("announce ref update", "resource", key, "error", err)
		}
		cancel()
	}
}
