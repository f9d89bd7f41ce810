package repository

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/revlist"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"gitlab.com/glmcp/glmcp/models"
)

// ImportResult is what Import copied.
type ImportResult struct {
	Branches []string // imported branch names, sorted
	Tags     []string // imported tag names, sorted
	// DefaultBranch is the branch HEAD now names: the source's HEAD branch
	// when it was imported, else "main", "master" or the first branch.
	DefaultBranch string
	Objects       int // objects copied
}

// packWindow is the delta window of an imported pack (git's default).
const packWindow = 10

// Import copies every branch and tag of the git repository at dir into l,
// which must have no branches or tags (models.ErrConflict otherwise): the
// objects they reach as one pack, then each ref. dir is a bare repository
// or a work tree; in a clone, the remote-tracking branches of origin count
// as branches when no local branch has their name. It is
// RepositoryService.CreateRepositoryFromURL in Gitaly.
//
// A failure leaves no ref behind (the copied pack is unreferenced; git gc
// drops it).
func (l *Local) Import(ctx context.Context, dir string) (*ImportResult, error) {
	src, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		return nil, fmt.Errorf("%s is not a git repository (%v): %w", dir, err, models.ErrInvalidInput)
	}
	refs, head, err := importRefs(src, true)
	if err != nil {
		return nil, err
	}
	if len(refs) == 0 {
		return nil, fmt.Errorf("%s has no branches or tags to import: %w", dir, models.ErrInvalidInput)
	}
	return l.copyRefs(ctx, src, dir, refs, head)
}

// copyRefs copies refs (and every object they reach) of src, whose name
// for messages is label, into l, as one pack and then each ref, and points
// HEAD at the default branch (head when it was copied). l must have no
// branches or tags (models.ErrConflict). A failure leaves no ref behind.
func (l *Local) copyRefs(ctx context.Context, src *git.Repository, label string, refs []*plumbing.Reference, head string) (*ImportResult, error) {
	if existing, err := l.repo.References(); err == nil {
		n := 0
		_ = existing.ForEach(func(r *plumbing.Reference) error {
			if r.Name().IsBranch() || r.Name().IsTag() {
				n++
			}
			return nil
		})
		if n > 0 {
			return nil, fmt.Errorf("the repository already has %d branches or tags; import into an empty one: %w", n, models.ErrConflict)
		}
	}
	wants := make([]plumbing.Hash, 0, len(refs))
	seen := map[plumbing.Hash]bool{}
	for _, r := range refs {
		if !seen[r.Hash()] {
			seen[r.Hash()] = true
			wants = append(wants, r.Hash())
		}
	}
	hashes, err := revlist.Objects(src.Storer, wants, nil)
	if err != nil {
		return nil, fmt.Errorf("read the objects of %s: %w", label, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := l.writePack(src.Storer, hashes); err != nil {
		return nil, err
	}
	res := &ImportResult{Objects: len(hashes)}
	var done []plumbing.ReferenceName
	undo := func() {
		for _, name := range done {
			if h, err := l.readRef(name); err == nil && !h.IsZero() {
				_ = l.updateRef(name, h, plumbing.ZeroHash)
			}
		}
	}
	for _, r := range refs {
		if err := ctx.Err(); err != nil {
			undo()
			return nil, err
		}
		if err := l.updateRef(r.Name(), plumbing.ZeroHash, r.Hash()); err != nil {
			undo()
			return nil, fmt.Errorf("import %s: %w", r.Name(), err)
		}
		done = append(done, r.Name())
		if r.Name().IsBranch() {
			res.Branches = append(res.Branches, r.Name().Short())
		} else {
			res.Tags = append(res.Tags, r.Name().Short())
		}
	}
	sort.Strings(res.Branches)
	sort.Strings(res.Tags)
	res.DefaultBranch = pickDefault(res.Branches, head)
	if res.DefaultBranch != "" {
		if err := l.setHead(res.DefaultBranch); err != nil {
			undo()
			return nil, err
		}
	}
	return res, nil
}

// importRefs returns the refs of src to import, under their names here
// (refs/heads/…, refs/tags/…), and the branch src's HEAD names. With
// remotes, origin's remote-tracking branches count as branches when no
// local branch has their name (an imported clone).
func importRefs(src *git.Repository, remotes bool) ([]*plumbing.Reference, string, error) {
	iter, err := src.References()
	if err != nil {
		return nil, "", fmt.Errorf("list refs: %w", err)
	}
	byName := map[plumbing.ReferenceName]*plumbing.Reference{}
	var remote []*plumbing.Reference
	err = iter.ForEach(func(r *plumbing.Reference) error {
		if r.Type() != plumbing.HashReference {
			return nil
		}
		name := r.Name()
		switch {
		case name.IsBranch(), name.IsTag():
			if validateRefName(strings.TrimPrefix(name.String(), "refs/")) == nil {
				byName[name] = r
			}
		case remotes && strings.HasPrefix(name.String(), "refs/remotes/origin/"):
			branch := strings.TrimPrefix(name.String(), "refs/remotes/origin/")
			if branch != "HEAD" && ValidateBranchName(branch) == nil {
				remote = append(remote, plumbing.NewHashReference(plumbing.NewBranchReferenceName(branch), r.Hash()))
			}
		}
		return nil
	})
	if err != nil {
		return nil, "", fmt.Errorf("list refs: %w", err)
	}
	for _, r := range remote {
		if _, ok := byName[r.Name()]; !ok {
			byName[r.Name()] = r
		}
	}
	out := make([]*plumbing.Reference, 0, len(byName))
	for _, r := range byName {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	head := ""
	if h, err := src.Storer.Reference(plumbing.HEAD); err == nil && h.Type() == plumbing.SymbolicReference && h.Target().IsBranch() {
		head = h.Target().Short()
	} else if err != nil && !errors.Is(err, plumbing.ErrReferenceNotFound) {
		return nil, "", fmt.Errorf("read HEAD: %w", err)
	}
	return out, head, nil
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

// writePack stores the objects hashes of from as one pack file in l.
func (l *Local) writePack(from storer.EncodedObjectStorer, hashes []plumbing.Hash) error {
	w, err := l.st.PackfileWriter()
	if err != nil {
		return fmt.Errorf("write pack: %w", err)
	}
	if _, err := packfile.NewEncoder(w, from, false).Encode(hashes, packWindow); err != nil {
		w.Close()
		return fmt.Errorf("write pack: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("write pack: %w", err)
	}
	return nil
}
