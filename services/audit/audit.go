// Package audit records an audit event for every tools/call
// (doc/security.md, "Audit events"), shaped like GitLab's ai_tool_invoked,
// off the request path: Record queues the event and returns; Run writes
// the queue in batches and, when its context ends, writes what is left
// before it returns, so a graceful shutdown loses none.
package audit

import (
	"context"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"gitlab.com/glmcp/glmcp/models"
)

// Store is where events go (the store's Audit family).
type Store interface {
	InsertAuditEvents(ctx context.Context, events []models.AuditEvent) error
	PruneAuditEvents(ctx context.Context, cutoff time.Time) (int64, error)
}

// Options tune a Writer; zero values take the defaults.
type Options struct {
	// Batch is the most events one INSERT writes (default 200); Interval
	// how long a partial batch waits (default 200ms).
	Batch    int
	Interval time.Duration
	// Queue is how many events wait before Record blocks (default 10000):
	// a call waits for the writer rather than lose its event.
	Queue int
	// Retention prunes events older than it, once an hour (0: never).
	Retention time.Duration
	Logger    *slog.Logger
	Now       func() time.Time
}

// Writer queues and writes audit events. Safe for concurrent use.
type Writer struct {
	st   Store
	opts Options
	q    chan models.AuditEvent
	mu   sync.RWMutex // held for reading by Record, for writing when closing
	done bool
}

// New returns a Writer over st; call Run to write.
func New(st Store, o Options) *Writer {
	if o.Batch <= 0 {
		o.Batch = 200
	}
	if o.Interval <= 0 {
		o.Interval = 200 * time.Millisecond
	}
	if o.Queue <= 0 {
		o.Queue = 10000
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Writer{st: st, opts: o, q: make(chan models.AuditEvent, o.Queue)}
}

// Record queues e (its time and event name filled when empty). It blocks
// only while the queue is full. After Run has returned it writes e itself.
func (w *Writer) Record(e models.AuditEvent) {
	if e.CreatedAt.IsZero() {
		e.CreatedAt = w.opts.Now()
	}
	e.CreatedAt = e.CreatedAt.UTC().Truncate(time.Microsecond)
	if e.EventName == "" {
		e.EventName = models.AuditEventToolInvoked
	}
	w.mu.RLock()
	if !w.done {
		w.q <- e
		w.mu.RUnlock()
		return
	}
	w.mu.RUnlock()
	w.write(context.Background(), []models.AuditEvent{e})
}

// Run writes queued events in batches until ctx ends, then writes every
// event still queued and returns.
func (w *Writer) Run(ctx context.Context) {
	tick := time.NewTicker(w.opts.Interval)
	defer tick.Stop()
	var prune <-chan time.Time
	if w.opts.Retention > 0 {
		w.prune(ctx)
		t := time.NewTicker(time.Hour)
		defer t.Stop()
		prune = t.C
	}
	batch := make([]models.AuditEvent, 0, w.opts.Batch)
	flush := func(c context.Context) {
		if len(batch) > 0 {
			w.write(c, batch)
			batch = batch[:0]
		}
	}
	for {
		select {
		case e := <-w.q:
			batch = append(batch, e)
			if len(batch) >= w.opts.Batch {
				flush(ctx)
			}
		case <-tick.C:
			flush(ctx)
		case <-prune:
			w.prune(ctx)
		case <-ctx.Done():
			// No more queueing: later Records write themselves. Drain
			// while taking the lock, so a Record blocked on a full queue
			// gets its event in and lets go.
			final := context.WithoutCancel(ctx)
			closed := make(chan struct{})
			go func() {
				w.mu.Lock()
				w.done = true
				w.mu.Unlock()
				close(closed)
			}()
			for {
				select {
				case e := <-w.q:
					batch = append(batch, e)
					if len(batch) >= w.opts.Batch {
						flush(final)
					}
				case <-closed:
					for {
						select {
						case e := <-w.q:
							batch = append(batch, e)
							if len(batch) >= w.opts.Batch {
								flush(final)
							}
						default:
							flush(final)
							return
						}
					}
				}
			}
		}
	}
}

// write inserts events, retrying a failed batch a few times (a store
// blip must not lose the trail); what still fails is logged by count.
func (w *Writer) write(ctx context.Context, events []models.AuditEvent) {
	var err error
	for attempt := range 5 {
		if attempt > 0 {
			time.Sleep(time.Duration(attempt) * 100 * time.Millisecond)
		}
		c, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		err = w.st.InsertAuditEvents(c, events)
		cancel()
		if err == nil {
			return
		}
	}
	w.opts.Logger.Error("audit events not written", "events", len(events), "error", err)
}

func (w *Writer) prune(ctx context.Context) {
	n, err := w.st.PruneAuditEvents(ctx, w.opts.Now().Add(-w.opts.Retention))
	if err != nil {
		w.opts.Logger.Warn("prune audit events", "error", err)
		return
	}
	if n > 0 {
		w.opts.Logger.Info("pruned audit events", "events", n)
	}
}

// ArgumentNames returns the sorted, comma-joined names of args' members.
func ArgumentNames(args map[string]struct{}) string {
	names := make([]string, 0, len(args))
	for k := range args {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}
