package repository

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"gitlab.com/glmcp/glmcp/models"
)

// Conflicts lists the files that merging source into target would leave
// conflicted, without writing anything.
func (l *Local) Conflicts(ctx context.Context, target, source string) ([]Conflict, error) {
	tc, err := l.resolve(ctx, target)
	if err != nil {
		return nil, err
	}
	sc, err := l.resolve(ctx, source)
	if err != nil {
		return nil, err
	}
	m := &merger{l: l, dryRun: true, withContent: true}
	if _, err := m.mergeCommits(tc, sc); err != nil {
		return nil, err
	}
	return m.conflicts, nil
}

// ConflictError is a merge that conflicts; it wraps models.ErrConflict.
type ConflictError struct{ Conflicts []Conflict }

func (e *ConflictError) Error() string {
	paths := make([]string, len(e.Conflicts))
	for i, c := range e.Conflicts {
		paths[i] = c.Path
	}
	return fmt.Sprintf("merge conflicts in %s", strings.Join(paths, ", "))
}

func (e *ConflictError) Unwrap() error { return models.ErrConflict }

// Merge merges req.Source into the req.Target branch, then moves the
// branch with a compare-and-swap from the value the merge was computed
// on. Conflicts are a *ConflictError; a guard that does not hold, or a
// target that moved meanwhile, is models.ErrConflict; nothing is changed
// in either case.
func (l *Local) Merge(ctx context.Context, req MergeRequest) (*MergeResult, error) {
	if err := ValidateBranchName(req.Target); err != nil {
		return nil, err
	}
	method := req.Method
	if method == "" {
		method = MergeMethodMerge
	}
	if method != MergeMethodMerge && method != MergeMethodFastForward && method != MergeMethodRebaseMerge {
		return nil, fmt.Errorf("merge method %q is not merge, rebase_merge or ff: %w", method, models.ErrInvalidInput)
	}
	if strings.TrimSpace(req.Author.Name) == "" || strings.TrimSpace(req.Author.Email) == "" {
		return nil, fmt.Errorf("merge author needs a name and an e-mail: %w", models.ErrInvalidInput)
	}
	targetRef := plumbing.NewBranchReferenceName(req.Target)
	old, err := l.refs.readRef(targetRef)
	if err != nil {
		return nil, err
	}
	if old.IsZero() {
		return nil, fmt.Errorf("target branch %q: %w", req.Target, models.ErrNotFound)
	}
	if req.ExpectedTargetSHA != "" && !strings.EqualFold(req.ExpectedTargetSHA, old.String()) {
		return nil, fmt.Errorf("target branch %q moved: %w", req.Target, models.ErrConflict)
	}
	tc, err := l.objects.peel(old)
	if err != nil {
		return nil, err
	}
	sc, err := l.resolve(ctx, req.Source)
	if err != nil {
		return nil, fmt.Errorf("source: %w", err)
	}
	if req.ExpectedSourceSHA != "" && !strings.EqualFold(req.ExpectedSourceSHA, sc.Hash.String()) {
		return nil, fmt.Errorf("SHA does not match HEAD of source branch: %s: %w", sc.Hash, models.ErrConflict)
	}
	base, err := l.ancestry.mergeBase(tc, sc)
	if err != nil {
		return nil, err
	}
	if base == nil {
		return nil, fmt.Errorf("%s and %s share no history: %w", req.Source, req.Target, models.ErrInvalidInput)
	}
	if base.Hash == sc.Hash {
		return nil, fmt.Errorf("%s is already merged into %s: %w", req.Source, req.Target, models.ErrInvalidInput)
	}
	res := &MergeResult{MergeBase: base.Hash.String()}
	committer := committerOf(req.Author, req.Committer)
	now := committer.When
	sig := func(when time.Time) object.Signature {
		return object.Signature{Name: req.Author.Name, Email: req.Author.Email, When: when}
	}
	ffPossible := base.Hash == tc.Hash
	if (method == MergeMethodFastForward || method == MergeMethodRebaseMerge) && !ffPossible {
		return nil, fmt.Errorf("%s cannot be fast-forwarded to %s; rebase the source branch first: %w", req.Target, req.Source, models.ErrConflict)
	}
	head := sc
	if req.Squash {
		msg := req.SquashMessage
		if strings.TrimSpace(msg) == "" {
			msg = sc.Message
		}
		squash := &object.Commit{
			Author:    object.Signature{Name: sc.Author.Name, Email: sc.Author.Email, When: sc.Author.When},
			Committer: committer, Message: ensureNewline(msg), TreeHash: sc.TreeHash,
			ParentHashes: []plumbing.Hash{base.Hash},
		}
		h, err := l.objects.writeCommit(squash)
		if err != nil {
			return nil, err
		}
		squash.Hash = h
		res.SquashID = h.String()
		head = squash
	}
	var newHead plumbing.Hash
	if method == MergeMethodFastForward {
		newHead, res.FastForward = head.Hash, true
	} else {
		m := &merger{l: l}
		tree, err := m.mergeCommitsBase(base, tc, head)
		if err != nil {
			return nil, err
		}
		if len(m.conflicts) > 0 {
			return nil, &ConflictError{Conflicts: m.conflicts}
		}
		msg := req.Message
		if strings.TrimSpace(msg) == "" {
			msg = fmt.Sprintf("Merge branch '%s' into '%s'", req.Source, req.Target)
		}
		mc := &object.Commit{
			Author: sig(now), Committer: committer, Message: ensureNewline(msg), TreeHash: tree,
			ParentHashes: []plumbing.Hash{tc.Hash, head.Hash},
		}
		if newHead, err = l.objects.writeCommit(mc); err != nil {
			return nil, err
		}
	}
	res.CommitID = newHead.String()
	if req.BeforeMove != nil {
		if err := req.BeforeMove(res); err != nil {
			return nil, err
		}
	}
	if err := l.refs.updateRef(targetRef, old, newHead); err != nil {
		return nil, fmt.Errorf("merge into %s: %w", req.Target, err)
	}
	return res, nil
}
