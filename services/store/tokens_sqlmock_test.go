package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/DATA-DOG/go-sqlmock"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"

	"gitlab.com/glmcp/glmcp/migrations"
	"gitlab.com/glmcp/glmcp/models"
)

// newMockStore returns a PostgreSQL-flavoured Store over sqlmock, matching
// SQL exactly.
func newMockStore(t *testing.T) (*Store, sqlmock.Sqlmock) {
	t.Helper()
	sqlDB, mock, err := sqlmock.New(sqlmock.QueryMatcherOption(sqlmock.QueryMatcherEqual))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sqlDB.Close() })
	db, err := gorm.Open(postgres.New(postgres.Config{Conn: sqlDB}), &gorm.Config{
		TranslateError:         true,
		SkipDefaultTransaction: true,
		DisableAutomaticPing:   true,
		Logger:                 &gormLogger{log: slog.New(slog.DiscardHandler)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return newStore(&core{db: db, dialect: migrations.DialectPostgres, now: time.Now, log: slog.New(slog.DiscardHandler)}), mock
}

// One query, tokens INNER JOIN users, selected by digest: the hot path of
// every authenticated request.
const findTokenByDigestSQL = `SELECT "personal_access_tokens"."id","personal_access_tokens"."user_id",` +
	`"personal_access_tokens"."name","personal_access_tokens"."token_digest","personal_access_tokens"."scopes",` +
	`"personal_access_tokens"."expires_at","personal_access_tokens"."revoked","personal_access_tokens"."last_used_at",` +
	`"personal_access_tokens"."created_at","personal_access_tokens"."updated_at",` +
	`"User"."id" AS "User__id","User"."username" AS "User__username","User"."name" AS "User__name",` +
	`"User"."email" AS "User__email","User"."state" AS "User__state","User"."admin" AS "User__admin",` +
	`"User"."ee_seat" AS "User__ee_seat","User"."mcp_rate_limit_requests" AS "User__mcp_rate_limit_requests",` +
	`"User"."mcp_rate_limit_period_seconds" AS "User__mcp_rate_limit_period_seconds","User"."mcp_rate_limit_windows" AS "User__mcp_rate_limit_windows","User"."created_at" AS "User__created_at","User"."updated_at" AS "User__updated_at" ` +
	`FROM "personal_access_tokens" INNER JOIN "users" "User" ON "personal_access_tokens"."user_id" = "User"."id" ` +
	`WHERE "personal_access_tokens"."token_digest" = $1 LIMIT $2`

var tokenJoinColumns = []string{
	"id", "user_id", "name", "token_digest", "scopes", "expires_at", "revoked", "last_used_at", "created_at", "updated_at",
	"User__id", "User__username", "User__name", "User__email", "User__state", "User__admin", "User__ee_seat",
	"User__mcp_rate_limit_requests", "User__mcp_rate_limit_period_seconds", "User__mcp_rate_limit_windows", "User__created_at", "User__updated_at",
}

func TestStore_FindTokenByDigest_sqlmock(t *testing.T) {
	created := time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)
	errBoom := errors.New("connection reset by peer")

	t.Run("found: token and user from one joined query", func(t *testing.T) {
		s, mock := newMockStore(t)
		mock.ExpectQuery(findTokenByDigestSQL).WithArgs("digest-1", 1).WillReturnRows(
			sqlmock.NewRows(tokenJoinColumns).AddRow(
				int64(7), int64(3), "laptop", "digest-1", `["mcp","read_api"]`, nil, false, nil, created, created,
				int64(3), "alice", "Alice", "alice@example.com", "active", false, true, 0, 0, "", created, created,
			))

		tok, err := s.Users.FindTokenByDigest(context.Background(), "digest-1")
		if err != nil {
			t.Fatalf("FindTokenByDigest() error = %v", err)
		}
		if tok.ID != 7 || tok.Name != "laptop" || !tok.Scopes.Contains("read_api") || len(tok.Scopes) != 2 {
			t.Errorf("token = %+v, want id 7 laptop [mcp read_api]", tok)
		}
		if tok.User == nil || tok.User.ID != 3 || tok.User.Username != "alice" || !tok.User.EESeat || tok.User.State != models.UserActive {
			t.Errorf("token.User = %+v, want alice (id 3, active, EE seat)", tok.User)
		}
		if err := mock.ExpectationsWereMet(); err != nil {
			t.Error(err)
		}
	})

	t.Run("no row is ErrNotFound", func(t *testing.T) {
		s, mock := newMockStore(t)
		mock.ExpectQuery(findTokenByDigestSQL).WithArgs("unknown", 1).WillReturnRows(sqlmock.NewRows(tokenJoinColumns))

		_, err := s.Users.FindTokenByDigest(context.Background(), "unknown")
		if !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("FindTokenByDigest() error = %v, want models.ErrNotFound", err)
		}
		if errors.Is(err, gorm.ErrRecordNotFound) {
			t.Errorf("error %v still wraps gorm.ErrRecordNotFound: translate once, in the store", err)
		}
		if err := mock.ExpectationsWereMet(); err != nil {
			t.Error(err)
		}
	})

	t.Run("driver error is wrapped, not translated", func(t *testing.T) {
		s, mock := newMockStore(t)
		mock.ExpectQuery(findTokenByDigestSQL).WithArgs("digest-1", 1).WillReturnError(errBoom)

		_, err := s.Users.FindTokenByDigest(context.Background(), "digest-1")
		if !errors.Is(err, errBoom) {
			t.Fatalf("FindTokenByDigest() error = %v, want it to wrap %v", err, errBoom)
		}
		for _, sentinel := range []error{models.ErrNotFound, models.ErrConflict, models.ErrInvalidInput} {
			if errors.Is(err, sentinel) {
				t.Errorf("error %v wraps %v", err, sentinel)
			}
		}
	})
}

func TestStore_TouchTokenLastUsed_sqlmock(t *testing.T) {
	// The 10-minute rule is in the WHERE clause: one statement, no read
	// first, so racing instances write once.
	const touchSQL = `UPDATE "personal_access_tokens" SET "last_used_at"=$1 ` +
		`WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $3)`
	at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	tenMinutesBefore := time.Date(2026, 11, 29, 11, 50, 0, 0, time.UTC)
	errBoom := errors.New("connection reset by peer")

	tests := []struct {
		name     string
		at       time.Time
		result   driver.Result
		err      error
		wantErr  error
		wantArgs []driver.Value
	}{
		{
			name:     "stale or unset last_used_at is updated",
			at:       at,
			result:   sqlmock.NewResult(0, 1),
			wantArgs: []driver.Value{at, int64(42), tenMinutesBefore},
		},
		{
			name:     "recently used: no row matches, not an error",
			at:       at,
			result:   sqlmock.NewResult(0, 0),
			wantArgs: []driver.Value{at, int64(42), tenMinutesBefore},
		},
		{
			name:     "time is stored in UTC",
			at:       at.In(time.FixedZone("CET", 3600)),
			result:   sqlmock.NewResult(0, 1),
			wantArgs: []driver.Value{at, int64(42), tenMinutesBefore},
		},
		{
			name:     "driver error is wrapped",
			at:       at,
			err:      errBoom,
			wantErr:  errBoom,
			wantArgs: []driver.Value{at, int64(42), tenMinutesBefore},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, mock := newMockStore(t)
			exp := mock.ExpectExec(touchSQL).WithArgs(tt.wantArgs...)
			if tt.err != nil {
				exp.WillReturnError(tt.err)
			} else {
				exp.WillReturnResult(tt.result)
			}

			err := s.Users.TouchTokenLastUsed(context.Background(), 42, tt.at)
			if tt.wantErr == nil && err != nil {
				t.Fatalf("TouchTokenLastUsed() error = %v", err)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("TouchTokenLastUsed() error = %v, want %v", err, tt.wantErr)
			}
			if err := mock.ExpectationsWereMet(); err != nil {
				t.Error(err)
			}
		})
	}
}
