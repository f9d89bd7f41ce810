package subscriptions

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"gitlab.com/glmcp/glmcp/models"
)

// defaultApplicationName names the listener's backend in pg_stat_activity
// unless the DSN sets application_name.
const defaultApplicationName = "glmcp-catalog-listener"

// Listener timings. Fields of PGListener so tests can shorten them.
const (
	defaultMinBackoff     = 100 * time.Millisecond
	defaultMaxBackoff     = 5 * time.Second
	defaultConnectTimeout = 10 * time.Second
	defaultHealthInterval = 30 * time.Second
	defaultPingTimeout    = 5 * time.Second
)

// PGListener runs LISTEN on Channel over a dedicated pgx connection and
// publishes each notification to a Hub. It keeps the connection up: when it
// is lost, Run reconnects with capped, jittered exponential backoff, and an
// idle connection is pinged every 30 s so a silently dead one is noticed.
type PGListener struct {
	dsn    string
	hub    *Hub
	logger *slog.Logger

	ready     chan struct{}
	readyOnce sync.Once
	running   atomic.Bool

	// handlers and onState are set before Run (Handle, OnState).
	handlers map[string]func(payload string)
	onState  []func(up bool)

	minBackoff     time.Duration
	maxBackoff     time.Duration
	connectTimeout time.Duration
	healthInterval time.Duration
	pingTimeout    time.Duration
}

// NewPGListener returns a listener that connects with dsn (a pgx connection
// string; never logged) and feeds h. A nil logger discards. Call Run to
// start it.
func NewPGListener(dsn string, h *Hub, logger *slog.Logger) *PGListener {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &PGListener{
		dsn:            dsn,
		hub:            h,
		logger:         logger,
		ready:          make(chan struct{}),
		minBackoff:     defaultMinBackoff,
		maxBackoff:     defaultMaxBackoff,
		connectTimeout: defaultConnectTimeout,
		healthInterval: defaultHealthInterval,
		pingTimeout:    defaultPingTimeout,
	}
}

// Handle LISTENs on channel too, on the same connection, and calls fn
// with the payload of each notification on it (on the listener's
// goroutine: fn must not block). Call before Run.
func (l *PGListener) Handle(channel string, fn func(payload string)) {
	if l.handlers == nil {
		l.handlers = make(map[string]func(string))
	}
	l.handlers[channel] = fn
}

// OnState registers fn, called with true each time every LISTEN is
// active (before anything is delivered) and with false as soon as the
// connection is found lost, or when Run ends. Notifications sent while
// it is down are never delivered: a consumer that caches what they
// invalidate must not trust its cache until the next true. Call before
// Run.
func (l *PGListener) OnState(fn func(up bool)) { l.onState = append(l.onState, fn) }

func (l *PGListener) setState(up bool) {
	for _, fn := range l.onState {
		fn(up)
	}
}

// Ready returns a channel closed once the first LISTEN is active. It stays
// open while the database cannot be reached, so wait on it together with a
// context or timeout.
func (l *PGListener) Ready() <-chan struct{} {
	return l.ready
}

// Run listens until ctx is done, then closes its connection and returns nil.
// It runs in the caller's goroutine and starts no other long-lived ones.
//
// Connection failures are logged and retried, never returned. Every time a
// LISTEN becomes active, including the first, Run publishes a KindResync
// event before anything else: listeners subscribed while no LISTEN was
// active may have missed changes. (At start-up, with no listener yet, this
// reaches no one.) Malformed notifications are logged and ignored.
//
// Run fails at once when the DSN cannot be parsed (models.ErrInvalidInput;
// the DSN itself is not repeated, it may hold a password) or when the
// listener is already running.
func (l *PGListener) Run(ctx context.Context) error {
	if !l.running.CompareAndSwap(false, true) {
		return errors.New("run catalog listener: already running")
	}
	defer l.running.Store(false)

	cfg, err := pgx.ParseConfig(l.dsn)
	if err != nil {
		return fmt.Errorf("run catalog listener: parse database url: %w", models.ErrInvalidInput)
	}
	if cfg.RuntimeParams["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = defaultApplicationName
	}

	backoff := l.minBackoff
	for {
		established, err := l.listen(ctx, cfg)
		if ctx.Err() != nil {
			return nil
		}
		if established {
			backoff = l.minBackoff
		}
		delay := jitter(backoff)
		l.logger.Warn("catalog listener disconnected; reconnecting",
			"error", err, "retry_in_ms", delay.Milliseconds())
		if !sleep(ctx, delay) {
			return nil
		}
		backoff = min(2*backoff, l.maxBackoff)
	}
}

// listen holds one connection: connect, LISTEN, then deliver notifications
// until the connection fails or ctx is done. established reports whether
// LISTEN became active.
func (l *PGListener) listen(ctx context.Context, cfg *pgx.ConnConfig) (established bool, err error) {
	connectCtx, cancel := context.WithTimeout(ctx, l.connectTimeout)
	conn, err := pgx.ConnectConfig(connectCtx, cfg)
	cancel()
	if err != nil {
		return false, fmt.Errorf("connect: %w", err)
	}
	defer l.closeConn(conn)

	if _, err := conn.Exec(ctx, "LISTEN "+Channel); err != nil {
		return false, fmt.Errorf("listen: %w", err)
	}
	for ch := range l.handlers {
		if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{ch}.Sanitize()); err != nil {
			return false, fmt.Errorf("listen %s: %w", ch, err)
		}
	}
	l.setState(true)
	defer l.setState(false)
	// Resync before Ready: a listener subscribing after Ready must not get
	// the resync of this very LISTEN.
	l.hub.Publish(Event{Kind: KindResync})
	l.readyOnce.Do(func() { close(l.ready) })
	l.logger.Info("catalog listener active", "channel", Channel)

	for {
		waitCtx, cancel := context.WithTimeout(ctx, l.healthInterval)
		n, err := conn.WaitForNotification(waitCtx)
		idle := errors.Is(waitCtx.Err(), context.DeadlineExceeded)
		cancel()
		if n != nil {
			l.deliver(n)
		}
		switch {
		case err == nil:
			continue
		case ctx.Err() != nil:
			return true, ctx.Err()
		case idle && !conn.IsClosed():
			if err := l.ping(ctx, conn); err != nil {
				return true, err
			}
		default:
			return true, fmt.Errorf("wait for notification: %w", err)
		}
	}
}

// deliver publishes one notification to the hub, ignoring malformed ones.
func (l *PGListener) deliver(n *pgconn.Notification) {
	if n.Channel != Channel {
		if fn := l.handlers[n.Channel]; fn != nil {
			fn(n.Payload)
		}
		return
	}
	e, err := decodePayload(n.Payload)
	if err != nil {
		l.logger.Warn("ignore malformed catalog notification",
			"error", err, "payload_bytes", len(n.Payload), "sender_pid", n.PID)
		return
	}
	l.hub.Publish(e)
}

// ping checks an idle connection; a half-open TCP connection would
// otherwise wait for notifications forever.
func (l *PGListener) ping(ctx context.Context, conn *pgx.Conn) error {
	pingCtx, cancel := context.WithTimeout(ctx, l.pingTimeout)
	defer cancel()
	if err := conn.Ping(pingCtx); err != nil {
		return fmt.Errorf("ping: %w", err)
	}
	return nil
}

func (l *PGListener) closeConn(conn *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), l.pingTimeout)
	defer cancel()
	_ = conn.Close(ctx) // the connection is being dropped either way
}

// jitter returns a random duration in [d/2, d].
func jitter(d time.Duration) time.Duration {
	half := d / 2
	return half + rand.N(d-half+1)
}

// sleep waits for d or until ctx is done, reporting whether d elapsed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
