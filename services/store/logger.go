package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"gorm.io/gorm"
	gormlogger "gorm.io/gorm/logger"
)

// gormLogger sends gorm's log lines to slog. Statements are logged without
// their parameters (see ParamsFilter): values can be token digests or user
// content. Failed statements and every statement are logged at DEBUG (the
// error travels to the caller, who decides); slow statements at WARN.
type gormLogger struct {
	log  *slog.Logger
	slow time.Duration
}

var (
	_ gormlogger.Interface = (*gormLogger)(nil)
	_ gorm.ParamsFilter    = (*gormLogger)(nil)
)

// LogMode implements gormlogger.Interface; levels are slog's business.
func (l *gormLogger) LogMode(gormlogger.LogLevel) gormlogger.Interface { return l }

// Info implements gormlogger.Interface.
func (l *gormLogger) Info(ctx context.Context, msg string, args ...any) {
	l.log.InfoContext(ctx, fmt.Sprintf(msg, args...))
}

// Warn implements gormlogger.Interface.
func (l *gormLogger) Warn(ctx context.Context, msg string, args ...any) {
	l.log.WarnContext(ctx, fmt.Sprintf(msg, args...))
}

// Error implements gormlogger.Interface.
func (l *gormLogger) Error(ctx context.Context, msg string, args ...any) {
	l.log.ErrorContext(ctx, fmt.Sprintf(msg, args...))
}

// Trace implements gormlogger.Interface.
func (l *gormLogger) Trace(ctx context.Context, begin time.Time, fc func() (string, int64), err error) {
	elapsed := time.Since(begin)
	slow := l.slow > 0 && elapsed > l.slow
	level := slog.LevelDebug
	if slow {
		level = slog.LevelWarn
	}
	if !l.log.Enabled(ctx, level) {
		return
	}
	sql, rows := fc()
	attrs := []slog.Attr{
		slog.String("sql", sql),
		slog.Int64("rows", rows),
		slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
	}
	msg := "query"
	switch {
	case err != nil && !errors.Is(err, gorm.ErrRecordNotFound):
		msg = "query error"
		attrs = append(attrs, slog.String("error", err.Error()))
	case slow:
		msg = "slow query"
	}
	l.log.LogAttrs(ctx, level, msg, attrs...)
}

// ParamsFilter implements gorm.ParamsFilter: statements are logged with
// placeholders, never with values.
func (l *gormLogger) ParamsFilter(_ context.Context, sql string, _ ...any) (string, []any) {
	return sql, nil
}
