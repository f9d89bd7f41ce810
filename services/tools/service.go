package tools

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/catalog"
)

// Store is what the tool service needs from the tool store.
type Store interface {
	// UpsertTool inserts the tool or updates its code-owned columns
	// (schemas, annotations, toolset, edition, aliases, title), keeping an
	// existing row's enabled flag and description.
	UpsertTool(ctx context.Context, t *models.Tool) error
	// ListTools returns every tool (enabled or not), ordered by name.
	ListTools(ctx context.Context) ([]models.Tool, error)
}

// Options configure a Service.
type Options struct {
	// MaxAge bounds how stale a snapshot may get without an Invalidate
	// (a safety net for missed change events). Default 5s.
	MaxAge time.Duration
	// ReloadTimeout bounds one reload of the snapshot (default 5s, the
	// store's statement deadline); ReloadWait is how long a reader waits
	// for a reload while a snapshot exists before it is served that one
	// (default 250ms).
	ReloadTimeout time.Duration
	ReloadWait    time.Duration
	Now           func() time.Time
	Logger        *slog.Logger
	// Transient definitions are served from code only: never written to
	// the store (Sync skips them), always enabled, and listed in every
	// snapshot (shadowing a store row of the same name). The conformance
	// fixtures use it, so they vanish with the flag that adds them.
	Transient []Definition
	// Secret keys the tools/list cursors and the requestState of
	// input_required results; instances sharing it accept each other's.
	// Empty: a random per-process key.
	Secret []byte
	// PageSize is the most tools a tools/list page holds (default
	// catalog.DefaultPageSize).
	PageSize int
	// Rules, when set, holds the Allow / Ask / Deny tool rules checked on
	// every call of a write tool, at the places the tool's Definition.Places
	// finds; DefaultWriteRule applies where no rule does (default allow,
	// GitLab's behaviour).
	Rules            RuleStore
	DefaultWriteRule models.ToolRuleKind
	// Wrappers are cross-cutting links of the tools/call chain, run in
	// this order after the tool rules and before the handler (chain.go):
	// each sees the tool, the validated arguments (Invocation.Call), the
	// resolved target, and the result coming back (the handler's, before
	// input requests are sealed), and may end the call: the sanitiser
	// (services/safety/sanitize.Link).
	Wrappers []Link
	// Outer are links run first, before the tool is looked up: they see
	// every call and how it ended, refusals included: the audit event
	// of every call (services/audit.Link). Invocation.Entry and Call are
	// nil until they call Next, and stay nil when the call ended before
	// the tool link or the arguments link set them.
	Outer []Link
	// StateTTL is how long a requestState (an approval among them) stays
	// valid (default 15 minutes).
	StateTTL time.Duration
	// SecretScan, when set, is secret push protection (doc/security.md):
	// it returns where a write tool's arguments hold a secret (each
	// "<rule> in <where>", never the secret); a call with any is refused
	// before anything is written. args is the call's arguments as the
	// chain parsed them once (objects map[string]any, numbers
	// json.Number), to be read, never changed.
	SecretScan func(args any) []string
}

// Service owns the tool definitions and the cached catalog snapshot.
type Service struct {
	store Store
	defs  map[string]*Definition
	rows  map[string]*models.Tool // defs as store rows, for Describe
	opts  Options
	// transient are the Options.Transient rows, ordered by name.
	transient []models.Tool

	// toolsets are the names the toolsets header accepts (catalog.Toolsets
	// of the definitions).
	toolsets []string
	lister   *catalog.Lister
	states   *stateSealer

	// chain is the tools/call chain (links).
	chain []Link

	mu      sync.Mutex
	snap    *Snapshot
	gen     uint64        // bumped by Invalidate
	loading *snapshotLoad // the reload in flight, if any
}

// NewService returns a Service for defs. Definition names must be unique.
func NewService(store Store, defs []Definition, opts Options) (*Service, error) {
	if opts.MaxAge <= 0 {
		opts.MaxAge = 5 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.ReloadTimeout <= 0 {
		opts.ReloadTimeout = 5 * time.Second
	}
	if opts.ReloadWait <= 0 {
		opts.ReloadWait = 250 * time.Millisecond
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	m := make(map[string]*Definition, len(defs))
	rows := make(map[string]*models.Tool, len(defs))
	for i := range defs {
		d := &defs[i]
		if _, dup := m[d.Name]; dup {
			return nil, fmt.Errorf("new tool service: duplicate tool %q", d.Name)
		}
		if _, err := compileSchema(d.Name, d.InputSchema); err != nil {
			return nil, fmt.Errorf("new tool service: %w", err)
		}
		if len(d.OutputSchema) > 0 {
			if _, err := compileSchema(d.Name+".output", d.OutputSchema); err != nil {
				return nil, fmt.Errorf("new tool service: %w", err)
			}
		}
		if err := checkWriteTarget(d); err != nil {
			return nil, fmt.Errorf("new tool service: %w", err)
		}
		if err := checkTarget(d); err != nil {
			return nil, fmt.Errorf("new tool service: %w", err)
		}
		row, err := d.Model()
		if err != nil {
			return nil, fmt.Errorf("new tool service: %w", err)
		}
		m[d.Name] = d
		rows[d.Name] = row
	}
	s := &Service{store: store, defs: m, rows: rows, opts: opts}
	if err := s.addTransient(opts.Transient); err != nil {
		return nil, fmt.Errorf("new tool service: %w", err)
	}
	secret := opts.Secret
	if len(secret) == 0 {
		secret = make([]byte, 32)
		if _, err := rand.Read(secret); err != nil {
			return nil, fmt.Errorf("new tool service: generate key: %w", err)
		}
	}
	if opts.PageSize == 0 {
		opts.PageSize = catalog.DefaultPageSize
	}
	var err error
	if s.lister, err = catalog.NewLister(secret, opts.PageSize); err != nil {
		return nil, fmt.Errorf("new tool service: %w", err)
	}
	if s.states, err = newStateSealer(secret); err != nil {
		return nil, fmt.Errorf("new tool service: %w", err)
	}
	if opts.StateTTL > 0 {
		s.states.ttl = opts.StateTTL
	}
	if opts.DefaultWriteRule != "" && !opts.DefaultWriteRule.Valid() {
		return nil, fmt.Errorf("new tool service: default write rule %q is not allow, ask or deny", opts.DefaultWriteRule)
	}
	names := make([]string, 0, len(s.defs))
	for _, d := range s.defs {
		names = append(names, d.Toolset)
	}
	s.toolsets = catalog.Toolsets(names)
	s.chain = s.links()
	return s, nil
}

// Describe returns the code's definition of the named tool (by name, not
// alias) as a store row — toolset, edition, annotations, aliases — whether
// or not the store has it enabled (Enabled is always true). The columns it
// carries are code-owned, so they match the store. It never touches the
// store and takes no lock, so change-notification fan-out can call it per
// listener. The returned tool is shared: do not modify it.
func (s *Service) Describe(name string) (*models.Tool, bool) {
	t, ok := s.rows[name]
	return t, ok
}

// Definitions returns the code-side definitions ordered by name, the
// transient ones excepted (see Options.Transient).
func (s *Service) Definitions() []*Definition {
	out := make([]*Definition, 0, len(s.defs))
	for _, d := range s.defs {
		if !s.isTransient(d.Name) {
			out = append(out, d)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// unchangedTeller is a Store that tells in one read which definitions it
// already holds unchanged (services/store's does: Tools.UnchangedTools).
type unchangedTeller interface {
	UnchangedTools(ctx context.Context, ts []*models.Tool) (map[string]bool, error)
}

// Sync writes the code-side definitions into the store (see Store.UpsertTool
// for what an existing row keeps). A store that can tell which definitions
// it already holds unchanged is asked first, and only the others are
// upserted: at a start on an up-to-date catalog, one query instead of a
// transaction per tool (upserting those would write nothing).
func (s *Service) Sync(ctx context.Context) error {
	defs := s.Definitions()
	rows := make([]*models.Tool, len(defs))
	for i, d := range defs {
		m, err := d.Model()
		if err != nil {
			return err
		}
		rows[i] = m
	}
	var unchanged map[string]bool
	if u, ok := s.store.(unchangedTeller); ok {
		var err error
		if unchanged, err = u.UnchangedTools(ctx, rows); err != nil {
			return fmt.Errorf("sync tools: %w", err)
		}
	}
	for i, d := range defs {
		m := rows[i]
		if unchanged[m.Name] {
			continue
		}
		if err := s.store.UpsertTool(ctx, m); err != nil {
			return fmt.Errorf("sync tool %q: %w", d.Name, err)
		}
	}
	s.Invalidate()
	return nil
}

// Invalidate marks the cached snapshot stale; the next Snapshot reloads it.
func (s *Service) Invalidate() {
	s.mu.Lock()
	s.gen++
	s.mu.Unlock()
}

// Snapshot returns the current catalog of enabled tools, cached until
// Invalidate or MaxAge. A reload runs once at a time, off the lock readers
// take, under ReloadTimeout; a reader waits for it at most ReloadWait
// while a snapshot exists, and is then served that one (stale rather than
// stalled: a frozen database must not hold tools/list, nor every call).
// Only the first load, with nothing to serve, waits for the reload's end
// (or ctx's).
func (s *Service) Snapshot(ctx context.Context) (*Snapshot, error) {
	now := s.opts.Now()
	s.mu.Lock()
	snap := s.snap
	if snap != nil && snap.gen == s.gen && now.Sub(snap.loaded) < s.opts.MaxAge {
		s.mu.Unlock()
		return snap, nil
	}
	load := s.loading
	if load == nil {
		load = &snapshotLoad{done: make(chan struct{})}
		s.loading = load
		go s.reload(context.WithoutCancel(ctx), load, s.gen, now)
	}
	s.mu.Unlock()
	var wait <-chan time.Time
	if snap != nil {
		t := time.NewTimer(s.opts.ReloadWait)
		defer t.Stop()
		wait = t.C
	}
	select {
	case <-load.done:
	case <-wait:
		return snap, nil
	case <-ctx.Done():
		if snap != nil {
			return snap, nil
		}
		return nil, fmt.Errorf("load tool catalog: %w", ctx.Err())
	}
	if load.err != nil {
		if snap != nil { // serve stale rather than fail while the store blips
			return snap, nil
		}
		return nil, load.err
	}
	return load.snap, nil
}

// snapshotLoad is one reload of the snapshot; snap and err are set before
// done is closed.
type snapshotLoad struct {
	done chan struct{}
	snap *Snapshot
	err  error
}

// reload reads the catalog for load, as of generation gen (a later
// Invalidate leaves the new snapshot stale, so the next reader reloads).
func (s *Service) reload(ctx context.Context, load *snapshotLoad, gen uint64, now time.Time) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.ReloadTimeout)
	defer cancel()
	rows, err := s.store.ListTools(ctx)
	if err == nil {
		s.mu.Lock()
		prev := s.snap
		s.mu.Unlock()
		load.snap, err = s.build(rows, prev, now)
	}
	s.mu.Lock()
	if err == nil {
		load.snap.gen = gen
		s.snap = load.snap
	} else {
		load.err = fmt.Errorf("load tool catalog: %w", err)
		if s.snap != nil {
			s.opts.Logger.WarnContext(ctx, "reload tool catalog: serving the cached one", "error", err)
		}
	}
	s.loading = nil
	s.mu.Unlock()
	close(load.done)
}

// build makes the snapshot of rows, reusing what prev (the snapshot it
// replaces, or nil) compiled and encoded of unchanged rows.
func (s *Service) build(rows []models.Tool, prev *Snapshot, now time.Time) (*Snapshot, error) {
	rows = s.withTransient(rows)
	enabled := make([]models.Tool, 0, len(rows))
	for _, r := range rows {
		if r.Enabled {
			enabled = append(enabled, r)
		}
	}
	sort.Slice(enabled, func(i, j int) bool { return enabled[i].Name < enabled[j].Name })
	snap := &Snapshot{loaded: now, byName: make(map[string]*Entry, len(enabled))}
	snap.Entries = make([]Entry, 0, len(enabled))
	for i := range enabled {
		t := &enabled[i]
		var schema *lazySchema
		var encoded []byte
		if prev != nil { // reuse compiled schemas and encodings of unchanged rows
			if old := prev.byName[t.Name]; old != nil && old.Tool.UpdatedAt.Equal(t.UpdatedAt) &&
				bytes.Equal(old.Tool.InputSchema, t.InputSchema) && old.Tool.Description == t.Description {
				schema, encoded = old.schema, old.encoded
			}
		}
		if schema == nil {
			schema = &lazySchema{name: t.Name, raw: json.RawMessage(t.InputSchema)}
		}
		if encoded == nil {
			enc, err := encodeTool(t)
			if err != nil { // one broken row must not take the catalog down
				s.opts.Logger.Warn("skip tool with an unencodable definition", "tool", t.Name, "error", err)
				continue
			}
			encoded = enc
		}
		snap.Entries = append(snap.Entries, Entry{}) // Entry holds a sync.Once: fill in place
		e := &snap.Entries[len(snap.Entries)-1]
		e.Tool, e.Def, e.readOnly, e.schema, e.encoded = *t, s.defs[t.Name], catalog.ReadOnly(t), schema, encoded
	}
	for i := range snap.Entries {
		e := &snap.Entries[i]
		snap.byName[e.Tool.Name] = e
	}
	for i := range snap.Entries { // aliases resolve on call, never shadow a name
		e := &snap.Entries[i]
		for _, a := range e.Tool.Aliases {
			if _, taken := snap.byName[a]; !taken {
				snap.byName[a] = e
			}
		}
	}
	return snap, nil
}

// Snapshot is an immutable view of the enabled catalog.
type Snapshot struct {
	loaded time.Time
	gen    uint64 // the service's generation it was loaded in
	// Entries are the enabled tools ordered by name.
	Entries []Entry
	byName  map[string]*Entry
}

// Entry is one enabled tool with its executor and cached encodings.
type Entry struct {
	Tool models.Tool
	Def  *Definition // nil when the store has a tool the code cannot run

	// schema is shared with the previous snapshot's entry of an unchanged
	// row, so a schema compiles at most once across reloads.
	schema   *lazySchema
	encoded  []byte // the tools/list object minus the name: `,"title":…}`
	readOnly bool   // catalog.ReadOnly(Tool), computed once per snapshot

	mirroredOnce sync.Once
	mirrored     []MirroredParam
}

// ReadOnly reports whether the tool's annotations say readOnlyHint: true
// (see catalog.ReadOnly), computed once when the snapshot was built.
func (e *Entry) ReadOnly() bool { return e.readOnly }

// Listed reports whether tools/list shows the tool (see
// Definition.Unlisted).
func (e *Entry) Listed() bool { return e.Def == nil || !e.Def.Unlisted }

// Lookup resolves a name or alias to an enabled tool.
func (s *Snapshot) Lookup(name string) (*Entry, bool) {
	e, ok := s.byName[name]
	return e, ok
}
