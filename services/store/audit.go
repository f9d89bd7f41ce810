package store

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"gitlab.com/glmcp/glmcp/migrations"
	"gitlab.com/glmcp/glmcp/models"
)

// Audit events are stored a batch to a row (audit_event_batches, migration
// 20261207230000): the audit writer's batch of up to 200 events is one
// row whose events column holds them in the encoding below, beside the
// batch's distinct usernames and targets (the filters' index) and the
// times of its first and last event. A row per event cost the database
// more CPU than a cached tools/call costs glmcp (doc/performance.md,
// "Safety defences"). An event's id is its row's id × auditRowIDs plus
// its place in the row; events moved from the old audit_events table
// keep theirs.

// auditRowIDs is the number of event ids a row owns, so the most events a
// row holds.
const auditRowIDs = 1024

// auditFormat is the first byte of the events column in the binary
// encoding; rows moved from audit_events hold a JSON array ('[').
const auditFormat = 1

// auditSep separates the usernames and targets on SQLite, which has no
// arrays: "\x1falice\x1fbob\x1f".
const auditSep = "\x1f"

// InsertAuditEvents writes events (a batch of the audit writer) as one
// row, or one per auditRowIDs events. An event the store cannot hold (an
// unknown outcome, a NUL or invalid UTF-8 in its text) refuses the batch
// with models.ErrInvalidInput, as the table's checks did.
func (a *Audit) InsertAuditEvents(ctx context.Context, events []models.AuditEvent) error {
	for len(events) > 0 {
		n := min(len(events), auditRowIDs)
		if err := a.insertAuditBatch(ctx, events[:n]); err != nil {
			return fmt.Errorf("insert %d audit events: %w", n, err)
		}
		events = events[n:]
	}
	return nil
}

func (a *Audit) insertAuditBatch(ctx context.Context, events []models.AuditEvent) error {
	first, last := events[0].CreatedAt, events[0].CreatedAt
	var users, targets []string
	for i := range events {
		e := &events[i]
		if err := storableAuditEvent(e); err != nil {
			return err
		}
		if e.CreatedAt.Before(first) {
			first = e.CreatedAt
		}
		if e.CreatedAt.After(last) {
			last = e.CreatedAt
		}
		users = appendDistinct(users, e.Username)
		targets = appendDistinct(targets, e.Target)
	}
	blob := encodeAuditEvents(make([]byte, 0, 16+112*len(events)), events, -1)
	first, last = first.UTC(), last.UTC()
	if a.dialect == migrations.DialectPostgres {
		db, err := a.conn(ctx).DB()
		if err != nil {
			return err
		}
		conn, err := db.Conn(ctx)
		if err != nil {
			return translate(err)
		}
		defer conn.Close()
		return translate(conn.Raw(func(driverConn any) error {
			c, ok := driverConn.(*stdlib.Conn)
			if !ok {
				return fmt.Errorf("audit: the PostgreSQL connection is a %T, not pgx's", driverConn)
			}
			_, err := c.Conn().Exec(ctx, "INSERT INTO audit_event_batches (first_at, last_at, n, usernames, targets, events) VALUES ($1, $2, $3, $4, $5, $6)",
				first, last, len(events), users, targets, blob)
			return err
		}))
	}
	err := a.conn(ctx).Exec("INSERT INTO audit_event_batches (first_at, last_at, n, usernames, targets, events) VALUES (?, ?, ?, ?, ?, ?)",
		first, last, len(events), sepJoin(users), sepJoin(targets), blob).Error
	return translate(err)
}

// storableAuditEvent refuses what the row-per-event table refused: an
// outcome outside its check, text PostgreSQL cannot hold.
func storableAuditEvent(e *models.AuditEvent) error {
	switch e.Outcome {
	case models.AuditSuccess, models.AuditToolError, models.AuditRefused, models.AuditFailed:
	default:
		return fmt.Errorf("audit outcome %q: %w", e.Outcome, models.ErrInvalidInput)
	}
	for _, s := range [...]string{e.EventName, e.Username, e.ClientName, e.ClientVersion, e.Tool, e.Target, e.TargetType,
		e.CorrelationID, e.ArgumentNames} {
		if strings.IndexByte(s, 0) >= 0 || strings.Contains(s, auditSep) || !utf8.ValidString(s) {
			return fmt.Errorf("audit event text %q is not storable (NUL, U+001F or invalid UTF-8): %w", s, models.ErrInvalidInput)
		}
	}
	return nil
}

func appendDistinct(list []string, s string) []string {
	for _, v := range list {
		if v == s {
			return list
		}
	}
	return append(list, s)
}

func sepJoin(list []string) string {
	return auditSep + strings.Join(list, auditSep) + auditSep
}

// encodeAuditEvents appends events to buf: the format byte, the count,
// the first event's time (Unix µs), then per event its id's offset from
// its row's id × auditRowIDs (its place in the row when idBase < 0, else
// e.ID - idBase), its time as µs after the first event's (signed), its integers and its
// text, each string length-prefixed. Varints throughout.
func encodeAuditEvents(buf []byte, events []models.AuditEvent, idBase int64) []byte {
	buf = append(buf, auditFormat)
	buf = binary.AppendUvarint(buf, uint64(len(events)))
	base := events[0].CreatedAt.UnixMicro()
	buf = binary.AppendVarint(buf, base)
	str := func(s string) {
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	for i := range events {
		e := &events[i]
		if idBase < 0 {
			buf = binary.AppendVarint(buf, int64(i))
		} else {
			buf = binary.AppendVarint(buf, e.ID-idBase)
		}
		buf = binary.AppendVarint(buf, e.CreatedAt.UnixMicro()-base)
		buf = binary.AppendVarint(buf, e.UserID)
		buf = binary.AppendVarint(buf, e.TokenID)
		buf = binary.AppendVarint(buf, e.DurationMs)
		str(e.EventName)
		str(e.Username)
		str(e.ClientName)
		str(e.ClientVersion)
		str(e.Tool)
		str(e.Target)
		str(e.TargetType)
		str(string(e.Outcome))
		str(e.CorrelationID)
		str(e.ArgumentNames)
	}
	return buf
}

var errAuditRow = errors.New("audit: a stored batch is not in a known encoding")

// decodeAuditEvents reads the events of row id (either encoding).
func decodeAuditEvents(id int64, blob []byte) ([]models.AuditEvent, error) {
	if len(blob) > 0 && blob[0] == '[' {
		return decodeMovedAuditEvents(blob)
	}
	if len(blob) == 0 || blob[0] != auditFormat {
		return nil, errAuditRow
	}
	r := &varintReader{p: blob[1:]}
	uv, sv, str := r.uvarint, r.varint, r.string
	count := uv()
	base := sv()
	if r.bad || count > auditRowIDs {
		return nil, errAuditRow
	}
	out := make([]models.AuditEvent, count)
	for i := range out {
		e := &out[i]
		e.ID = id*auditRowIDs + sv()
		e.CreatedAt = time.UnixMicro(base + sv()).UTC()
		e.UserID, e.TokenID, e.DurationMs = sv(), sv(), sv()
		e.EventName, e.Username, e.ClientName, e.ClientVersion = str(), str(), str(), str()
		e.Tool, e.Target, e.TargetType = str(), str(), str()
		e.Outcome = models.AuditOutcome(str())
		e.CorrelationID, e.ArgumentNames = str(), str()
		if r.bad {
			return nil, errAuditRow
		}
	}
	return out, nil
}

// varintReader reads what encodeAuditEvents wrote: varints and
// length-prefixed strings. A read past the end (or a malformed varint)
// sets bad and reads zero; the caller checks bad once per event.
type varintReader struct {
	p   []byte
	bad bool
}

func (r *varintReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.p)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.p = r.p[n:]
	return v
}

// varint reads a signed varint: binary.PutVarint's zig-zag encoding of
// an unsigned one.
func (r *varintReader) varint() int64 {
	u := r.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (r *varintReader) string() string {
	n := r.uvarint()
	if r.bad || n > uint64(len(r.p)) {
		r.bad = true
		return ""
	}
	s := string(r.p[:n])
	r.p = r.p[n:]
	return s
}

// movedAuditEvent is an audit_events row as the migration put it in JSON:
// at_us on PostgreSQL, created_at (SQLite's text) on SQLite.
type movedAuditEvent struct {
	ID            int64  `json:"id"`
	AtMicros      *int64 `json:"at_us"`
	CreatedAt     string `json:"created_at"`
	EventName     string `json:"event_name"`
	UserID        int64  `json:"user_id"`
	Username      string `json:"username"`
	TokenID       int64  `json:"token_id"`
	ClientName    string `json:"client_name"`
	ClientVersion string `json:"client_version"`
	Tool          string `json:"tool"`
	Target        string `json:"target"`
	TargetType    string `json:"target_type"`
	Outcome       string `json:"outcome"`
	DurationMs    int64  `json:"duration_ms"`
	CorrelationID string `json:"correlation_id"`
	ArgumentNames string `json:"argument_names"`
}

// sqliteTimeLayouts are the ways a DATETIME column can read on SQLite.
var sqliteTimeLayouts = []string{"2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05.999999999 -0700 MST", time.RFC3339Nano, "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999"}

func decodeMovedAuditEvents(blob []byte) ([]models.AuditEvent, error) {
	var rows []movedAuditEvent
	if err := json.Unmarshal(blob, &rows); err != nil {
		return nil, fmt.Errorf("%w: %v", errAuditRow, err)
	}
	out := make([]models.AuditEvent, len(rows))
	for i, r := range rows {
		var at time.Time
		if r.AtMicros != nil {
			at = time.UnixMicro(*r.AtMicros)
		} else {
			var err error
			for _, layout := range sqliteTimeLayouts {
				if at, err = time.Parse(layout, r.CreatedAt); err == nil {
					break
				}
			}
			if err != nil {
				return nil, fmt.Errorf("%w: time %q", errAuditRow, r.CreatedAt)
			}
		}
		out[i] = models.AuditEvent{ID: r.ID, CreatedAt: at.UTC(), EventName: r.EventName, UserID: r.UserID,
			Username: r.Username, TokenID: r.TokenID, ClientName: r.ClientName, ClientVersion: r.ClientVersion,
			Tool: r.Tool, Target: r.Target, TargetType: r.TargetType, Outcome: models.AuditOutcome(r.Outcome),
			DurationMs: r.DurationMs, CorrelationID: r.CorrelationID, ArgumentNames: r.ArgumentNames}
	}
	return out, nil
}

// auditBatchRow is an audit_event_batches row as the reads scan it.
type auditBatchRow struct {
	ID     int64
	LastAt time.Time
	Events []byte
}

// auditBatchPage is how many rows a listing reads at a time.
const auditBatchPage = 8

// newerAudit orders events newest first: created_at, then id, descending.
func newerAudit(a, b *models.AuditEvent) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.After(b.CreatedAt)
	}
	return a.ID > b.ID
}

// ListAuditEvents returns the events f selects, newest first (at most
// f.Limit, default 100). The rows that can hold one are read by their
// last event's time, newest first (the (last_at, id) index backwards;
// --user and --project narrow them through the arrays' GIN indexes on
// PostgreSQL), a page of rows at a time, until the rows still to read
// are older than the limit-th newest event found.
func (a *Audit) ListAuditEvents(ctx context.Context, f models.AuditFilter) ([]models.AuditEvent, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	since := f.Since.UTC()
	var out []models.AuditEvent
	var after *auditBatchRow
	for {
		q := a.conn(ctx).Table("audit_event_batches").Select("id, last_at, events")
		pg := a.dialect == migrations.DialectPostgres
		if f.Username != "" {
			if pg {
				q = q.Where("usernames @> ARRAY[?]::text[]", f.Username)
			} else {
				q = q.Where("instr(usernames, ?) > 0", auditSep+f.Username+auditSep)
			}
		}
		if f.Target != "" {
			if pg {
				q = q.Where("targets @> ARRAY[?]::text[]", f.Target)
			} else {
				q = q.Where("instr(targets, ?) > 0", auditSep+f.Target+auditSep)
			}
		}
		if !f.Since.IsZero() {
			q = q.Where("last_at >= ?", since)
		}
		if after != nil {
			q = q.Where("(last_at < ? OR (last_at = ? AND id < ?))", after.LastAt, after.LastAt, after.ID)
		}
		var rows []auditBatchRow
		if err := q.Order("last_at DESC, id DESC").Limit(auditBatchPage).Find(&rows).Error; err != nil {
			return nil, fmt.Errorf("list audit events: %w", translate(err))
		}
		for i := range rows {
			r := &rows[i]
			events, err := decodeAuditEvents(r.ID, r.Events)
			if err != nil {
				return nil, fmt.Errorf("list audit events: row %d: %w", r.ID, err)
			}
			for _, e := range events {
				if (f.Username == "" || e.Username == f.Username) && (f.Target == "" || e.Target == f.Target) &&
					(f.Since.IsZero() || !e.CreatedAt.Before(since)) {
					out = append(out, e)
				}
			}
		}
		sort.SliceStable(out, func(i, j int) bool { return newerAudit(&out[i], &out[j]) })
		if len(out) > limit {
			out = out[:limit]
		}
		if len(rows) < auditBatchPage {
			return out, nil
		}
		after = &rows[len(rows)-1]
		if len(out) == limit && after.LastAt.Before(out[limit-1].CreatedAt) {
			return out, nil // every later row's events are older than the limit-th
		}
	}
}

// PruneAuditEvents deletes the events created before cutoff and returns
// how many: the rows whose last event is older go whole, a row holding
// events on both sides of cutoff is rewritten with the newer ones (their
// ids kept).
func (a *Audit) PruneAuditEvents(ctx context.Context, cutoff time.Time) (int64, error) {
	cutoff = cutoff.UTC()
	var total int64
	err := a.conn(ctx).Transaction(func(tx *gorm.DB) error {
		// The rows deleted count what they held (RETURNING: another
		// instance pruning at once counts only what it deleted itself).
		var gone []int64
		if err := tx.Raw("DELETE FROM audit_event_batches WHERE first_at < ? AND last_at < ? RETURNING n", cutoff, cutoff).
			Scan(&gone).Error; err != nil {
			return err
		}
		for _, n := range gone {
			total += n
		}
		// A row straddling the cutoff is rewritten; on PostgreSQL it is
		// locked first, so a concurrent prune with another cutoff waits
		// instead of writing back events this one removed.
		split := tx.Table("audit_event_batches").Select("id, last_at, events").Where("first_at < ?", cutoff)
		if a.dialect == migrations.DialectPostgres {
			split = split.Clauses(clause.Locking{Strength: "UPDATE"})
		}
		var rows []auditBatchRow
		if err := split.Find(&rows).Error; err != nil {
			return err
		}
		for _, r := range rows {
			events, err := decodeAuditEvents(r.ID, r.Events)
			if err != nil {
				return fmt.Errorf("row %d: %w", r.ID, err)
			}
			kept := events[:0]
			for _, e := range events {
				if !e.CreatedAt.Before(cutoff) {
					kept = append(kept, e)
				}
			}
			total += int64(len(events) - len(kept))
			if err := a.rewriteAuditBatch(tx, r.ID, kept); err != nil {
				return fmt.Errorf("row %d: %w", r.ID, err)
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("prune audit events: %w", translate(err))
	}
	return total, nil
}

// rewriteAuditBatch stores row id with only events (their ids kept), or
// deletes it when none is left.
func (a *Audit) rewriteAuditBatch(tx *gorm.DB, id int64, events []models.AuditEvent) error {
	if len(events) == 0 {
		return tx.Exec("DELETE FROM audit_event_batches WHERE id = ?", id).Error
	}
	first, last := events[0].CreatedAt, events[0].CreatedAt
	var users, targets []string
	for _, e := range events {
		if e.CreatedAt.Before(first) {
			first = e.CreatedAt
		}
		if e.CreatedAt.After(last) {
			last = e.CreatedAt
		}
		users = appendDistinct(users, e.Username)
		targets = appendDistinct(targets, e.Target)
	}
	blob := encodeAuditEvents(nil, events, id*auditRowIDs)
	set := "usernames = ?, targets = ?"
	u, t := sepJoin(users), sepJoin(targets)
	if a.dialect == migrations.DialectPostgres {
		set = "usernames = string_to_array(?, chr(31)), targets = string_to_array(?, chr(31))"
		u, t = strings.Join(users, auditSep), strings.Join(targets, auditSep)
	}
	return tx.Exec("UPDATE audit_event_batches SET first_at = ?, last_at = ?, n = ?, "+set+", events = ? WHERE id = ?",
		first.UTC(), last.UTC(), len(events), u, t, blob, id).Error
}
