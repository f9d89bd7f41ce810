package repository

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// FilesOptions bound a Files walk.
type FilesOptions struct {
	// MaxBytes is the largest file whose content is read (0 =
	// DefaultMaxBytes); a larger file is reported with its size and
	// TooLarge set, without content.
	MaxBytes int64
}

// File is one file of a Files walk: a regular or executable file (not a
// symbolic link, not a submodule). Content is set for a text file of at
// most FilesOptions.MaxBytes; a binary file (a NUL byte in its first 8,000
// bytes, as git decides) or a larger one has none.
type File struct {
	Path     string
	BlobID   string
	Mode     string // "100644" or "100755"
	Size     int64
	Binary   bool
	TooLarge bool
	Content  []byte
}

// Files calls fn with every file of the tree rev names, in git's order
// (`git ls-tree -r`), and returns the commit rev resolved to. Each blob is
// read once, straight from the object database: listing and reading a
// whole tree costs one walk, not one lookup per path. An error from fn
// stops the walk and is returned.
func (l *Local) Files(ctx context.Context, rev string, opt FilesOptions, fn func(*File) error) (string, error) {
	if opt.MaxBytes <= 0 {
		opt.MaxBytes = DefaultMaxBytes
	}
	c, tree, err := l.resolveTree(ctx, rev)
	if err != nil {
		return "", err
	}
	if err := l.objects.walkFiles(ctx, tree, "", opt, fn); err != nil {
		return "", err
	}
	return c.Hash.String(), nil
}

func (ob objectIO) walkFiles(ctx context.Context, tree *object.Tree, prefix string, opt FilesOptions, fn func(*File) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, e := range tree.Entries {
		p := prefix + e.Name
		switch e.Mode {
		case filemode.Dir:
			sub, err := ob.repo.TreeObject(e.Hash)
			if err != nil {
				return fmt.Errorf("tree %s: %w", e.Hash, err)
			}
			if err := ob.walkFiles(ctx, sub, p+"/", opt, fn); err != nil {
				return err
			}
			continue
		case filemode.Regular, filemode.Executable, filemode.Deprecated:
		default:
			continue // symbolic links and submodules are not files
		}
		f, err := ob.readFile(e, p, opt)
		if err != nil {
			return err
		}
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

// readFile reads the blob of tree entry e (at path p) within opt's bound.
func (ob objectIO) readFile(e object.TreeEntry, p string, opt FilesOptions) (*File, error) {
	blob, err := ob.repo.BlobObject(e.Hash)
	if err != nil {
		return nil, fmt.Errorf("blob %s of %q: %w", e.Hash, p, err)
	}
	f := &File{Path: p, BlobID: e.Hash.String(), Mode: modeString(e.Mode), Size: blob.Size}
	rd, err := blob.Reader()
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", e.Hash, err)
	}
	defer rd.Close()
	if blob.Size > opt.MaxBytes {
		// Sniff only: a large file is not read.
		head := make([]byte, binarySniff)
		n, err := io.ReadFull(rd, head)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read blob %s: %w", e.Hash, err)
		}
		f.Binary = bytes.IndexByte(head[:n], 0) >= 0
		f.TooLarge = true
		return f, nil
	}
	content := make([]byte, 0, blob.Size)
	buf := bytes.NewBuffer(content)
	if _, err := io.Copy(buf, io.LimitReader(rd, opt.MaxBytes)); err != nil {
		return nil, fmt.Errorf("read blob %s: %w", e.Hash, err)
	}
	content = buf.Bytes()
	if bytes.IndexByte(content[:min(len(content), binarySniff)], 0) >= 0 {
		f.Binary = true
		return f, nil
	}
	f.Content = content
	return f, nil
}
