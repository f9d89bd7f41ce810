// Package store is glmcp's persistence layer: gorm over PostgreSQL (pgx) or
// an embedded pure-Go SQLite, behind one type, [Store].
//
// It is the only package besides cmd that imports gorm. Services consume it
// through small interfaces they declare themselves; [Store.DB] exists for
// the other files of this package, not for services.
//
// Errors: every method translates driver errors exactly once, here.
// A missing row is [models.ErrNotFound]; a broken uniqueness rule is
// [models.ErrConflict]; a broken foreign key, CHECK or NOT NULL rule
// (input referring to something that does not exist, or out of range) is
// [models.ErrInvalidInput]. Anything else is wrapped with what was being
// done and passed on.
//
// Times are stored in UTC with microsecond precision on both databases.
//
// Layout: store.go (Open, transactions), errors.go, logger.go, then one
// file per noun (users.go, tokens.go, tools.go, projects.go, issues.go, …).
// Read queries for a noun go in its file. The demo world is package
// services/demo, which uses only this package's exported API.
package store
