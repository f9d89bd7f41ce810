// Package migrations holds glmcp's versioned database schema as SQL files
// embedded in the binary, and applies them with goose.
//
// The schema exists twice, once per supported database: postgres/*.sql and
// sqlite/*.sql. Both directories hold the same versions under the same
// names (YYYYMMDDHHMMSS_name.sql, goose "-- +goose Up/Down" annotations), so
// a version number means the same schema on either database; only the
// dialect-specific parts differ (identity columns, jsonb, tsvector search).
// A new migration is added to both directories.
//
// The package imports database/sql and goose only: it registers no
// database/sql driver. The caller opens the database with its driver
// (pgx for PostgreSQL, modernc.org/sqlite for SQLite) and passes the *sql.DB.
// Nothing here uses goose's package-level state, so concurrent calls are
// safe.
package migrations
