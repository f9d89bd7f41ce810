package repository

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository/gitcmd"
)

// ListFiles returns the path of every file (blob) of the tree rev names,
// in git's tree order: `git ls-tree -r` (ListFiles).
func (l *Local) ListFiles(ctx context.Context, rev string) ([]string, error) {
	if err := checkRev(rev); err != nil {
		return nil, err
	}
	p, err := l.git.Start(ctx, gitcmd.Cmd{Dir: l.dir, Name: "ls-tree",
		Flags: []string{"-r", "-z", "--full-tree", "--format=%(objecttype) %(path)"}, Args: []string{rev + "^{commit}"}})
	if err != nil {
		return nil, err
	}
	var out []string
	perr := eachNUL(p.Stdout(), func(rec []byte) {
		if kind, path, ok := bytes.Cut(rec, []byte(" ")); ok && string(kind) == "blob" {
			out = append(out, string(path))
		}
	})
	if err := p.Wait(); err != nil {
		return nil, revisionError(err, rev)
	}
	return out, perr
}

// GrepFiles returns the paths of the text files of the tree rev names whose
// content contains term, ignoring case, in tree order: `git grep -l -F -i`
// (SearchFilesByContent). Binary files (a NUL in their first 8,000 bytes)
// are not searched.
func (l *Local) GrepFiles(ctx context.Context, rev, term string) ([]string, error) {
	if err := checkRev(rev); err != nil {
		return nil, err
	}
	if term == "" {
		return nil, fmt.Errorf("search term is empty: %w", models.ErrInvalidInput)
	}
	commit := rev + "^{commit}"
	// git grep names a tree's files "<tree-ish>:<path>".
	prefix := []byte(commit + ":")
	p, err := l.git.Start(ctx, gitcmd.Cmd{Dir: l.dir, Name: "grep",
		Flags: []string{"-l", "-z", "-I", "--fixed-strings", "--ignore-case", "--no-color", "--full-name", "--threads=2", "-e", term},
		// git grep of 2.39 takes no --end-of-options; the revision passed
		// checkRev (no leading "-") and the pattern follows -e.
		Args: []string{commit}, Paths: []string{}, NoEndOfOptions: true})
	if err != nil {
		return nil, err
	}
	var out []string
	perr := eachNUL(p.Stdout(), func(rec []byte) {
		out = append(out, string(bytes.TrimPrefix(rec, prefix)))
	})
	err = p.Wait()
	if gitcmd.ExitCode(err) == 1 && gitcmd.Stderr(err) == "" { // no match
		return nil, nil
	}
	if err != nil {
		return nil, revisionError(err, rev)
	}
	return out, perr
}

// IsAncestor reports whether the commit ancestor names is reachable from
// the commit descendant names: `git merge-base --is-ancestor`
// (CommitIsAncestor).
func (l *Local) IsAncestor(ctx context.Context, ancestor, descendant string) (bool, error) {
	for _, r := range []string{ancestor, descendant} {
		if err := checkRev(r); err != nil {
			return false, err
		}
	}
	err := l.git.Run(ctx, gitcmd.Cmd{Dir: l.dir, Name: "merge-base", Flags: []string{"--is-ancestor"},
		Args: []string{ancestor + "^{commit}", descendant + "^{commit}"}})
	switch gitcmd.ExitCode(err) {
	case 0:
		return true, nil
	case 1:
		return false, nil
	}
	return false, revisionError(err, ancestor+" or "+descendant)
}

// checkRev applies glmcp's revision rules to rev before git sees it.
func checkRev(rev string) error {
	if err := validateRev(rev); err != nil {
		return err
	}
	if skippedRevSyntax(rev) {
		return fmt.Errorf("ref %q: %w", rev, models.ErrNotFound)
	}
	return nil
}

// eachNUL calls fn with every NUL-ended record of r (the slice is reused).
func eachNUL(r io.Reader, fn func([]byte)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		rec, err := br.ReadSlice(0)
		if err == bufio.ErrBufferFull { // a record longer than the buffer
			long := append([]byte(nil), rec...)
			for err == bufio.ErrBufferFull {
				rec, err = br.ReadSlice(0)
				long = append(long, rec...)
			}
			rec = long
		}
		if len(rec) > 0 && rec[len(rec)-1] == 0 {
			fn(rec[:len(rec)-1])
		} else if len(rec) > 0 {
			fn(rec)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read git output: %w", err)
		}
	}
}
