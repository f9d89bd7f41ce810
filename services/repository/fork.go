package repository

import (
	"context"
	"fmt"

	"gitlab.com/glmcp/glmcp/models"
)

// CreateFork fills project targetID's repository with the history of
// project sourceID's: every branch and tag at the same commits, copied by
// one pack from the source's repository, as an import (see copyRefs),
// HEAD on the branch the source's HEAD names. With branch set, only that
// branch is copied (no tags) and HEAD names it; a branch the source does
// not have is models.ErrNotFound. The target repository is created when
// missing; one that already has branches or tags is models.ErrConflict. A
// source without branches gives an empty fork (DefaultBranch ""). It is
// RepositoryService.CreateFork in Gitaly (whose revision is branch).
//
// A failure leaves no ref in the target; the caller removes the target
// repository when the fork as a whole fails (see [Storage.Remove]).
func (s *Storage) CreateFork(ctx context.Context, sourceID, targetID int64, branch string) (*ImportResult, error) {
	if sourceID == targetID {
		return nil, fmt.Errorf("fork project %d into itself: %w", sourceID, models.ErrInvalidInput)
	}
	if !s.Exists(sourceID) {
		return nil, fmt.Errorf("repository of project %d: %w", sourceID, models.ErrNotFound)
	}
	src := s.Path(sourceID)
	refs, head, err := sourceRefs(ctx, s.git, src, false)
	if err != nil {
		return nil, err
	}
	if branch != "" {
		want := "refs/heads/" + branch
		var only []refCopy
		for _, r := range refs {
			if r.Dst == want {
				only = append(only, r)
			}
		}
		if len(only) == 0 {
			return nil, fmt.Errorf("branch %s: %w", branch, models.ErrNotFound)
		}
		refs, head = only, branch
	}
	defaultBranch := head
	if defaultBranch == "" {
		defaultBranch = "main"
	}
	if err := s.Create(ctx, targetID, defaultBranch); err != nil {
		return nil, err
	}
	dst := s.Path(targetID)
	if err := refuseRefs(ctx, s.git, dst); err != nil {
		return nil, err
	}
	if len(refs) == 0 {
		return &ImportResult{}, nil
	}
	res, err := copyInto(ctx, s.git, dst, src, refs, head, ImportOptions{})
	if err != nil {
		return nil, err
	}
	s.announce(targetID, res)
	s.hk.Schedule(targetID, "fork")
	return res, nil
}

// announce tells the ref watcher (see [Storage.OnRefUpdate]) about every
// branch and tag a copy created in project id's repository.
func (s *Storage) announce(projectID int64, res *ImportResult) {
	fn := s.refWatcher()
	if fn == nil {
		return
	}
	for _, names := range [][]string{res.Branches, res.Tags} {
		for _, name := range names {
			fn(projectID, name)
		}
	}
}
