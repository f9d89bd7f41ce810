package repository

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"gitlab.com/glmcp/glmcp/services/repository/gitcmd"
)

// Defaults of CompareOptions (a zero MaxCommits or MaxPatchBytes).
const (
	DefaultMaxCommits    = 1000
	DefaultMaxPatchBytes = 200 << 10
)

// emptyTree is git's empty tree, which every repository has without
// storing it: the "parent" of a root commit.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// Compare returns what head adds to base since their merge base (GitLab's
// merge request diff): the commits in head that are not in base, newest
// first (`git log head ^base`), and the diff of the merge base's tree
// against head's tree with renames detected (`git diff base...head`).
func (l *Local) Compare(ctx context.Context, base, head string, opt CompareOptions) (*Comparison, error) {
	if opt.MaxCommits <= 0 {
		opt.MaxCommits = DefaultMaxCommits
	}
	bc, err := l.resolve(ctx, base)
	if err != nil {
		return nil, err
	}
	hc, err := l.resolve(ctx, head)
	if err != nil {
		return nil, err
	}
	out := &Comparison{BaseSHA: bc.Hash.String(), HeadSHA: hc.Hash.String()}
	from := out.BaseSHA
	// The merge base in-process: its walk reads only the commits since
	// the two sides diverged (mergebase.go).
	if mb, err := l.ancestry.mergeBase(bc, hc); err != nil {
		return nil, err
	} else if mb != nil {
		out.MergeBaseSHA = mb.Hash.String()
		from = out.MergeBaseSHA
	}
	// The commits and the diff are two git processes, side by side (one
	// when either is skipped).
	diffed := make(chan error, 1)
	if opt.SkipDiffs {
		diffed <- nil
	} else {
		go func() {
			var err error
			out.Files, err = l.diffTrees(ctx, from, out.HeadSHA, opt.MaxPatchBytes, opt.SkipPatches)
			diffed <- err
		}()
	}
	commits := []Commit{}
	if !opt.SkipCommits {
		commits, err = l.commitsBetween(ctx, out.BaseSHA, out.HeadSHA, opt.MaxCommits)
	}
	if derr := <-diffed; err == nil {
		err = derr
	}
	if err != nil {
		return nil, err
	}
	out.Commits = commits
	return out, nil
}

// commitsBetween lists the commits of head that base lacks, newest first,
// at most max: git log head ^base.
func (l *Local) commitsBetween(ctx context.Context, base, head string, max int) ([]Commit, error) {
	p, err := l.git.Start(ctx, gitcmd.Cmd{Dir: l.dir, Name: "log",
		Flags: []string{"-z", "--date=raw", "--format=" + commitFormat, "--max-count=" + strconv.Itoa(max)},
		Args:  []string{head, "^" + base}, Paths: []string{}})
	if err != nil {
		return nil, err
	}
	commits, perr := readCommits(p.Stdout(), max)
	if err := p.Wait(); err != nil {
		return nil, err
	}
	if perr != nil {
		return nil, perr
	}
	if commits == nil {
		commits = []Commit{}
	}
	return commits, nil
}

// CommitDiff returns the diff rev introduces against its first parent
// (against the empty tree for a root commit).
func (l *Local) CommitDiff(ctx context.Context, rev string, opt CompareOptions) ([]FileDiff, error) {
	// The commit and its first parent from the warm object store: cheaper
	// than a git process for one object.
	c, err := l.resolve(ctx, rev)
	if err != nil {
		return nil, err
	}
	parent := emptyTree
	if len(c.ParentHashes) > 0 {
		parent = c.ParentHashes[0].String()
	}
	return l.diffTrees(ctx, parent, c.Hash.String(), opt.MaxPatchBytes, opt.SkipPatches)
}

// diffTrees diffs the tree of from (a commit, or the empty tree) against
// to's in one `git diff-tree --raw --patch`: the raw records name every
// change (paths, modes, status) and the patches follow in the same order.
func (l *Local) diffTrees(ctx context.Context, from, to string, maxPatch int, namesOnly bool) ([]FileDiff, error) {
	if maxPatch <= 0 {
		maxPatch = DefaultMaxPatchBytes
	}
	flags := []string{"-r", "-z", "--raw", "-M", "--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/"}
	if !namesOnly {
		flags = append(flags, "-p")
	}
	p, err := l.git.Start(ctx, gitcmd.Cmd{Dir: l.dir, Name: "diff-tree", Flags: flags, Args: []string{from, to}, Paths: []string{}})
	if err != nil {
		return nil, err
	}
	files, perr := parseDiff(p.Stdout(), maxPatch, namesOnly)
	if perr != nil {
		_ = p.Close()
		return nil, perr
	}
	if err := p.Wait(); err != nil {
		return nil, err
	}
	return files, nil
}

// parseDiff reads diff-tree's -z raw records, then (unless namesOnly) the
// patch of each, in order.
func parseDiff(r io.Reader, maxPatch int, namesOnly bool) ([]FileDiff, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	out := []FileDiff{}
	for {
		head, err := br.ReadString(0)
		if err == io.EOF && head == "" {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read git diff-tree: %w", err)
		}
		head = head[:len(head)-1]
		if head == "" { // the NUL that ends the raw records
			break
		}
		fd, err := rawRecord(head, br)
		if err != nil {
			return nil, err
		}
		out = append(out, fd)
	}
	if namesOnly {
		_, _ = io.Copy(io.Discard, br)
		return out, nil
	}
	// Each file's patch starts with a "diff --git" line.
	i := -1
	var text bytes.Buffer
	finish := func() {
		if i >= 0 && i < len(out) {
			applyPatch(&out[i], text.Bytes(), maxPatch)
		}
		text.Reset()
	}
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull { // a long line: keep it whole
			long := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(line) > 0 {
			if bytes.HasPrefix(line, []byte("diff --git ")) {
				finish()
				i++
			} else if i >= 0 {
				text.Write(line)
			}
		}
		if err == io.EOF {
			finish()
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read git diff-tree: %w", err)
		}
	}
	if i+1 != len(out) {
		return nil, fmt.Errorf("git diff-tree: %d patches for %d changes", i+1, len(out))
	}
	return out, nil
}

// rawRecord reads one -z raw record: ":<mode> <mode> <id> <id> <status>"
// then the path (two for a rename or copy).
func rawRecord(head string, br *bufio.Reader) (FileDiff, error) {
	f := strings.Fields(strings.TrimPrefix(head, ":"))
	if len(f) != 5 {
		return FileDiff{}, fmt.Errorf("git diff-tree: raw record %q", head)
	}
	readPath := func() (string, error) {
		p, err := br.ReadString(0)
		if err != nil {
			return "", fmt.Errorf("read git diff-tree: %w", err)
		}
		return p[:len(p)-1], nil
	}
	src, err := readPath()
	if err != nil {
		return FileDiff{}, err
	}
	dst := src
	status := f[4][:1]
	if status == "R" || status == "C" {
		if dst, err = readPath(); err != nil {
			return FileDiff{}, err
		}
	}
	fd := FileDiff{OldPath: src, NewPath: dst, AMode: trimMode(f[0]), BMode: trimMode(f[1])}
	switch status {
	case "A":
		fd.NewFile = true
	case "D":
		fd.DeletedFile = true
	case "R":
		fd.RenamedFile = true
	}
	return fd, nil
}

// trimMode is a raw record's mode as GitLab shows it ("100644"; "0" for
// a missing side).
func trimMode(m string) string {
	if strings.Trim(m, "0") == "" {
		return "0"
	}
	return strings.TrimLeft(m, "0")
}

// applyPatch fills fd's patch from its diff-tree section: the text from
// its first hunk, the lines added and deleted, binary files and patches
// over maxPatch collapsed. Submodules keep no patch.
func applyPatch(fd *FileDiff, section []byte, maxPatch int) {
	if fd.AMode == "160000" || fd.BMode == "160000" {
		return
	}
	at := -1
	if bytes.HasPrefix(section, []byte("@@")) {
		at = 0
	} else if k := bytes.Index(section, []byte("\n@@")); k >= 0 {
		at = k + 1
	}
	if at < 0 {
		if bytes.HasPrefix(section, []byte("Binary files ")) || bytes.Contains(section, []byte("\nBinary files ")) {
			fd.Binary = true
		}
		return
	}
	hunks := section[at:]
	for len(hunks) > 0 {
		line := hunks
		if k := bytes.IndexByte(hunks, '\n'); k >= 0 {
			line, hunks = hunks[:k], hunks[k+1:]
		} else {
			hunks = nil
		}
		if len(line) == 0 {
			continue
		}
		switch line[0] {
		case '+':
			fd.Additions++
		case '-':
			fd.Deletions++
		}
	}
	if len(section)-at > maxPatch {
		fd.TooLarge = true
		return
	}
	fd.Diff = string(section[at:])
}
