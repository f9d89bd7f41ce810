package repository

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"gitlab.com/glmcp/glmcp/models"
)

// resolveTree returns the commit ref names and its root tree.
func (l *Local) resolveTree(ctx context.Context, ref string) (*object.Commit, *object.Tree, error) {
	c, err := l.resolve(ctx, ref)
	if err != nil {
		return nil, nil, err
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, nil, fmt.Errorf("tree of %s: %w", c.Hash, err)
	}
	return c, tree, nil
}

// binarySniff is how many leading bytes git inspects for a NUL byte to call
// a file binary (xdiff's FIRST_FEW_BYTES).
const binarySniff = 8000

// Blob reads the file at path in ref. Text files return the requested
// lines, cut at MaxBytes; binary files return whole, up to MaxBytes. The
// file is streamed: lines before the range are skipped, never held, so a
// large file costs only what is returned.
func (l *Local) Blob(ctx context.Context, ref, path string, opt BlobOptions) (*Blob, error) {
	clean, err := CleanPath(path)
	if err != nil {
		return nil, err
	}
	if opt.FromLine < 0 || opt.Lines < 0 || opt.MaxBytes < 0 {
		return nil, fmt.Errorf("line range and byte bound must not be negative: %w", models.ErrInvalidInput)
	}
	if opt.FromLine == 0 {
		opt.FromLine = 1
	}
	if opt.MaxBytes == 0 {
		opt.MaxBytes = DefaultMaxBytes
	}
	c, tree, err := l.resolveTree(ctx, ref)
	if err != nil {
		return nil, err
	}
	entry, err := tree.FindEntry(clean)
	if err != nil {
		return nil, fmt.Errorf("file %q in %q: %w", clean, ref, models.ErrNotFound)
	}
	switch entry.Mode {
	case filemode.Dir:
		return nil, fmt.Errorf("%q in %q is a directory, not a file: %w", clean, ref, models.ErrInvalidInput)
	case filemode.Submodule:
		return nil, fmt.Errorf("%q in %q is a submodule, not a file: %w", clean, ref, models.ErrInvalidInput)
	}
	blob, err := l.repo.BlobObject(entry.Hash)
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", entry.Hash, err)
	}
	out := &Blob{
		Path: clean, Ref: ref, CommitID: c.Hash.String(), BlobID: entry.Hash.String(),
		Mode: modeString(entry.Mode), Size: blob.Size,
	}
	rd, err := blob.Reader()
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", entry.Hash, err)
	}
	defer rd.Close()
	br := bufio.NewReaderSize(rd, 64<<10)
	head, err := br.Peek(binarySniff)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("read blob %s: %w", entry.Hash, err)
	}
	if bytes.IndexByte(head, 0) >= 0 {
		out.Binary = true
		if blob.Size > opt.MaxBytes {
			return nil, fmt.Errorf("%q is a binary file of %d bytes, above the %d-byte limit: %w", clean, blob.Size, opt.MaxBytes, models.ErrInvalidInput)
		}
		if out.Content, err = io.ReadAll(io.LimitReader(br, opt.MaxBytes)); err != nil {
			return nil, fmt.Errorf("read blob %s: %w", entry.Hash, err)
		}
		out.EOF = true
		return out, nil
	}
	if err := readLines(br, opt, out); err != nil {
		return nil, fmt.Errorf("read blob %s: %w", entry.Hash, err)
	}
	return out, nil
}

// readLines fills out with opt's line range from r.
func readLines(r *bufio.Reader, opt BlobOptions, out *Blob) error {
	var buf bytes.Buffer
	line, kept := 0, 0
	var consumed int64
	out.FromLine = opt.FromLine
	for {
		if opt.Lines > 0 && kept == opt.Lines {
			// Is there anything after the range?
			if _, err := r.Peek(1); errors.Is(err, io.EOF) {
				out.EOF, out.TotalLines = true, line
			}
			break
		}
		chunk, err := r.ReadSlice('\n')
		consumed += int64(len(chunk))
		if len(chunk) == 0 && errors.Is(err, io.EOF) {
			out.EOF, out.TotalLines = true, line
			break
		}
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
		complete := err == nil || errors.Is(err, io.EOF)
		inRange := line+1 >= opt.FromLine
		if inRange {
			if int64(buf.Len()+len(chunk)) > opt.MaxBytes {
				room := int(opt.MaxBytes) - buf.Len()
				if kept == 0 && room > 0 {
					buf.Write(cutUTF8(chunk, room))
					kept = 1
				}
				out.Truncated = true
				if complete {
					line++ // read whole, not kept
				}
				break
			}
			buf.Write(chunk)
		}
		if complete {
			line++
			if inRange {
				kept++
			}
		}
		if errors.Is(err, io.EOF) {
			out.EOF, out.TotalLines = true, line
			break
		}
	}
	out.Content = buf.Bytes()
	out.ToLine = opt.FromLine + kept - 1
	if !out.EOF && opt.ScanBytes > 0 {
		return countLines(r, opt.ScanBytes-consumed, line, out)
	}
	return nil
}

// countLines reads on (at most budget bytes) counting lines; lines is the
// count so far, including a line the range was cut in.
func countLines(r *bufio.Reader, budget int64, lines int, out *Blob) error {
	for budget > 0 {
		chunk, err := r.ReadSlice('\n')
		budget -= int64(len(chunk))
		if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
			lines++
		}
		if errors.Is(err, io.EOF) {
			if len(chunk) > 0 && chunk[len(chunk)-1] != '\n' {
				lines++
			}
			out.EOF = true
			break
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
	out.TotalLines = lines
	return nil
}

// cutUTF8 returns at most n bytes of b, not splitting a UTF-8 sequence.
func cutUTF8(b []byte, n int) []byte {
	if n >= len(b) {
		return b
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return b[:n]
}

func modeString(m filemode.FileMode) string {
	if m == filemode.Dir {
		return "040000"
	}
	return fmt.Sprintf("%06o", uint32(m))
}

func entryType(m filemode.FileMode) string {
	switch m {
	case filemode.Dir:
		return "tree"
	case filemode.Submodule:
		return "commit"
	}
	return "blob"
}

// maxTreePage bounds a Tree page.
const maxTreePage = 10000

// Tree lists the tree at path in ref in git's order (a recursive listing
// is `git ls-tree -r -t` order). Pages resume after opt.After, skipping
// whole subtrees that lie before it without reading them.
func (l *Local) Tree(ctx context.Context, ref, path string, opt TreeOptions) (*TreePage, error) {
	dir, err := cleanDir(path)
	if err != nil {
		return nil, err
	}
	if opt.Limit <= 0 {
		opt.Limit = 100
	}
	opt.Limit = min(opt.Limit, maxTreePage)
	c, tree, err := l.resolveTree(ctx, ref)
	if err != nil {
		return nil, err
	}
	if dir != "" {
		entry, err := tree.FindEntry(dir)
		if err != nil {
			return nil, fmt.Errorf("path %q in %q: %w", dir, ref, models.ErrNotFound)
		}
		if entry.Mode != filemode.Dir {
			return nil, fmt.Errorf("path %q in %q is a file, not a directory: %w", dir, ref, models.ErrInvalidInput)
		}
		if tree, err = l.repo.TreeObject(entry.Hash); err != nil {
			return nil, fmt.Errorf("tree %s: %w", entry.Hash, err)
		}
	}
	page := &TreePage{CommitID: c.Hash.String()}
	w := treeWalk{l: l, after: opt.After, limit: opt.Limit, recursive: opt.Recursive, page: page}
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	if err := w.walk(ctx, tree, prefix); err != nil && !errors.Is(err, errPageFull) {
		return nil, err
	}
	return page, nil
}

var errPageFull = errors.New("page full")

type treeWalk struct {
	l         *Local
	after     string
	limit     int
	recursive bool
	page      *TreePage
}

// sortKey is an entry's position in git's order: trees compare as if their
// name ended in "/".
func sortKey(path string, m filemode.FileMode) string {
	if m == filemode.Dir {
		return path + "/"
	}
	return path
}

func (w *treeWalk) walk(ctx context.Context, tree *object.Tree, prefix string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, e := range tree.Entries {
		p := prefix + e.Name
		key := sortKey(p, e.Mode)
		if w.after != "" && key <= w.after {
			if e.Mode != filemode.Dir || !w.recursive || !strings.HasPrefix(w.after, key) {
				continue // before the page, subtree included
			}
		} else {
			if len(w.page.Entries) == w.limit {
				last := w.page.Entries[len(w.page.Entries)-1]
				w.page.Next = sortKey(last.Path, modeOf(last.Mode))
				return errPageFull
			}
			w.page.Entries = append(w.page.Entries, TreeEntry{
				ID: e.Hash.String(), Name: e.Name, Path: p, Type: entryType(e.Mode), Mode: modeString(e.Mode),
			})
		}
		if e.Mode == filemode.Dir && w.recursive {
			sub, err := w.l.repo.TreeObject(e.Hash)
			if err != nil {
				return fmt.Errorf("tree %s: %w", e.Hash, err)
			}
			if err := w.walk(ctx, sub, p+"/"); err != nil {
				return err
			}
		}
	}
	return nil
}

func modeOf(s string) filemode.FileMode {
	if s == "040000" {
		return filemode.Dir
	}
	return filemode.Regular
}

// hashOf parses a full object id.
func hashOf(s string) (plumbing.Hash, error) {
	if !IsFullHash(s) {
		return plumbing.ZeroHash, fmt.Errorf("%q is not a full commit id: %w", s, models.ErrInvalidInput)
	}
	return plumbing.NewHash(strings.ToLower(s)), nil
}
