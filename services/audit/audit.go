// Package audit records an audit event for every tools/call
// (doc/security.md, "Audit events"), shaped like GitLab's ai_tool_invoked,
// off the request path: Record queues the event and returns; Run writes
// the queue in batches and, when its context ends, writes what is left
// before it returns, so a graceful shutdown loses none.
package audit

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

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
//
// Record appends to a buffer under a mutex held for the append only, and
// wakes the worker only when the buffer reaches a batch: a call costs no
// goroutine hand-off (a channel send per event woke the worker for every
// call); the ticker writes a partial batch.
type Writer struct {
	st   Store
	opts Options
	mu   sync.Mutex
	buf  []models.AuditEvent // queued, at most opts.Queue
	// space is signalled when the worker takes the buffer (a Record
	// waiting on a full queue goes on) and when the writer is done.
	space *sync.Cond
	wake  chan struct{} // a full batch waits (capacity 1)
	done  bool          // Run has returned: Record writes itself
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
	if o.Queue < o.Batch {
		o.Batch = o.Queue
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	w := &Writer{st: st, opts: o, wake: make(chan struct{}, 1)}
	w.space = sync.NewCond(&w.mu)
	return w
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
	for _, f := range [...]*string{&e.EventName, &e.Username, &e.ClientName, &e.ClientVersion, &e.Tool, &e.Target,
		&e.TargetType, &e.CorrelationID, &e.ArgumentNames} {
		*f = clean(*f)
	}
	w.mu.Lock()
	for !w.done && len(w.buf) >= w.opts.Queue {
		w.space.Wait()
	}
	if w.done {
		w.mu.Unlock()
		w.write(context.Background(), []models.AuditEvent{e})
		return
	}
	w.buf = append(w.buf, e)
	full := len(w.buf) == w.opts.Batch // the one Record that fills a batch wakes the worker
	w.mu.Unlock()
	if full {
		select {
		case w.wake <- struct{}{}:
		default: // already woken
		}
	}
}

// take returns the queued events and leaves spare (emptied) as the
// buffer, so two buffers take turns and a busy writer allocates none.
func (w *Writer) take(spare []models.AuditEvent, done bool) []models.AuditEvent {
	w.mu.Lock()
	b := w.buf
	w.buf = spare[:0]
	w.done = w.done || done
	w.space.Broadcast()
	w.mu.Unlock()
	return b
}

// Run writes queued events in batches until ctx ends, then writes every
// event still queued and returns; a Record after that writes itself, and
// one waiting on a full queue then goes on.
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
	var spare []models.AuditEvent
	flush := func(c context.Context, done bool) {
		b := w.take(spare, done)
		for rest := b; len(rest) > 0; {
			n := min(len(rest), w.opts.Batch)
			w.write(c, rest[:n])
			rest = rest[n:]
		}
		clear(b) // drop the events' strings
		spare = b[:0]
	}
	for {
		select {
		case <-w.wake:
			flush(ctx, false)
		case <-tick.C:
			flush(ctx, false)
		case <-prune:
			w.prune(ctx)
		case <-ctx.Done():
			flush(context.WithoutCancel(ctx), true)
			return
		}
	}
}

// write inserts events, retrying a failed batch a few times (a store
// blip must not lose the trail); what still fails is logged by count. A
// batch the store refuses as invalid (a row it cannot hold) is not
// retried but halved until the row stands alone, so the others are
// written.
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
		if errors.Is(err, models.ErrInvalidInput) {
			break // the same rows fail the same way
		}
	}
	if errors.Is(err, models.ErrInvalidInput) && len(events) > 1 {
		h := len(events) / 2
		w.write(ctx, events[:h])
		w.write(ctx, events[h:])
		return
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

// clean returns s storable as text in every store: PostgreSQL's text
// holds no NUL byte and only valid UTF-8, and one row that breaks either
// fails its whole batch, every other call's event in it too (a client
// choosing a tool name or an argument name with a \u0000 would have
// erased the trail). Either becomes U+FFFD, as does every other C0
// control character: the store joins the names it indexes with the unit
// separator (U+001F), which a name holding one would split.
func clean(s string) string {
	if utf8.ValidString(s) && !hasControl(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 {
			return '\uFFFD'
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}

// hasControl reports whether s holds a C0 control character: NUL, which
// PostgreSQL's text cannot hold, the unit separator the store joins the
// indexed names with, and the others no name or tool carries.
func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 {
			return true
		}
	}
	return false
}
