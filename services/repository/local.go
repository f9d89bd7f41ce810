package repository

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository/catfile"
	"gitlab.com/glmcp/glmcp/services/repository/gitcmd"
)

// Local is a repository on the local disk, read and written with go-git.
// A Local reads refs from disk on every call; keep one per request.
type Local struct {
	dir  string
	st   *filesystem.Storage
	repo *git.Repository
	git  *gitcmd.Runner
	cat  *catfile.Pool   // reads what go-git cannot read safely (objectStore)
	ctx  context.Context // the request's, for those reads

	// Pooling by Storage (see Storage).
	pool      *Storage
	projectID int64
	packs     string
	open      bool

	// What Local's operations are built from, each holding only what it
	// needs (set up with the Local, see openLocal and Storage.Open).
	refs     refStore // ref reads and compare-and-swap updates
	objects  objectIO // object reads and writes, tree walks
	ancestry ancestry // merge bases over the commit-graph
}

var _ Repository = (*Local)(nil)

// Close ends the use of l: it goes back to its Storage's idle pool (or
// releases its pack files). Closing twice is harmless; l must not be used
// after Close.
func (l *Local) Close() error {
	if !l.open {
		return nil
	}
	l.open = false
	l.ctx = nil
	if l.pool == nil {
		return l.st.Close()
	}
	return l.pool.release(l)
}

// Dir returns the repository's directory.
func (l *Local) Dir() string { return l.dir }

// DefaultBranch returns the branch HEAD points at.
func (l *Local) DefaultBranch(context.Context) (string, error) {
	b, err := os.ReadFile(filepath.Join(l.dir, "HEAD"))
	if err != nil {
		return "", fmt.Errorf("read HEAD: %w", err)
	}
	s := strings.TrimSpace(string(b))
	if target, ok := strings.CutPrefix(s, "ref: refs/heads/"); ok {
		return target, nil
	}
	return "", fmt.Errorf("HEAD is detached (%q)", s)
}

// resolve returns the commit rev names: a branch, a tag (peeled), a full or
// abbreviated commit id, or git revision syntax (main~2). "" is the
// default branch.
func (l *Local) resolve(ctx context.Context, rev string) (*object.Commit, error) {
	if rev == "" {
		b, err := l.DefaultBranch(ctx)
		if err != nil {
			return nil, err
		}
		rev = b
	}
	if err := validateRev(rev); err != nil {
		return nil, err
	}
	if skippedRevSyntax(rev) {
		return nil, fmt.Errorf("ref %q: %w", rev, models.ErrNotFound)
	}
	if !IsFullHash(rev) && plainRefName(rev) {
		// A name without revision syntax resolves as git does: a ref under
		// git's rules (dwimRef, packed-refs read once), else an abbreviated
		// commit id (git prefers the ref when a name is both).
		h, ok, err := l.refs.dwimRef(rev)
		if err != nil {
			return nil, fmt.Errorf("ref %q: %w", rev, err)
		}
		if ok {
			c, err := l.objects.peel(h)
			if err != nil {
				return nil, fmt.Errorf("ref %q: %w", rev, err)
			}
			return c, nil
		}
		// An abbreviated id names the one object of that prefix that is
		// a commit or peels to one; two such is git's "short object ID
		// is ambiguous", not a pick.
		var found *object.Commit
		for _, h := range abbreviatedIDs(ctx, l.cat, l.dir, l.repo.Storer, rev) {
			if c, err := l.objects.peel(h); err == nil {
				if found != nil {
					return nil, fmt.Errorf("short object id %q is ambiguous: %w", rev, models.ErrNotFound)
				}
				found = c
			}
		}
		if found == nil {
			return nil, fmt.Errorf("ref %q: %w", rev, models.ErrNotFound)
		}
		return found, nil
	}
	var h *plumbing.Hash
	var err error
	if IsFullHash(rev) {
		hh := plumbing.NewHash(rev)
		h = &hh
	} else {
		h, err = l.repo.ResolveRevision(plumbing.Revision(rev))
	}
	if err != nil {
		return nil, fmt.Errorf("ref %q: %w", rev, models.ErrNotFound)
	}
	c, err := l.objects.peel(*h)
	if err != nil {
		return nil, fmt.Errorf("ref %q: %w", rev, err)
	}
	return c, nil
}

// Commit returns the commit rev names.
func (l *Local) Commit(ctx context.Context, rev string) (*Commit, error) {
	c, err := l.resolve(ctx, rev)
	if err != nil {
		return nil, err
	}
	out := toCommit(c)
	return &out, nil
}

// RefHash returns the object id ref name points at, without reading the
// object: what a head check needs (the index's "did the branch move?").
func (l *Local) RefHash(_ context.Context, name string) (string, error) {
	if err := validateRev(name); err != nil {
		return "", err
	}
	if !strings.HasPrefix(name, "refs/") {
		return "", fmt.Errorf("ref %q is not a full ref name: %w", name, models.ErrInvalidInput)
	}
	ref, err := l.repo.Reference(plumbing.ReferenceName(name), true)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return "", fmt.Errorf("ref %q: %w", name, models.ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("ref %q: %w", name, err)
	}
	return ref.Hash().String(), nil
}

func toCommit(c *object.Commit) Commit {
	parents := make([]string, len(c.ParentHashes))
	for i, p := range c.ParentHashes {
		parents[i] = p.String()
	}
	title, _, _ := strings.Cut(strings.TrimLeft(c.Message, "\n"), "\n")
	return Commit{
		ID:        c.Hash.String(),
		ParentIDs: parents,
		TreeID:    c.TreeHash.String(),
		Title:     strings.TrimSpace(title),
		Message:   c.Message,
		Author:    Signature{Name: c.Author.Name, Email: c.Author.Email, When: c.Author.When},
		Committer: Signature{Name: c.Committer.Name, Email: c.Committer.Email, When: c.Committer.When},
	}
}

// Branches lists branches sorted by name.
func (l *Local) Branches(context.Context) ([]Branch, error) {
	iter, err := l.repo.Branches()
	if err != nil {
		return nil, fmt.Errorf("list branches: %w", err)
	}
	var out []Branch
	err = iter.ForEach(func(ref *plumbing.Reference) error {
		c, err := l.objects.peel(ref.Hash())
		if err != nil {
			return fmt.Errorf("branch %s: %w", ref.Name().Short(), err)
		}
		out = append(out, Branch{Name: ref.Name().Short(), Commit: toCommit(c)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Tags lists tags sorted by name.
func (l *Local) Tags(context.Context) ([]Tag, error) {
	iter, err := l.repo.Tags()
	if err != nil {
		return nil, fmt.Errorf("list tags: %w", err)
	}
	var out []Tag
	err = iter.ForEach(func(ref *plumbing.Reference) error {
		t := Tag{Name: ref.Name().Short(), TargetID: ref.Hash().String()}
		if to, err := l.repo.TagObject(ref.Hash()); err == nil {
			t.Message = to.Message
			t.Tagger = &Signature{Name: to.Tagger.Name, Email: to.Tagger.Email, When: to.Tagger.When}
		}
		c, err := l.objects.peel(ref.Hash())
		if err != nil {
			return nil // a tag of a tree or blob: not listed, as GitLab
		}
		t.Commit = toCommit(c)
		out = append(out, t)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// CreateBranch creates branch name at the commit start names (default
// branch when empty). An existing branch is models.ErrConflict.
func (l *Local) CreateBranch(ctx context.Context, name, start string) (*Branch, error) {
	if err := ValidateBranchName(name); err != nil {
		return nil, err
	}
	c, err := l.resolve(ctx, start)
	if err != nil {
		return nil, err
	}
	if err := l.refs.updateRef(plumbing.NewBranchReferenceName(name), plumbing.ZeroHash, c.Hash); err != nil {
		return nil, fmt.Errorf("create branch: %w", err)
	}
	return &Branch{Name: name, Commit: toCommit(c)}, nil
}

// DeleteBranch deletes branch name, if it still points at expectedSHA
// when one is given.
func (l *Local) DeleteBranch(_ context.Context, name, expectedSHA string) error {
	if err := ValidateBranchName(name); err != nil {
		return err
	}
	ref := plumbing.NewBranchReferenceName(name)
	cur, err := l.refs.readRef(ref)
	if err != nil {
		return err
	}
	if cur.IsZero() {
		return fmt.Errorf("branch %q: %w", name, models.ErrNotFound)
	}
	if expectedSHA != "" {
		if !IsFullHash(expectedSHA) {
			return fmt.Errorf("expected sha %q is not a full commit id: %w", expectedSHA, models.ErrInvalidInput)
		}
		cur = plumbing.NewHash(expectedSHA)
	}
	if err := l.refs.updateRef(ref, cur, plumbing.ZeroHash); err != nil {
		return fmt.Errorf("delete branch: %w", err)
	}
	return nil
}

// CreateTag creates tag req.Name at the commit req.Target names (the
// default branch when empty): an annotated tag when req.Message is set,
// else a lightweight one. An existing tag is models.ErrConflict.
func (l *Local) CreateTag(ctx context.Context, req TagRequest) (*Tag, error) {
	if err := validateRefName(req.Name); err != nil {
		return nil, fmt.Errorf("tag name %q: %s: %w", req.Name, err, models.ErrInvalidInput)
	}
	if req.Name == "HEAD" || strings.HasPrefix(req.Name, "refs/") || IsFullHash(req.Name) {
		return nil, fmt.Errorf("tag name %q is reserved: %w", req.Name, models.ErrInvalidInput)
	}
	c, err := l.resolve(ctx, req.Target)
	if err != nil {
		return nil, err
	}
	out := &Tag{Name: req.Name, TargetID: c.Hash.String(), Commit: toCommit(c)}
	target := c.Hash
	if strings.TrimSpace(req.Message) != "" {
		if strings.TrimSpace(req.Tagger.Name) == "" || strings.TrimSpace(req.Tagger.Email) == "" {
			return nil, fmt.Errorf("an annotated tag needs a tagger name and e-mail: %w", models.ErrInvalidInput)
		}
		tagger := committerOf(req.Tagger, req.Tagger)
		to := &object.Tag{Name: req.Name, Tagger: tagger, Message: ensureNewline(req.Message),
			TargetType: plumbing.CommitObject, Target: c.Hash}
		obj := l.st.NewEncodedObject()
		if err := to.Encode(obj); err != nil {
			return nil, fmt.Errorf("encode tag: %w", err)
		}
		if target, err = l.st.SetEncodedObject(obj); err != nil {
			return nil, fmt.Errorf("write tag: %w", err)
		}
		out.TargetID, out.Message = target.String(), to.Message
		out.Tagger = &Signature{Name: tagger.Name, Email: tagger.Email, When: tagger.When}
	}
	if err := l.refs.updateRef(plumbing.NewTagReferenceName(req.Name), plumbing.ZeroHash, target); err != nil {
		return nil, fmt.Errorf("create tag: %w", err)
	}
	return out, nil
}
