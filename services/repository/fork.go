package repository

import (
	"context"
	"fmt"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"gitlab.com/glmcp/glmcp/models"
)

// CreateFork fills project targetID's repository with the history of
// project sourceID's: every branch and tag at the same commits, the
// objects they reach copied as one pack, HEAD on the branch the source's
// HEAD names. With branch set, only that branch is copied (no tags) and
// HEAD names it; a branch the source does not have is models.ErrNotFound.
// The target repository is created when missing; one that already has
// branches or tags is models.ErrConflict. A source without branches gives
// an empty fork (DefaultBranch ""). It is RepositoryService.CreateFork in
// Gitaly (whose revision is branch).
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
	src, err := git.PlainOpen(s.Path(sourceID))
	if err != nil {
		return nil, fmt.Errorf("open repository of project %d: %w", sourceID, err)
	}
	refs, head, err := importRefs(src, false)
	if err != nil {
		return nil, err
	}
	if branch != "" {
		want := plumbing.NewBranchReferenceName(branch)
		var only []*plumbing.Reference
		for _, r := range refs {
			if r.Name() == want {
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
	l, err := s.Open(ctx, targetID)
	if err != nil {
		return nil, err
	}
	defer l.Close()
	if len(refs) == 0 {
		return &ImportResult{}, nil
	}
	return l.copyRefs(ctx, src, fmt.Sprintf("the repository of project %d", sourceID), refs, head)
}
