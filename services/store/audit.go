package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/stdlib"

	"gitlab.com/glmcp/glmcp/migrations"
	"gitlab.com/glmcp/glmcp/models"
)

// auditRow is audit_events as gorm reads it.
type auditRow struct {
	ID            int64
	CreatedAt     time.Time
	EventName     string
	UserID        int64
	Username      string
	TokenID       int64
	ClientName    string
	ClientVersion string
	Tool          string
	Target        string
	TargetType    string
	Outcome       string
	DurationMs    int64
	CorrelationID string
	ArgumentNames string
}

const auditColumns = "created_at, event_name, user_id, username, token_id, client_name, client_version, tool, target, target_type, outcome, duration_ms, correlation_id, argument_names"

// InsertAuditEvents writes events in one statement (a batch of the audit
// writer): on PostgreSQL a COPY (an INSERT inside a transaction), on
// SQLite one INSERT. Their ids are not read back.
func (a *Audit) InsertAuditEvents(ctx context.Context, events []models.AuditEvent) error {
	if len(events) == 0 {
		return nil
	}
	if db, err := a.conn(ctx).DB(); err == nil && a.dialect == migrations.DialectPostgres {
		if err := copyAuditEvents(ctx, db, events); err != nil {
			return fmt.Errorf("copy %d audit events: %w", len(events), translate(err))
		}
		return nil
	}
	var sb strings.Builder
	sb.WriteString("INSERT INTO audit_events (" + auditColumns + ") VALUES ")
	args := make([]any, 0, len(events)*14)
	for i, e := range events {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString("(?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
		args = append(args, e.CreatedAt.UTC(), e.EventName, e.UserID, e.Username, e.TokenID, e.ClientName, e.ClientVersion,
			e.Tool, e.Target, e.TargetType, string(e.Outcome), e.DurationMs, e.CorrelationID, e.ArgumentNames)
	}
	if err := a.conn(ctx).Exec(sb.String(), args...).Error; err != nil {
		return fmt.Errorf("insert %d audit events: %w", len(events), translate(err))
	}
	return nil
}

// copyAuditEvents writes events with PostgreSQL's COPY: a row per
// tools/call at thousands of calls a second, where a multi-row INSERT
// costs the database a parse of 14 parameters a row (doc/performance.md,
// "Safety defences"). The rows go in COPY's binary format, encoded here
// (encodeAuditRows): the table's column types are fixed by its
// migrations, so there is nothing to look up per value, as pgx's
// CopyFrom does for each of a row's 14.
func copyAuditEvents(ctx context.Context, db *sql.DB, events []models.AuditEvent) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	buf := encodeAuditRows(make([]byte, 0, 256*len(events)), events)
	return conn.Raw(func(driverConn any) error {
		c, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("audit: the PostgreSQL connection is a %T, not pgx's", driverConn)
		}
		tag, err := c.Conn().PgConn().CopyFrom(ctx, bytes.NewReader(buf), auditCopySQL)
		if err == nil && tag.RowsAffected() != int64(len(events)) {
			err = fmt.Errorf("COPY wrote %d rows of %d", tag.RowsAffected(), len(events))
		}
		return err
	})
}

// auditCopySQL is the COPY that encodeAuditRows' data is for.
var auditCopySQL = "COPY audit_events (" + auditColumns + ") FROM STDIN (FORMAT binary)"

// pgEpochMicros is PostgreSQL's timestamp zero (2000-01-01 UTC) in Unix
// microseconds; a timestamptz is sent as the microseconds since it.
var pgEpochMicros = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()

// encodeAuditRows appends events to buf in COPY's binary format, in
// auditColumns' order: created_at a timestamptz, the ids and duration_ms
// bigints, the rest text (as UTF-8 bytes, which PostgreSQL checks as it
// does any text).
func encodeAuditRows(buf []byte, events []models.AuditEvent) []byte {
	buf = append(buf, "PGCOPY\n\xff\r\n\x00"...)
	buf = binary.BigEndian.AppendUint32(buf, 0) // flags
	buf = binary.BigEndian.AppendUint32(buf, 0) // header extension length
	text := func(s string) {
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(s)))
		buf = append(buf, s...)
	}
	bigint := func(v int64) {
		buf = binary.BigEndian.AppendUint32(buf, 8)
		buf = binary.BigEndian.AppendUint64(buf, uint64(v))
	}
	for i := range events {
		e := &events[i]
		buf = binary.BigEndian.AppendUint16(buf, 14) // fields
		bigint(e.CreatedAt.UnixMicro() - pgEpochMicros)
		text(e.EventName)
		bigint(e.UserID)
		text(e.Username)
		bigint(e.TokenID)
		text(e.ClientName)
		text(e.ClientVersion)
		text(e.Tool)
		text(e.Target)
		text(e.TargetType)
		text(string(e.Outcome))
		bigint(e.DurationMs)
		text(e.CorrelationID)
		text(e.ArgumentNames)
	}
	return binary.BigEndian.AppendUint16(buf, 0xffff) // trailer: -1
}

// ListAuditEvents returns the events f selects, newest first (at most
// f.Limit, default 100).
func (a *Audit) ListAuditEvents(ctx context.Context, f models.AuditFilter) ([]models.AuditEvent, error) {
	q := a.conn(ctx).Table("audit_events")
	if f.Username != "" {
		q = q.Where("username = ?", f.Username)
	}
	if f.Target != "" {
		q = q.Where("target = ?", f.Target)
	}
	if !f.Since.IsZero() {
		q = q.Where("created_at >= ?", f.Since.UTC())
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	var rows []auditRow
	if err := q.Order("created_at DESC, id DESC").Limit(limit).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list audit events: %w", translate(err))
	}
	out := make([]models.AuditEvent, len(rows))
	for i, r := range rows {
		out[i] = models.AuditEvent{ID: r.ID, CreatedAt: r.CreatedAt.UTC(), EventName: r.EventName, UserID: r.UserID,
			Username: r.Username, TokenID: r.TokenID, ClientName: r.ClientName, ClientVersion: r.ClientVersion,
			Tool: r.Tool, Target: r.Target, TargetType: r.TargetType, Outcome: models.AuditOutcome(r.Outcome),
			DurationMs: r.DurationMs, CorrelationID: r.CorrelationID, ArgumentNames: r.ArgumentNames}
	}
	return out, nil
}

// PruneAuditEvents deletes the events created before cutoff and returns
// how many.
func (a *Audit) PruneAuditEvents(ctx context.Context, cutoff time.Time) (int64, error) {
	res := a.conn(ctx).Exec("DELETE FROM audit_events WHERE created_at < ?", cutoff.UTC())
	if res.Error != nil {
		return 0, fmt.Errorf("prune audit events: %w", translate(res.Error))
	}
	return res.RowsAffected, nil
}
