package gitlab

import (
	"context"
	"encoding/json"
	"errors"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// mergeIntents are the merge intents of *repository.Storage (see
// Storage.WriteMergeIntent): what accept_merge_request records before the
// target branch moves, so that a merge that reached git but not the store
// (the process died in between) is finished on the next read of its merge
// request.
type mergeIntents interface {
	WriteMergeIntent(projectID, iid int64, data []byte) error
	MergeIntent(projectID, iid int64) ([]byte, error)
	RemoveMergeIntent(projectID, iid int64) error
}

// mergeIntent is one recorded merge: the target branch, the head it moves
// to, and the store's record of the merge.
type mergeIntent struct {
	Target  string                   `json:"target"`
	NewHead string                   `json:"new_head"`
	Merge   models.MergeRequestMerge `json:"merge"`
}

// intentsOf returns the merge intents repos keeps, or nil when it keeps
// none.
func intentsOf(repos Repositories) mergeIntents {
	mi, _ := repos.(mergeIntents)
	return mi
}

// mergeSettler finishes merges that reached git but not the store (see
// settle): what get_merge_request and accept_merge_request share, and
// SettleMerges at start.
type mergeSettler struct {
	inTx    InTx
	git     mrGit
	intents mergeIntents // nil: the repositories record none
}

// mergeSettlerOf is the settler over g's transactions and repositories.
func mergeSettlerOf(g *gitlab) mergeSettler {
	return mergeSettler{inTx: g.inTx, git: mrGitOf(g), intents: intentsOf(g.repos)}
}

// settleStore is what settling a merge writes, in its transaction.
type settleStore interface {
	LockMergeRequest(ctx context.Context, projectID, iid int64) (*models.MergeRequest, error)
	MergeMergeRequest(ctx context.Context, projectID, iid int64, m models.MergeRequestMerge) (*models.MergeRequest, error)
}

// settledTarget returns the merge request the service resolved for call
// (targetMergeRequest), settled: an open one whose merge reached git but
// not the store is finished first (settle), so the tools that read or
// merge it see what git has. mergedMeanwhile reports that it was open
// when resolved and was merged by another request (an accept running
// meanwhile, whose record settle found and waited for), not by this call.
func (s mergeSettler) settledTarget(ctx context.Context, call *tools.Call) (pa *projectAccess, mr *models.MergeRequest, mergedMeanwhile bool, err error) {
	pa, mr, err = targetMergeRequest(call)
	if err != nil {
		return nil, nil, false, err
	}
	if mr.State != models.MergeRequestOpened {
		return pa, mr, false, nil
	}
	settled, finished, err := s.settle(ctx, pa.project, mr)
	if err != nil {
		return nil, nil, false, err
	}
	return pa, settled, settled.State == models.MergeRequestMerged && !finished, nil
}

// settle finishes the merge of mr recorded by an accept that did not
// reach the store, when the target branch holds it (GitLab marks a merge
// request merged once its head is in the target), and drops an intent
// whose merge never reached git. It takes the merge request's row lock
// first, so an accept still running is waited for, and returns the merge
// request as it is then. Without an intent it returns mr as is.
// It also reports whether this call marked the merge request merged
// (finished a recorded merge) rather than found it merged by another
// request.
func (s mergeSettler) settle(ctx context.Context, p *models.Project, mr *models.MergeRequest) (*models.MergeRequest, bool, error) {
	mi := s.intents
	if mi == nil {
		return mr, false, nil
	}
	data, err := mi.MergeIntent(p.ID, mr.IID)
	if err != nil || data == nil {
		return mr, false, nil // the read goes on; the next one looks again
	}
	var in mergeIntent
	if json.Unmarshal(data, &in) != nil || !repository.IsFullHash(in.NewHead) {
		_ = mi.RemoveMergeIntent(p.ID, mr.IID)
		return mr, false, nil
	}
	out, finished := mr, false
	err = s.inTx(ctx, func(tx Families) error {
		st := settleStore(tx.MergeRequests)
		locked, err := st.LockMergeRequest(ctx, p.ID, mr.IID)
		if err != nil {
			return err
		}
		out = locked
		if locked.State != models.MergeRequestOpened {
			return nil
		}
		repo, err := s.git.open(ctx, p)
		if err != nil {
			return err
		}
		defer repo.Close()
		merged, err := repo.IsAncestor(ctx, in.NewHead, branchRef(in.Target))
		if errors.Is(err, models.ErrNotFound) {
			merged, err = false, nil // no such commit, or no such branch any more
		}
		if err != nil || !merged {
			return err // never reached git: the intent goes
		}
		out, err = st.MergeMergeRequest(ctx, p.ID, mr.IID, in.Merge)
		finished = err == nil
		return err
	})
	if err != nil {
		return mr, false, err
	}
	_ = mi.RemoveMergeIntent(p.ID, mr.IID)
	return out, finished, nil
}

// SettleMerges finishes the merges a crash left recorded in the
// repositories of projectIDs (see mergeSettler.settle): glmcp runs it at start, so
// such a merge request reads merged in lists too, not only once it is read
// itself. It returns how many merge requests it marked merged.
func SettleMerges(ctx context.Context, d Deps, projectIDs []int64) (int, error) {
	g := newGitlab(d)
	s := mergeSettlerOf(g)
	lister, ok := g.repos.(interface{ MergeIntents(projectID int64) []int64 })
	mi := s.intents
	if !ok || mi == nil {
		return 0, nil
	}
	n := 0
	for _, pid := range projectIDs {
		iids := lister.MergeIntents(pid)
		if len(iids) == 0 {
			continue
		}
		ps, err := g.store.Projects.LoadProjects(ctx, []int64{pid})
		if err != nil {
			return n, err
		}
		if len(ps) != 1 {
			continue
		}
		for _, iid := range iids {
			mr, err := g.store.MergeRequests.LoadMergeRequest(ctx, pid, iid)
			if errors.Is(err, models.ErrNotFound) {
				_ = mi.RemoveMergeIntent(pid, iid)
				continue
			}
			if err != nil {
				return n, err
			}
			out, _, err := s.settle(ctx, &ps[0], mr)
			if err != nil {
				return n, err
			}
			if mr.State == models.MergeRequestOpened && out.State == models.MergeRequestMerged {
				n++
			}
		}
	}
	return n, nil
}
