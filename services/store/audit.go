package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
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
// "Safety defences").
func copyAuditEvents(ctx context.Context, db *sql.DB, events []models.AuditEvent) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(driverConn any) error {
		c, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("audit: the PostgreSQL connection is a %T, not pgx's", driverConn)
		}
		_, err := c.Conn().CopyFrom(ctx, pgx.Identifier{"audit_events"}, auditColumnList, &auditRows{events: events})
		return err
	})
}

// auditRows is events as COPY reads them, a row at a time: the values are
// pointers into the events and the row slice is reused, so a row costs no
// allocation (COPY encodes each row before it asks for the next).
type auditRows struct {
	events  []models.AuditEvent
	i       int
	row     []any
	outcome string
}

func (r *auditRows) Next() bool { r.i++; return r.i <= len(r.events) }

func (r *auditRows) Values() ([]any, error) {
	e := &r.events[r.i-1]
	r.outcome = string(e.Outcome)
	r.row = append(r.row[:0], &e.CreatedAt, &e.EventName, &e.UserID, &e.Username, &e.TokenID, &e.ClientName,
		&e.ClientVersion, &e.Tool, &e.Target, &e.TargetType, &r.outcome, &e.DurationMs, &e.CorrelationID, &e.ArgumentNames)
	return r.row, nil
}

func (r *auditRows) Err() error { return nil }

// auditColumnList is auditColumns as COPY names them.
var auditColumnList = strings.Split(strings.ReplaceAll(auditColumns, " ", ""), ",")

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
