package repository

import (
	"context"
	"fmt"
	"hash/fnv"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"gitlab.com/glmcp/glmcp/models"
)

// fetchLocks serialise the object copies into one repository directory in
// this process. go-git writes a pack's index in place (not by rename) when
// the file is missing, so two copies that produce the same pack at the same
// time could let a reader see the index half written; one at a time, the
// second finds the first's pack and skips it. A fixed set of locks, chosen
// by the directory's hash, keeps that without a lock per repository ever
// copied into (two repositories may share one: they just take turns).
var fetchLocks [64]sync.Mutex

func fetchLock(dir string) *sync.Mutex {
	h := fnv.New32a()
	_, _ = h.Write([]byte(dir))
	return &fetchLocks[h.Sum32()%uint32(len(fetchLocks))]
}

// startCommit resolves where a CommitFiles request with a StartRepository
// begins (req.StartSHA, else req.StartBranch of that repository) and copies
// into l the objects of that commit l lacks, so that the new commit's
// history is whole here. Branch must not exist (GitLab's rule for a start
// in another project: the branch would otherwise grow on a history the
// start project never saw); old is its current value.
func (l *Local) startCommit(ctx context.Context, req CommitFilesRequest, old plumbing.Hash) (*object.Commit, error) {
	src, ok := req.StartRepository.(*Local)
	if !ok {
		return nil, fmt.Errorf("start repository: a %T cannot be copied from", req.StartRepository)
	}
	if !old.IsZero() {
		return nil, branchExistsError(req.Branch)
	}
	var h plumbing.Hash
	var err error
	switch {
	case req.StartSHA != "":
		if h, err = hashOf(req.StartSHA); err != nil {
			return nil, err
		}
	case req.StartBranch != "":
		if err := ValidateBranchName(req.StartBranch); err != nil {
			return nil, err
		}
		if h, err = src.branchHead(req.StartBranch); err != nil {
			return nil, err
		}
		if h.IsZero() {
			return nil, fmt.Errorf("start branch %q: %w", req.StartBranch, models.ErrNotFound)
		}
	default:
		return nil, fmt.Errorf("a start in another project needs start_branch or start_sha: %w", models.ErrInvalidInput)
	}
	c, err := src.peel(h)
	if err != nil {
		return nil, err
	}
	if _, err := l.copyCommit(ctx, src, c.Hash); err != nil {
		return nil, err
	}
	return l.peel(c.Hash)
}

// copyCommit copies commit h of src, with its history, trees and blobs,
// into l, but only what l lacks: the walk stops at every commit and tree l
// already has, whose closure l then has too (git's connectivity rule: glmcp
// and git write an object's children before it, and a pack whole or not at
// all). The objects go in as one pack; it returns how many. Unreferenced
// until the caller moves a ref to them, they are harmless if that fails
// (git gc drops them).
func (l *Local) copyCommit(ctx context.Context, src *Local, h plumbing.Hash) (int, error) {
	mu := fetchLock(l.dir)
	mu.Lock()
	defer mu.Unlock()
	// Packs another Local added since this one read the indexes count as
	// present (and are not written twice).
	l.st.Reindex()
	has := func(h plumbing.Hash) bool { return l.st.HasEncodedObject(h) == nil }
	seen := map[plumbing.Hash]bool{}
	var missing []plumbing.Hash
	var walkTree func(t plumbing.Hash) error
	walkTree = func(t plumbing.Hash) error {
		if seen[t] {
			return nil
		}
		seen[t] = true
		if has(t) {
			return nil
		}
		tree, err := object.GetTree(src.st, t)
		if err != nil {
			return fmt.Errorf("copy tree %s: %w", t, err)
		}
		missing = append(missing, t)
		for _, e := range tree.Entries {
			switch {
			case e.Mode == filemode.Submodule: // a commit of another repository
			case e.Mode == filemode.Dir:
				if err := walkTree(e.Hash); err != nil {
					return err
				}
			case !seen[e.Hash]:
				seen[e.Hash] = true
				if !has(e.Hash) {
					missing = append(missing, e.Hash)
				}
			}
		}
		return nil
	}
	queue := []plumbing.Hash{h}
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		c := queue[0]
		queue = queue[1:]
		if seen[c] {
			continue
		}
		seen[c] = true
		if has(c) {
			continue
		}
		commit, err := object.GetCommit(src.st, c)
		if err != nil {
			return 0, fmt.Errorf("copy commit %s: %w", c, err)
		}
		missing = append(missing, c)
		if err := walkTree(commit.TreeHash); err != nil {
			return 0, err
		}
		queue = append(queue, commit.ParentHashes...)
	}
	if len(missing) == 0 {
		return 0, nil
	}
	if err := l.writePack(src.st, missing); err != nil {
		return 0, err
	}
	return len(missing), nil
}
