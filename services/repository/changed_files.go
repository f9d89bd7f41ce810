package repository

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// ChangedFilesOptions bound a ChangedFiles walk.
type ChangedFilesOptions struct {
	// MaxBytes is as FilesOptions.MaxBytes.
	MaxBytes int64
	// MaxChanges, when above 0, is the most changed paths walked: with
	// more, ChangedFiles returns ErrTooManyChanges before it reads a blob.
	MaxChanges int
}

// ErrTooManyChanges: a ChangedFiles diff has more paths than its
// MaxChanges.
var ErrTooManyChanges = errors.New("too many changed paths")

// ChangedFiles calls fn with every path whose tree entry differs between
// the trees of commits from and to (any two commits: they need not be
// related). f is the file at the path in to, read as Files reads it; nil
// when to has no file there (deleted, or now a symbolic link, a submodule
// or a directory). A rename is a delete and an add. A commit that is not
// in the repository is models.ErrNotFound. An error from fn stops the walk
// and is returned. It is Local's alone (not part of Repository): a
// read-only helper of the code index's incremental re-index (Gitaly:
// FindChangedPaths + ListBlobs).
func (l *Local) ChangedFiles(ctx context.Context, from, to string, opt ChangedFilesOptions, fn func(path string, f *File) error) error {
	fopt := FilesOptions{MaxBytes: opt.MaxBytes}
	if fopt.MaxBytes <= 0 {
		fopt.MaxBytes = DefaultMaxBytes
	}
	_, fromTree, err := l.resolveTree(ctx, from)
	if err != nil {
		return err
	}
	_, toTree, err := l.resolveTree(ctx, to)
	if err != nil {
		return err
	}
	// No rename detection: it would read and compare blobs.
	changes, err := object.DiffTreeWithOptions(ctx, fromTree, toTree, &object.DiffTreeOptions{})
	if err != nil {
		return fmt.Errorf("diff trees: %w", err)
	}
	if opt.MaxChanges > 0 && len(changes) > opt.MaxChanges {
		return fmt.Errorf("%d changed paths, more than %d: %w", len(changes), opt.MaxChanges, ErrTooManyChanges)
	}
	for _, ch := range changes {
		if err := ctx.Err(); err != nil {
			return err
		}
		if ch.To.Name == "" {
			if err := fn(ch.From.Name, nil); err != nil {
				return err
			}
			continue
		}
		var f *File
		switch ch.To.TreeEntry.Mode {
		case filemode.Regular, filemode.Executable, filemode.Deprecated:
			if f, err = l.objects.readFile(ch.To.TreeEntry, ch.To.Name, fopt); err != nil {
				return err
			}
		}
		if err := fn(ch.To.Name, f); err != nil {
			return err
		}
	}
	return nil
}
