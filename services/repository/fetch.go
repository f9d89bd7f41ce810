package repository

import (
	"context"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository/gitcmd"
)

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
		return nil, l.branchExists(req, old, src)
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
		if h, err = src.refs.branchHead(req.StartBranch); err != nil {
			return nil, err
		}
		if h.IsZero() {
			return nil, fmt.Errorf("start branch %q: %w", req.StartBranch, models.ErrNotFound)
		}
	default:
		return nil, fmt.Errorf("a start in another project needs start_branch or start_sha: %w", models.ErrInvalidInput)
	}
	c, err := src.objects.peel(h)
	if err != nil {
		return nil, err
	}
	if err := l.copyCommit(ctx, src, c.Hash); err != nil {
		return nil, err
	}
	return l.objects.peel(c.Hash)
}

// copyCommit copies commit h of src, with its history, trees and blobs,
// into l, but only what l lacks: `git fetch <src> <h>` (protocol v2's
// upload-pack serves any object it has, named or not), whose negotiation
// stops at the commits l has; git's connectivity check makes sure the
// history is whole. The objects go in as one pack, written to a temporary
// file and renamed, so concurrent copies into one repository need no lock.
// No ref moves and no FETCH_HEAD is written: unreferenced until the caller
// moves a ref to them, they are harmless if that fails (git gc drops
// them).
func (l *Local) copyCommit(ctx context.Context, src *Local, h plumbing.Hash) error {
	if l.repo.Storer.HasEncodedObject(h) == nil {
		return nil
	}
	err := l.git.Run(ctx, gitcmd.Cmd{Dir: l.dir, Name: "fetch", Flags: fetchFlags,
		Args: []string{src.dir, h.String()}, Env: fetchConfig})
	if err != nil {
		return fmt.Errorf("copy commit %s: %w", h, err)
	}
	// The new pack, for the objects this Local reads next.
	l.st.Reindex()
	return nil
}

// fetchFlags are the options of copyCommit's fetch: no tag following, no
// FETCH_HEAD, no automatic gc or maintenance.
var fetchFlags = []string{"--no-tags", "--no-write-fetch-head", "--no-auto-gc", "--no-auto-maintenance",
	"--no-recurse-submodules", "--no-show-forced-updates", "--quiet"}

// fetchConfig is the configuration of that fetch, whatever a
// repository's own says: protocol v2, whose upload-pack serves any object
// asked for (copyCommit asks for a commit no ref may name), and the
// objects kept as one pack however few they are (git would write fewer
// than 100 as loose objects), as glmcp's own writes do.
var fetchConfig = []string{"GIT_CONFIG_COUNT=2",
	"GIT_CONFIG_KEY_0=protocol.version", "GIT_CONFIG_VALUE_0=2",
	"GIT_CONFIG_KEY_1=fetch.unpackLimit", "GIT_CONFIG_VALUE_1=1"}
