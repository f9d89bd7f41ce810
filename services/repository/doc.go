// Package repository keeps one bare git repository per project and reads and
// writes them through a narrow interface, [Repository].
//
// Repositories live under one root directory in GitLab's hashed-storage
// layout, @hashed/<h[0:2]>/<h[2:4]>/<h>.git with h the hex SHA-256 of the
// decimal project id, so the git command line (and GitLab's own tools) can
// read them. The local implementation is pure Go (go-git); each method
// corresponds to one Gitaly RPC (doc/architecture.md), so a Gitaly-backed
// implementation can replace it without touching a caller.
//
// Nothing is cached across calls: every [Storage.Open] reads refs and pack
// indexes from disk, so a push made with plain git is seen on the next
// request. Ref updates take git's own lock file (refs/heads/x.lock) and
// compare the old value before renaming the new one in place, so glmcp and
// a concurrent git push exclude each other and a reader never sees a
// half-written ref.
//
// Errors wrap the models sentinels: a missing ref, path or object is
// models.ErrNotFound; a bad path, ref name or action is
// models.ErrInvalidInput; a ref that moved under a write, a file that
// already exists or a merge conflict is models.ErrConflict.
package repository
