package repository

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository/gitcmd"
)

// maxLogPage bounds a Log page.
const maxLogPage = 1000

// Log lists commits reachable from opt.Ref, newest committer date first
// (git log's default order), one page at a time. It is `git log`: a path
// is followed with git's history simplification and, once housekeeping
// has written the commit-graph, its changed-path Bloom filters; the walk
// stops as soon as the page (and one more commit, to set More) is found.
func (l *Local) Log(ctx context.Context, opt LogOptions) (*LogPage, error) {
	if opt.Offset < 0 || opt.Limit < 0 {
		return nil, fmt.Errorf("offset and limit must not be negative: %w", models.ErrInvalidInput)
	}
	if opt.Limit == 0 {
		opt.Limit = 20
	}
	opt.Limit = min(opt.Limit, maxLogPage)
	if walkable(opt) {
		return l.walkLog(ctx, opt)
	}
	if path, ok, err := pathWalkable(opt); err != nil {
		return nil, err
	} else if ok {
		// git log answers a walk that gave up, and any error of the walk
		// (a missing ref, a commit-graph cut short): git is the reference.
		page, done, err := l.walkPathLog(ctx, opt, path)
		if err == nil && done {
			return page, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	c, err := l.logCmd(ctx, opt)
	if err != nil {
		return nil, err
	}
	c.Flags = append(c.Flags, "-z", "--date=raw", "--format="+commitFormat,
		"--skip="+strconv.Itoa(opt.Offset), "--max-count="+strconv.Itoa(opt.Limit+1))
	if opt.Reverse {
		c.Flags = append(c.Flags, "--reverse")
	}
	p, err := l.git.Start(ctx, c)
	if err != nil {
		return nil, err
	}
	commits, perr := readCommits(p.Stdout(), opt.Limit+1)
	if err := p.Wait(); err != nil {
		return nil, revisionError(err, opt.Ref)
	}
	if perr != nil {
		return nil, perr
	}
	page := &LogPage{Commits: commits}
	if len(commits) > opt.Limit {
		page.More = true
		if opt.Reverse { // the extra commit is the oldest: first
			page.Commits = commits[1:]
		} else {
			page.Commits = commits[:opt.Limit]
		}
	}
	return page, nil
}

// LogTotal is one walk of the history that opt selects: the page Offset
// and Limit choose (Limit 0 = 20), and the number of commits of all the
// pages, counted up to Offset + max(CountLimit, Limit) when CountLimit is
// set. Newest first that bound is git's --max-count, so git stops walking
// there (a search reads the page and a capped count, never the whole
// history that a rare word would have it walk for a total); with Reverse the
// history is read oldest first and Offset counts from the oldest commit
// (git log --reverse, which walks it all before printing), the total
// capped alike. Only the page's commits are decoded; the rest are counted
// as git prints them.
func (l *Local) LogTotal(ctx context.Context, opt LogOptions) ([]Commit, int, error) {
	if opt.Offset < 0 || opt.Limit < 0 || opt.CountLimit < 0 {
		return nil, 0, fmt.Errorf("offset, limit and count limit must not be negative: %w", models.ErrInvalidInput)
	}
	if opt.Limit == 0 {
		opt.Limit = 20
	}
	opt.Limit = min(opt.Limit, maxLogPage)
	c, err := l.logCmd(ctx, opt)
	if err != nil {
		return nil, 0, err
	}
	c.Flags = append(c.Flags, "-z", "--date=raw", "--format="+commitFormat)
	if opt.Reverse {
		c.Flags = append(c.Flags, "--reverse")
	}
	bound := 0
	if opt.CountLimit > 0 {
		bound = opt.Offset + max(opt.CountLimit, opt.Limit)
		if !opt.Reverse {
			c.Flags = append(c.Flags, "--max-count="+strconv.Itoa(bound))
		}
	}
	p, err := l.git.Start(ctx, c)
	if err != nil {
		return nil, 0, err
	}
	page, total, perr := readCommitsAt(p.Stdout(), opt.Offset, opt.Limit)
	if bound > 0 {
		total = min(total, bound)
	}
	if err := p.Wait(); err != nil {
		return nil, 0, revisionError(err, opt.Ref)
	}
	if perr != nil {
		return nil, 0, perr
	}
	return page, total, nil
}

// logCmd is the git log of opt, without format or paging: the revision
// checked as glmcp's revision rules say, the filters as git's options.
func (l *Local) logCmd(ctx context.Context, opt LogOptions) (gitcmd.Cmd, error) {
	rev := opt.Ref
	if rev == "" {
		b, err := l.DefaultBranch(ctx)
		if err != nil {
			return gitcmd.Cmd{}, err
		}
		rev = b
	}
	if err := checkRev(rev); err != nil {
		return gitcmd.Cmd{}, err
	}
	paths := []string{}
	if opt.Path != "" {
		p, err := cleanDir(opt.Path)
		if err != nil {
			return gitcmd.Cmd{}, err
		}
		if p != "" {
			paths = []string{p}
		}
	}
	flags := []string{}
	if opt.FirstParent {
		flags = append(flags, "--first-parent")
	}
	if opt.Author != "" || opt.Grep != "" {
		// Fixed strings, ignoring case, as glmcp's filters always were.
		flags = append(flags, "--fixed-strings", "--regexp-ignore-case")
	}
	if opt.Author != "" {
		flags = append(flags, "--author="+opt.Author)
	}
	if opt.Grep != "" {
		flags = append(flags, "--grep="+opt.Grep)
	}
	if !opt.Since.IsZero() {
		flags = append(flags, "--since="+gitDate(opt.Since))
	}
	if !opt.Until.IsZero() {
		flags = append(flags, "--until="+gitDate(opt.Until))
	}
	// GIT_FLUSH=0: git log writes its output in full buffers rather than
	// flushing it after every commit, as it does into a pipe; glmcp reads
	// it all (or a bounded prefix, git stopping at --max-count), and a
	// write per commit made a wake-up of the reader per commit (100 for a
	// search page and its count, about 1 ms of a 10 ms search).
	return gitcmd.Cmd{Dir: l.dir, Name: "log", Flags: flags, Args: []string{rev + "^{commit}"}, Paths: paths,
		Env: []string{"GIT_FLUSH=0"}}, nil
}

// gitDate is t as git's date parser reads a raw time.
func gitDate(t time.Time) string { return "@" + strconv.FormatInt(t.Unix(), 10) + " +0000" }

// revisionError turns git's refusal of a revision into models.ErrNotFound
// (its stderr says "unknown revision", "bad revision", "bad object");
// other failures stay what they are.
func revisionError(err error, rev string) error {
	var ge *gitcmd.Error
	if errors.As(err, &ge) && ge.ExitCode == 128 {
		s := strings.ToLower(ge.Stderr)
		if strings.Contains(s, "unknown revision") || strings.Contains(s, "bad revision") ||
			strings.Contains(s, "bad object") || strings.Contains(s, "not a valid object name") ||
			strings.Contains(s, "needed a single revision") || strings.Contains(s, "invalid object name") ||
			strings.Contains(s, "unable to resolve revision") {
			return fmt.Errorf("ref %q: %w", rev, models.ErrNotFound)
		}
	}
	return err
}

// commitFormat prints a commit's fields NUL-separated, its message last
// (with -z each commit ends with a NUL; a message has none).
const commitFormat = "%H%x00%P%x00%T%x00%an%x00%ae%x00%ad%x00%cn%x00%ce%x00%cd%x00%B"

// commitFields is how many NUL-ended fields commitFormat prints.
const commitFields = 10

// readCommits reads up to max commits of commitFormat from r.
func readCommits(r io.Reader, max int) ([]Commit, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var out []Commit
	var f [commitFields]string
	for len(out) < max {
		for i := range commitFields {
			s, err := br.ReadString(0)
			if err == io.EOF && i == 0 && s == "" {
				return out, nil
			}
			if err != nil {
				return nil, fmt.Errorf("read git log: %w", err)
			}
			f[i] = s[:len(s)-1]
		}
		c, err := parseCommit(f)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// readCommitsAt reads every commit of commitFormat from r, decodes those
// from the offset-th on (at most limit) and counts them all.
func readCommitsAt(r io.Reader, offset, limit int) ([]Commit, int, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	page := []Commit{}
	var f [commitFields]string
	for n := 0; ; n++ {
		keep := n >= offset && n < offset+limit
		for i := range commitFields {
			if !keep {
				s, err := skipField(br)
				if err == io.EOF && i == 0 && !s {
					return page, n, nil
				}
				if err != nil {
					return nil, 0, fmt.Errorf("read git log: %w", err)
				}
				continue
			}
			s, err := br.ReadString(0)
			if err == io.EOF && i == 0 && s == "" {
				return page, n, nil
			}
			if err != nil {
				return nil, 0, fmt.Errorf("read git log: %w", err)
			}
			f[i] = s[:len(s)-1]
		}
		if keep {
			c, err := parseCommit(f)
			if err != nil {
				return nil, 0, err
			}
			page = append(page, c)
		}
	}
}

// skipField reads past the next NUL of br without keeping what it read;
// it reports whether it read anything.
func skipField(br *bufio.Reader) (bool, error) {
	read := false
	for {
		b, err := br.ReadSlice(0)
		read = read || len(b) > 0
		if err != bufio.ErrBufferFull {
			return read, err
		}
	}
}

func parseCommit(f [commitFields]string) (Commit, error) {
	var c Commit
	c.ID, c.TreeID = f[0], f[2]
	if f[1] != "" {
		c.ParentIDs = strings.Split(f[1], " ")
	} else {
		c.ParentIDs = []string{}
	}
	var err error
	if c.Author, err = signature(f[3], f[4], f[5]); err != nil {
		return c, fmt.Errorf("commit %s: author: %w", c.ID, err)
	}
	if c.Committer, err = signature(f[6], f[7], f[8]); err != nil {
		return c, fmt.Errorf("commit %s: committer: %w", c.ID, err)
	}
	c.Message = f[9]
	title, _, _ := strings.Cut(strings.TrimLeft(c.Message, "\n"), "\n")
	c.Title = strings.TrimSpace(title)
	return c, nil
}

// signature reads a name, an e-mail and a raw date ("1700000000 +0200").
func signature(name, email, date string) (Signature, error) {
	secs, zone, ok := strings.Cut(date, " ")
	if !ok {
		return Signature{}, fmt.Errorf("date %q", date)
	}
	n, err := strconv.ParseInt(secs, 10, 64)
	if err != nil {
		return Signature{}, fmt.Errorf("date %q", date)
	}
	return Signature{Name: name, Email: email, When: time.Unix(n, 0).In(fixedZone(zone))}, nil
}

// fixedZone is git's "+0200" as a zone; go-git names the zones it reads
// the same way (no name, the offset).
func fixedZone(z string) *time.Location {
	if len(z) != 5 || (z[0] != '+' && z[0] != '-') {
		return time.UTC
	}
	h, err1 := strconv.Atoi(z[1:3])
	m, err2 := strconv.Atoi(z[3:5])
	if err1 != nil || err2 != nil {
		return time.UTC
	}
	off := h*3600 + m*60
	if z[0] == '-' {
		off = -off
	}
	return time.FixedZone("", off)
}
