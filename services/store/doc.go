// Package store is glmcp's persistence layer: gorm over PostgreSQL (pgx) or
// an embedded pure-Go SQLite.
//
// [Store] is the root: Open, Migrate, Ping, Close, WithTx, At, and one
// field per family of methods — [Projects] (projects, their settings and
// repositories), [Groups] (groups, memberships, effective roles),
// [Imports] (a project's records in bulk, import failures, placeholder
// reassignment), [Issues] (issues and work items, labels, milestones, links, get_issue's
// view), [MergeRequests] (diffs, reviews, approvals, discussions), [Notes],
// [CI] (pipelines, jobs, artifacts), [Search], [Users] (personal access and
// OAuth tokens, identity versions), [Tools] (the catalog and tool rules),
// [Vulnerabilities], [Releases] (and wiki pages), [CodeIndex], [Resources]
// (resource changes, completions) and [Settings]: st.Issues.LoadIssue. The
// families share one core (the connection or transaction, the dialect, the
// clock, the prepared statements); the Store WithTx hands fn has every
// family bound to the transaction. A family reaches another through the
// core's Store (s.st.Projects).
//
// It is the only package besides cmd that imports gorm. Services consume
// it through small interfaces they declare themselves, satisfied by a
// family or, where a service needs several, by a struct of them on the
// consumer's side; [Store.DB] exists for the other files of this package,
// not for services.
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
// Layout: store.go (Open, transactions, the families' types), errors.go,
// logger.go, deadlines.go, then one file per noun, holding its reads and
// its writes (users.go, tokens.go, tools.go, projects.go, groups.go,
// members.go, issues.go, work_items.go, merge_requests.go, notes.go, …),
// each noun's methods on its family. Shared helpers of several families
// are core methods: rawquery.go (prepared raw reads), people.go (authors
// and assignees), links.go, iids.go; visibility.go holds the viewer's read
// rules as SQL. get_issue's view: issue_view.go (the statement),
// issue_view_cache.go (the cache in front of it; the embedded store's
// marks), issue_view_marks.go (a request's marks), issue_view_writes.go
// (what the write methods invalidate). The demo world is
// package services/demo, which uses only this package's exported API.
package store
