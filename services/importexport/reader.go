package importexport

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository/gitcmd"
)

// Limits bound what reading an archive may unpack. The zero value takes
// the defaults.
type Limits struct {
	// MaxSize bounds the unpacked size of all entries together (0:
	// DefaultMaxSize).
	MaxSize int64
	// MaxRatio bounds the unpacked size over the archive's size once the
	// unpacked size passes RatioFloor (0: DefaultMaxRatio): JSON packs
	// tenfold, a bundle not at all; a decompression bomb a thousandfold.
	MaxRatio int64
	// RatioFloor is the unpacked size below which the ratio is not
	// checked (0: DefaultRatioFloor).
	RatioFloor int64
	// MaxEntries bounds the number of entries (0: DefaultMaxEntries).
	MaxEntries int
	// MaxLine bounds one line of a relation file (0: DefaultMaxLine).
	MaxLine int
}

// The defaults of Limits.
const (
	DefaultMaxSize    = 20 << 30
	DefaultMaxRatio   = 100
	DefaultRatioFloor = 64 << 20
	DefaultMaxEntries = 100_000
	DefaultMaxLine    = 256 << 20
)

func (l Limits) withDefaults() Limits {
	if l.MaxSize <= 0 {
		l.MaxSize = DefaultMaxSize
	}
	if l.MaxRatio <= 0 {
		l.MaxRatio = DefaultMaxRatio
	}
	if l.RatioFloor <= 0 {
		l.RatioFloor = DefaultRatioFloor
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = DefaultMaxEntries
	}
	if l.MaxLine <= 0 {
		l.MaxLine = DefaultMaxLine
	}
	return l
}

// Error is an archive refused: the entry (a path inside the archive, ""
// for the archive as a whole) and the line of it (0 when no line) at
// fault, and why. It is models.ErrInvalidInput.
type Error struct {
	Entry string
	Line  int
	Msg   string
}

func (e *Error) Error() string {
	switch {
	case e.Entry == "":
		return "archive: " + e.Msg
	case e.Line > 0:
		return fmt.Sprintf("archive entry %s line %d: %s", e.Entry, e.Line, e.Msg)
	default:
		return fmt.Sprintf("archive entry %s: %s", e.Entry, e.Msg)
	}
}

// Unwrap makes every refusal models.ErrInvalidInput.
func (e *Error) Unwrap() error { return models.ErrInvalidInput }

func refuse(entry string, line int, format string, args ...any) *Error {
	return &Error{Entry: entry, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// Archive is a project export read and checked whole: its relations
// parsed, its bundle unpacked into a git repository of its own. Close
// removes what reading it unpacked.
type Archive struct {
	dir  string
	lock *os.File // held while dir is in use (see newWorkDir)

	Version string
	Project exProject

	Members      []line[exMember]
	Contributors []line[exContributor]
	Labels       []line[exLabel]
	Milestones   []line[exMilestone]
	// The large relations are streamed (stream.go): checked while the
	// archive is read, parsed again one record at a time to import.
	Issues        *relation[exIssue]
	MergeRequests *relation[exMergeRequest]
	Pipelines     *relation[exPipeline]
	Releases      []line[exRelease]

	// Repository is the git directory holding the bundle's branches and
	// tags (HEAD naming the bundle's HEAD branch); "" when the archive
	// has no project.bundle (an empty repository).
	Repository string
	// WikiPages are the pages of the wiki bundle.
	WikiPages []models.WikiPage
	// Skipped counts the records of relations glmcp does not model, by
	// relation (uploads and LFS objects count as files).
	Skipped map[string]int
	// Failures are the records (or parts of records) the checks left
	// out, in the order of the relations and their lines.
	Failures []Failure

	// What the checks learnt for the import: the repairs of the streamed
	// records, the project milestones only issues and merge requests
	// name, and the names of the notes' authors.
	ck               *checker
	nestedMilestones []exMilestone
	noteAuthors      map[int64]string
}

// line is a record and the line of its relation file it was read from.
type line[T any] struct {
	N   int
	Rec T
}

// Close removes the unpacked archive.
func (a *Archive) Close() error {
	if a == nil || a.dir == "" {
		return nil
	}
	err := os.RemoveAll(a.dir)
	if err == nil {
		// The lock goes last: while the directory is there, it is held.
		err = os.Remove(a.dir + workLock)
	}
	a.lock.Close()
	a.dir = ""
	return err
}

// Read unpacks the archive at file into a temporary directory under tmp
// ("" the system's), checks it whole and parses it. Every refusal is an
// *Error naming the entry and the line; nothing of a refused archive is
// left behind. git verifies and unpacks the bundles.
func Read(ctx context.Context, git *gitcmd.Runner, file, tmp string, lim Limits) (*Archive, error) {
	lim = lim.withDefaults()
	SweepArchives(tmp)
	dir, lock, err := newWorkDir(tmp)
	if err != nil {
		return nil, fmt.Errorf("read the archive: %w", err)
	}
	a := &Archive{dir: dir, lock: lock, Skipped: map[string]int{}}
	if err := a.read(ctx, git, file, lim); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

func (a *Archive) read(ctx context.Context, git *gitcmd.Runner, file string, lim Limits) error {
	files, err := unpack(ctx, file, filepath.Join(a.dir, "x"), lim)
	if err != nil {
		return err
	}
	v, ok := files[versionFile]
	if !ok {
		return refuse(versionFile, 0, "missing: not a GitLab project export (GitLab writes its format version there)")
	}
	b, err := os.ReadFile(v)
	if err != nil {
		return err
	}
	a.Version = strings.TrimSpace(string(b))
	if a.Version != Version {
		return refuse(versionFile, 1, "unknown export format version %q: glmcp reads version %s (GitLab 17 to 19)", truncate(a.Version, 40), Version)
	}
	p, ok := files[projectFile]
	if !ok {
		if _, legacy := files["project.json"]; legacy {
			return refuse("project.json", 0, "the legacy JSON layout is not read: export the project again from GitLab 17 or later (tree/project.json and ndjson relations)")
		}
		return refuse(projectFile, 0, "missing")
	}
	b, err = os.ReadFile(p)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &a.Project); err != nil {
		return refuse(projectFile, jsonLine(b, err), "not a JSON object of project attributes: %v", err)
	}
	if err := a.readRelations(ctx, files, lim); err != nil {
		return err
	}
	if err := a.check(ctx); err != nil {
		return err
	}
	for name := range files {
		switch {
		case name == versionFile, name == gitlabVersion, name == gitlabRevision, name == projectFile,
			name == projectBundle, name == wikiBundle, strings.HasPrefix(name, relationDir):
		case strings.HasPrefix(name, "uploads/"):
			a.Skipped["uploads"]++
		case strings.HasPrefix(name, "lfs-objects/"), name == "lfs-objects.json":
			a.Skipped["lfs_objects"]++
		default:
			a.Skipped["other files"]++
		}
	}
	if f, ok := files[projectBundle]; ok {
		a.Repository = filepath.Join(a.dir, "repository.git")
		if err := unbundle(ctx, git, projectBundle, f, a.Repository); err != nil {
			return err
		}
	}
	if f, ok := files[wikiBundle]; ok {
		wiki := filepath.Join(a.dir, "wiki.git")
		if err := unbundle(ctx, git, wikiBundle, f, wiki); err != nil {
			return err
		}
		pages, skipped, err := readWiki(ctx, git, wiki)
		if err != nil && ctx.Err() != nil {
			return fmt.Errorf("read %s: %w", wikiBundle, ctx.Err())
		}
		if err != nil {
			return refuse(wikiBundle, 0, "%v", err)
		}
		a.WikiPages = pages
		if skipped > 0 {
			a.Skipped["wiki files that are no pages"] += skipped
		}
	}
	return nil
}

// unpack extracts the gzip'd tar at file into dir and returns its regular
// files by their clean name. It refuses what is not gzip or not tar,
// names that are absolute or climb out, links, devices, a name twice, and
// more than the limits allow.
func unpack(ctx context.Context, file, dir string, lim Limits) (map[string]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("open the archive: %w", err)
	}
	defer f.Close()
	compressed := &countingReader{r: f}
	zr, err := gzip.NewReader(bufio.NewReader(compressed))
	if err != nil {
		return nil, refuse("", 0, "not a gzip file (a GitLab export is a .tar.gz): %v", err)
	}
	zr.Multistream(true)
	tr := tar.NewReader(zr)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	files := map[string]string{}
	seen := map[string]bool{}
	var total int64
	entries := 0
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			if entries == 0 {
				return nil, refuse("", 0, "an empty tar archive")
			}
			return files, nil
		}
		if err != nil {
			if entries == 0 {
				return nil, refuse("", 0, "not a tar archive inside the gzip: %v", err)
			}
			return nil, refuse("", 0, "the tar archive is damaged after %d entries: %v", entries, err)
		}
		entries++
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("unpack the archive: %w", err)
		}
		if entries > lim.MaxEntries {
			return nil, refuse(h.Name, 0, "more than %d entries", lim.MaxEntries)
		}
		name, err := cleanName(h.Name)
		if err != nil {
			return nil, refuse(h.Name, 0, "%v", err)
		}
		if name == "" { // "." or "./"
			continue
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(name)), 0o700); err != nil {
				return nil, refuse(h.Name, 0, "a directory where the archive has a file: %v", err)
			}
			continue
		case tar.TypeSymlink, tar.TypeLink:
			return nil, refuse(h.Name, 0, "a link (to %q): an export holds regular files and directories only", truncate(h.Linkname, 200))
		case tar.TypeReg, tar.TypeRegA:
		default:
			return nil, refuse(h.Name, 0, "an entry of type %q: an export holds regular files and directories only", string(h.Typeflag))
		}
		if seen[name] {
			return nil, refuse(h.Name, 0, "the archive has this entry twice")
		}
		seen[name] = true
		target := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
			return nil, refuse(h.Name, 0, "inside what the archive has as a file: %v", err)
		}
		out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return nil, refuse(h.Name, 0, "cannot be unpacked: %v", err)
		}
		buf := make([]byte, 256<<10)
		for {
			n, rerr := tr.Read(buf)
			if n > 0 {
				total += int64(n)
				if total > lim.MaxSize {
					out.Close()
					return nil, refuse(h.Name, 0, "the archive unpacks to more than %d bytes (a decompression bomb?)", lim.MaxSize)
				}
				if total > lim.RatioFloor && total > lim.MaxRatio*max(compressed.n, 1) {
					out.Close()
					return nil, refuse(h.Name, 0, "the archive unpacks to more than %d times its compressed size (a decompression bomb?)", lim.MaxRatio)
				}
				if _, err := out.Write(buf[:n]); err != nil {
					out.Close()
					return nil, err
				}
			}
			if errors.Is(rerr, io.EOF) {
				break
			}
			if err := ctx.Err(); err != nil {
				out.Close()
				return nil, fmt.Errorf("unpack the archive: %w", err)
			}
			if rerr != nil {
				out.Close()
				return nil, refuse(h.Name, 0, "damaged: %v", rerr)
			}
		}
		if err := out.Close(); err != nil {
			return nil, err
		}
		files[name] = target
	}
}

// cleanName is an entry's name relative to the archive's root ("" for the
// root itself), or why it is refused.
func cleanName(name string) (string, error) {
	if strings.ContainsRune(name, 0) || strings.Contains(name, `\`) {
		return "", errors.New("a name with a NUL or a backslash")
	}
	if strings.HasPrefix(name, "/") {
		return "", errors.New("an absolute path")
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return "", errors.New("a path with \"..\", which would climb out of the archive")
		}
	}
	c := path.Clean(name)
	if c == "." {
		return "", nil
	}
	return c, nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// readRelations parses the ndjson files of the relations glmcp models and
// counts the records of the others.
func (a *Archive) readRelations(ctx context.Context, files map[string]string, lim Limits) error {
	var names []string
	for name := range files {
		if strings.HasPrefix(name, relationDir) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		rel, ok := strings.CutSuffix(strings.TrimPrefix(name, relationDir), relationSuffix)
		if !ok || strings.Contains(rel, "/") {
			a.Skipped["other files"]++
			continue
		}
		var err error
		switch rel {
		case relMembers:
			a.Members, err = readNDJSON[exMember](ctx, name, files[name], lim, a.badRecord(rel))
		case relContributions:
			a.Contributors, err = readNDJSON[exContributor](ctx, name, files[name], lim, a.badRecord(rel))
		case relLabels:
			a.Labels, err = readNDJSON[exLabel](ctx, name, files[name], lim, a.badRecord(rel))
		case relMilestones:
			a.Milestones, err = readNDJSON[exMilestone](ctx, name, files[name], lim, a.badRecord(rel))
		case relIssues:
			a.Issues = &relation[exIssue]{entry: name, file: files[name], lim: lim}
		case relMergeRequests:
			a.MergeRequests = &relation[exMergeRequest]{entry: name, file: files[name], lim: lim}
		case relPipelines:
			a.Pipelines = &relation[exPipeline]{entry: name, file: files[name], lim: lim}
		case relReleases:
			a.Releases, err = readNDJSON[exRelease](ctx, name, files[name], lim, a.badRecord(rel))
		default:
			err = scanNDJSON(ctx, name, files[name], lim, nil, func(int, *json.RawMessage) error {
				a.Skipped[rel]++
				return nil
			})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// badRecord records a record of relation rel of the wrong shape as a
// failure: GitLab's importer fails to save it and goes on.
func (a *Archive) badRecord(rel string) func(n int, msg string) error {
	return func(n int, msg string) error {
		a.Failures = append(a.Failures, Failure{Relation: rel, Line: n, Message: msg})
		return nil
	}
}

var errLongLine = errors.New("line too long")

// readLine reads one line (without its newline) of at most max bytes.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) > max+1 {
			return nil, errLongLine
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(buf, []byte("\n")), err
	}
}

func relationNoun(entry string) string {
	return strings.TrimSuffix(strings.TrimPrefix(entry, relationDir), relationSuffix)
}

// jsonLine is the line of b an encoding/json error points at (1 when it
// does not say).
func jsonLine(b []byte, err error) int {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	off := int64(0)
	switch {
	case errors.As(err, &syn):
		off = syn.Offset
	case errors.As(err, &typ):
		off = typ.Offset
	}
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	return 1 + bytes.Count(b[:off], []byte("\n"))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
