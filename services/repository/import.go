package repository

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository/gitcmd"
)

// ImportResult is what Import copied.
type ImportResult struct {
	Branches []string // imported branch names, sorted
	Tags     []string // imported tag names, sorted
	// DefaultBranch is the branch HEAD now names: the source's HEAD branch
	// when it was imported, else "main", "master" or the first branch.
	DefaultBranch string
	Objects       int // objects in the repository after the copy
}

// ImportOptions configure an import.
type ImportOptions struct {
	// Progress receives git's progress meter (objects counted, received
	// and resolved, with percentages) as git writes it; nil: none.
	Progress io.Writer
	// Timeout bounds the copy (0: DefaultImportTimeout).
	Timeout time.Duration
}

// DefaultImportTimeout bounds an import whose options give no timeout:
// hours, not the minutes of a request's git command, since a large
// history takes minutes to copy on a slow disk.
const DefaultImportTimeout = 6 * time.Hour

// refCopy is one ref to copy: Src, a full ref name of the source, lands as
// Dst here (refs/heads/… or refs/tags/…) at Oid, the object Src named
// when the source's refs were listed.
type refCopy struct{ Src, Dst, Oid string }

// Import copies every branch and tag of the git repository at dir into l,
// which must have no branches or tags (models.ErrConflict otherwise). It is
// ImportWith without options.
func (l *Local) Import(ctx context.Context, dir string) (*ImportResult, error) {
	return l.ImportWith(ctx, dir, ImportOptions{})
}

// ImportWith copies every branch and tag of the git repository at dir into
// l, which must have no branches or tags (models.ErrConflict otherwise),
// as git clone does (copyRefs): either every ref lands or none does. dir
// is a bare repository, a mirror, or a work tree (its .git a directory or
// a file naming one); in a clone, origin's remote-tracking branches count
// as branches when no local branch has their name. HEAD names the source's
// HEAD branch when it was copied, else "main", "master" or the first
// branch. A directory that is no repository, or has nothing to import, is
// models.ErrInvalidInput. It is RepositoryService.CreateRepositoryFromURL
// in Gitaly.
func (l *Local) ImportWith(ctx context.Context, dir string, opt ImportOptions) (*ImportResult, error) {
	if err := refuseRefs(ctx, l.git, l.dir); err != nil {
		return nil, err
	}
	src, refs, head, err := importSource(ctx, l.git, dir)
	if err != nil {
		return nil, err
	}
	res, err := copyInto(ctx, l.git, l.dir, src, refs, head, opt)
	if err != nil {
		return nil, err
	}
	// The new pack, for the objects this Local reads next.
	l.st.Reindex()
	return res, nil
}

// importSource checks the repository an operator named as dir and returns
// its git directory, the refs to import and its HEAD branch. Nothing to
// import is models.ErrInvalidInput.
func importSource(ctx context.Context, g *gitcmd.Runner, dir string) (string, []refCopy, string, error) {
	src, err := sourceGitDir(ctx, g, dir)
	if err != nil {
		return "", nil, "", err
	}
	refs, head, err := sourceRefs(ctx, g, src, true)
	if err != nil {
		return "", nil, "", err
	}
	if len(refs) == 0 {
		return "", nil, "", fmt.Errorf("%s has no branches or tags to import: %w", dir, models.ErrInvalidInput)
	}
	return src, refs, head, nil
}

// sourceGitDir returns the absolute git directory of the repository at dir:
// dir itself for a bare repository or a mirror, else the one its .git (a
// directory, or a file naming one as in a worktree or a submodule) names.
// git decides: `git rev-parse --absolute-git-dir`. A missing directory or
// one that is no repository is models.ErrInvalidInput.
func sourceGitDir(ctx context.Context, g *gitcmd.Runner, dir string) (string, error) {
	if strings.TrimSpace(dir) == "" {
		return "", fmt.Errorf("no repository directory given: %w", models.ErrInvalidInput)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("%s: %v: %w", dir, err, models.ErrInvalidInput)
	}
	if info, err := os.Stat(abs); err != nil || !info.IsDir() {
		return "", fmt.Errorf("%s is not a directory: %w", dir, models.ErrInvalidInput)
	}
	candidate := abs
	if _, err := os.Lstat(filepath.Join(abs, ".git")); err == nil {
		candidate = filepath.Join(abs, ".git")
	}
	out, err := g.Output(ctx, gitcmd.Cmd{Dir: candidate, Name: "rev-parse", Flags: []string{"--absolute-git-dir"}})
	if gitcmd.ExitCode(err) == 128 {
		return "", fmt.Errorf("%s is not a git repository: %w", dir, models.ErrInvalidInput)
	}
	if err != nil {
		return "", err
	}
	gitDir := strings.TrimSpace(string(out))
	if !filepath.IsAbs(gitDir) {
		return "", fmt.Errorf("%s: git names its git directory %q: %w", dir, gitDir, models.ErrInvalidInput)
	}
	return gitDir, nil
}

// sourceRefs returns the refs of the repository gitDir to copy, under
// their names here, sorted by that name, and the branch its HEAD names
// ("" when detached). Branches and tags are copied as they are; with
// remotes, origin's remote-tracking branches become branches where no
// local branch has the name (an imported clone). Symbolic refs
// (refs/remotes/origin/HEAD) and names glmcp would refuse are skipped.
func sourceRefs(ctx context.Context, g *gitcmd.Runner, gitDir string, remotes bool) ([]refCopy, string, error) {
	patterns := []string{"refs/heads/", "refs/tags/"}
	if remotes {
		patterns = append(patterns, "refs/remotes/origin/")
	}
	out, err := g.Output(ctx, gitcmd.Cmd{Dir: gitDir, Name: "for-each-ref",
		Flags: []string{"--format=%(objectname) %(refname) %(symref)"}, Args: patterns})
	if err != nil {
		return nil, "", fmt.Errorf("list the refs of %s: %w", gitDir, err)
	}
	byDst := map[string]refCopy{}
	var remote []refCopy
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		oid, rest, _ := strings.Cut(sc.Text(), " ")
		name, symref, _ := strings.Cut(rest, " ")
		if symref != "" || !IsFullHash(oid) {
			continue
		}
		switch {
		case strings.HasPrefix(name, "refs/heads/"), strings.HasPrefix(name, "refs/tags/"):
			if validateRefName(strings.TrimPrefix(name, "refs/")) == nil {
				byDst[name] = refCopy{Src: name, Dst: name, Oid: oid}
			}
		case strings.HasPrefix(name, "refs/remotes/origin/"):
			branch := strings.TrimPrefix(name, "refs/remotes/origin/")
			if branch != "HEAD" && ValidateBranchName(branch) == nil {
				remote = append(remote, refCopy{Src: name, Dst: "refs/heads/" + branch, Oid: oid})
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, "", fmt.Errorf("list the refs of %s: %w", gitDir, err)
	}
	for _, r := range remote {
		if _, ok := byDst[r.Dst]; !ok {
			byDst[r.Dst] = r
		}
	}
	refs := make([]refCopy, 0, len(byDst))
	for _, r := range byDst {
		refs = append(refs, r)
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].Dst < refs[j].Dst })
	head, err := headBranch(ctx, g, gitDir)
	if err != nil {
		return nil, "", err
	}
	return refs, head, nil
}

// headBranch returns the branch HEAD of gitDir names, "" when HEAD is
// detached: `git symbolic-ref -q HEAD`.
func headBranch(ctx context.Context, g *gitcmd.Runner, gitDir string) (string, error) {
	out, err := g.Output(ctx, gitcmd.Cmd{Dir: gitDir, Name: "symbolic-ref", Flags: []string{"-q"}, Args: []string{"HEAD"}})
	if gitcmd.ExitCode(err) == 1 { // detached
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read HEAD of %s: %w", gitDir, err)
	}
	branch, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "refs/heads/")
	if !ok {
		return "", nil
	}
	return branch, nil
}

// refuseRefs is models.ErrConflict when the repository dir has a branch or
// a tag: the copies go into empty repositories only.
func refuseRefs(ctx context.Context, g *gitcmd.Runner, dir string) error {
	out, err := g.Output(ctx, gitcmd.Cmd{Dir: dir, Name: "for-each-ref",
		Flags: []string{"--count=1", "--format=%(refname)"}, Args: []string{"refs/heads/", "refs/tags/"}})
	if err != nil {
		return fmt.Errorf("list refs: %w", err)
	}
	if len(bytes.TrimSpace(out)) > 0 {
		return fmt.Errorf("the repository already has branches or tags; import into an empty one: %w", models.ErrConflict)
	}
	return nil
}

// copyInto fetches refs of the repository src (and every object they
// reach) into the repository dir, points its HEAD at the default branch
// (head when it was copied) and says what landed.
func copyInto(ctx context.Context, g *gitcmd.Runner, dir, src string, refs []refCopy, head string, opt ImportOptions) (*ImportResult, error) {
	if err := copyRefs(ctx, g, dir, src, refs, opt); err != nil {
		return nil, err
	}
	res, err := copied(ctx, g, dir)
	if err != nil {
		return nil, err
	}
	res.DefaultBranch = pickDefault(res.Branches, head)
	if res.DefaultBranch != "" {
		if err := g.Run(ctx, gitcmd.Cmd{Dir: dir, Name: "symbolic-ref",
			Args: []string{"HEAD", "refs/heads/" + res.DefaultBranch}}); err != nil {
			return nil, fmt.Errorf("set HEAD: %w", err)
		}
	}
	return res, nil
}

// copyRefs copies refs of the repository src, with every object they
// reach, into the empty repository dir the way git clone does:
// `git pack-objects --revs` in src streams one pack of the refs' closure
// into `git index-pack --stdin --check-self-contained-and-connected` here,
// which refuses a pack that lacks an object it links to. That check is
// clone's: a fetch would walk every object once more afterwards to prove
// the same (a third of an import of git's history). Then one `git
// update-ref --stdin` transaction creates every ref or none. git's
// progress goes to opt.Progress when set.
func copyRefs(ctx context.Context, g *gitcmd.Runner, dir, src string, refs []refCopy, opt ImportOptions) error {
	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = DefaultImportTimeout
	}
	var tips, updates bytes.Buffer
	for _, r := range refs {
		tips.WriteString(r.Oid + "\n")
		updates.WriteString("create " + r.Dst + " " + r.Oid + "\n")
	}
	packFlags := []string{"--revs", "--stdout", "--delta-base-offset", "--quiet"}
	indexFlags := []string{"--stdin", "--check-self-contained-and-connected"}
	if opt.Progress != nil {
		packFlags[len(packFlags)-1] = "--progress"
		indexFlags = append(indexFlags, "-v")
	}
	pack, err := g.Start(ctx, gitcmd.Cmd{Dir: src, Name: "pack-objects", Flags: packFlags,
		Stdin: &tips, Stderr: opt.Progress, Timeout: timeout})
	if err != nil {
		return fmt.Errorf("pack the objects of %s: %w", src, err)
	}
	ierr := g.Run(ctx, gitcmd.Cmd{Dir: dir, Name: "index-pack", Flags: indexFlags,
		Stdin: pack.Stdout(), Stdout: io.Discard, Stderr: opt.Progress, Timeout: timeout})
	var perr error
	if ierr != nil {
		perr = pack.Close() // index-pack stopped reading: kill pack-objects
	} else {
		perr = pack.Wait()
	}
	switch { // pack-objects' own failure (a missing object) is the cause
	case perr != nil:
		return fmt.Errorf("pack the objects of %s: %w", src, perr)
	case ierr != nil:
		return fmt.Errorf("copy the objects of %s: %w", src, ierr)
	}
	if err := g.Run(ctx, gitcmd.Cmd{Dir: dir, Name: "update-ref", Flags: []string{"--stdin"},
		Stdin: &updates, Timeout: timeout}); err != nil {
		return fmt.Errorf("create the refs of %s: %w", src, err)
	}
	return nil
}

// copied reads what the repository dir holds after a copy: its branches,
// tags and number of objects.
func copied(ctx context.Context, g *gitcmd.Runner, dir string) (*ImportResult, error) {
	out, err := g.Output(ctx, gitcmd.Cmd{Dir: dir, Name: "for-each-ref",
		Flags: []string{"--format=%(refname)"}, Args: []string{"refs/heads/", "refs/tags/"}})
	if err != nil {
		return nil, fmt.Errorf("list refs: %w", err)
	}
	res := &ImportResult{}
	for _, name := range strings.Fields(string(out)) {
		if b, ok := strings.CutPrefix(name, "refs/heads/"); ok {
			res.Branches = append(res.Branches, b)
		} else if t, ok := strings.CutPrefix(name, "refs/tags/"); ok {
			res.Tags = append(res.Tags, t)
		}
	}
	sort.Strings(res.Branches)
	sort.Strings(res.Tags)
	out, err = g.Output(ctx, gitcmd.Cmd{Dir: dir, Name: "count-objects", Flags: []string{"-v"}})
	if err != nil {
		return nil, fmt.Errorf("count objects: %w", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		k, v, _ := strings.Cut(line, ": ")
		if k == "count" || k == "in-pack" {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			res.Objects += n
		}
	}
	return res, nil
}

// pickDefault is the default branch of an imported repository.
func pickDefault(branches []string, head string) string {
	for _, want := range []string{head, "main", "master"} {
		for _, b := range branches {
			if want != "" && b == want {
				return b
			}
		}
	}
	if len(branches) > 0 {
		return branches[0]
	}
	return ""
}
