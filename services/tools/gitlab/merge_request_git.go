package gitlab

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
)

// A merge request's commits and diffs are read from its project's
// repository, never stored: while it is open, what its source branch adds
// to its target branch since their merge base (git's three-dot diff, as
// GitLab shows it); once merged or closed, what its recorded head added to
// its recorded merge base (diff_base_sha..sha).

// keptDiffStore is what reading a merge request's changes needs from the
// store: the diff an export archive carried for it.
type keptDiffStore interface {
	MergeRequestDiff(ctx context.Context, mrID int64) (*models.MergeRequestDiff, error)
}

// mrGit reads merge requests' changes from their projects' repositories
// (and, where git lacks them, from the diff an import kept): the git side
// every merge request tool shares.
type mrGit struct {
	repos Repositories  // nil: no repositories (a catalog built without them)
	kept  keptDiffStore // nil: no store
}

// mrGitOf is the merge request tools' git reader over g's repositories
// and store.
func mrGitOf(g *gitlab) mrGit {
	m := mrGit{repos: g.repos}
	if !noStore(g.store) {
		m.kept = g.store.MergeRequests
	}
	return m
}

// storeMissing is errNoStore in a catalog built without a store (Deps{}):
// the merge request tools whose only store is the one mrGit reads kept
// diffs from answer so there, as every tool does.
func (m mrGit) storeMissing() error {
	if m.kept == nil {
		return errNoStore
	}
	return nil
}

// open opens project p's repository; a missing one is GitLab's "404
// Repository Not Found" (the storage's own text names internal ids).
func (m mrGit) open(ctx context.Context, p *models.Project) (repository.Repository, error) {
	return openProjectRepository(ctx, m.repos, p)
}

// branchRef is the full ref of branch, so that a tag of the same name is
// never taken for it.
func branchRef(branch string) string { return "refs/heads/" + branch }

// compare returns what mr changes (see above), with opt's
// bounds. When git lacks what it needs (a missing branch of an open merge
// request, the commits of a closed one), the diff an export archive
// carried for mr answers instead, if it had one; else it is a not-found
// error naming what is missing.
func (m mrGit) compare(ctx context.Context, p *models.Project, mr *models.MergeRequest, opt repository.CompareOptions) (*repository.Comparison, error) {
	repo, err := m.open(ctx, p)
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	cmp, err := compareMR(ctx, repo, mr, opt)
	if errors.Is(err, models.ErrNotFound) {
		d, kerr := m.kept.MergeRequestDiff(ctx, mr.ID)
		if kerr == nil {
			return keptComparison(d, opt), nil
		}
		if !errors.Is(kerr, models.ErrNotFound) {
			return nil, kerr
		}
	}
	return cmp, err
}

// keptComparison is a stored merge request diff as git's comparison,
// with opt's bounds.
func keptComparison(d *models.MergeRequestDiff, opt repository.CompareOptions) *repository.Comparison {
	cmp := &repository.Comparison{BaseSHA: d.StartSHA, HeadSHA: d.HeadSHA, MergeBaseSHA: d.BaseSHA,
		Commits: []repository.Commit{}}
	limit := opt.MaxCommits
	if limit <= 0 {
		limit = repository.DefaultMaxCommits
	}
	for _, c := range d.Commits[:min(limit, len(d.Commits))] {
		title, _, _ := strings.Cut(c.Message, "\n")
		cmp.Commits = append(cmp.Commits, repository.Commit{ID: c.SHA, Title: title, Message: c.Message,
			Author:    repository.Signature{Name: c.AuthorName, Email: c.AuthorEmail, When: c.AuthoredDate},
			Committer: repository.Signature{Name: c.CommitterName, Email: c.CommitterEmail, When: c.CommittedDate}})
	}
	if opt.SkipDiffs {
		return cmp
	}
	for _, f := range d.Files {
		fd := repository.FileDiff{OldPath: f.OldPath, NewPath: f.NewPath, AMode: f.AMode, BMode: f.BMode,
			NewFile: f.NewFile, RenamedFile: f.RenamedFile, DeletedFile: f.DeletedFile, Binary: f.Binary, TooLarge: f.TooLarge}
		maxPatch := opt.MaxPatchBytes
		if maxPatch <= 0 {
			maxPatch = repository.DefaultMaxPatchBytes
		}
		switch {
		case opt.SkipPatches:
		case len(f.Diff) > maxPatch:
			fd.TooLarge = true
		default:
			fd.Diff = f.Diff
			fd.Additions, fd.Deletions = diffLineCounts(f.Diff)
		}
		cmp.Files = append(cmp.Files, fd)
	}
	return cmp
}

func compareMR(ctx context.Context, repo repository.Repository, mr *models.MergeRequest, opt repository.CompareOptions) (*repository.Comparison, error) {
	if mr.State == models.MergeRequestOpened {
		for _, b := range []struct{ side, name string }{{"Source", mr.SourceBranch}, {"Target", mr.TargetBranch}} {
			if _, err := repo.Commit(ctx, branchRef(b.name)); errors.Is(err, models.ErrNotFound) {
				return nil, &kindError{msg: fmt.Sprintf("%s branch '%s' of merge request !%d does not exist in the repository",
					b.side, b.name, mr.IID), kind: models.ErrNotFound}
			} else if err != nil {
				return nil, err
			}
		}
		return repo.Compare(ctx, branchRef(mr.TargetBranch), branchRef(mr.SourceBranch), opt)
	}
	if mr.SHA == "" {
		return &repository.Comparison{Commits: []repository.Commit{}}, nil
	}
	base := mr.DiffBaseSHA
	if base == "" {
		base = mr.SHA
	}
	cmp, err := repo.Compare(ctx, base, mr.SHA, opt)
	if errors.Is(err, models.ErrNotFound) {
		return nil, &kindError{msg: fmt.Sprintf("the commits of merge request !%d (%s) are not in the repository any more",
			mr.IID, shortSHA(mr.SHA)), kind: models.ErrNotFound}
	}
	return cmp, err
}

// head is the head commit of mr: its source branch's for an open merge
// request (so a push made with git is seen at once), the recorded one
// otherwise, or when the branch cannot be read.
func (m mrGit) head(ctx context.Context, p *models.Project, mr *models.MergeRequest) string {
	if mr.State != models.MergeRequestOpened || m.repos == nil {
		return mr.SHA
	}
	repo, err := m.open(ctx, p)
	if err != nil {
		return mr.SHA
	}
	defer repo.Close()
	if c, err := repo.Commit(ctx, branchRef(mr.SourceBranch)); err == nil {
		return c.ID
	}
	return mr.SHA
}

// commitSHAs returns the ids of mr's commits, whose branch pipelines
// are its pipelines too; none when its commits cannot be read (a deleted
// branch).
func (m mrGit) commitSHAs(ctx context.Context, p *models.Project, mr *models.MergeRequest) ([]string, error) {
	cmp, err := m.compare(ctx, p, mr, repository.CompareOptions{SkipDiffs: true})
	if errors.Is(err, models.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]string, len(cmp.Commits))
	for i := range cmp.Commits {
		out[i] = cmp.Commits[i].ID
	}
	return out, nil
}

func shortSHA(sha string) string {
	if len(sha) > 8 {
		return sha[:8]
	}
	return sha
}

// checkBranches checks that every branch exists in p's repository: a
// missing one is GitLab's validation error naming its field.
func (m mrGit) checkBranches(ctx context.Context, p *models.Project, branches ...[2]string) error {
	repo, err := m.open(ctx, p)
	if err != nil {
		return err
	}
	defer repo.Close()
	for _, b := range branches {
		field, name := b[0], b[1]
		if err := repository.ValidateBranchName(name); err != nil {
			return invalidf("%s: %s", field, trimSentinel(err))
		}
		_, err := repo.Commit(ctx, branchRef(name))
		if errors.Is(err, models.ErrNotFound) {
			return invalidf("%s: branch %q does not exist in project %s", field, name, p.PathWithNamespace)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// conflicts lists the files merging mr would leave conflicted, computed
// in git now (nothing is written). As in GitLab, only a user who may push
// to the source branch sees them, and "ours" is the source branch,
// "theirs" the target branch.
func (m mrGit) conflicts(ctx context.Context, u *models.User, pa *projectAccess, mr *models.MergeRequest) ([]repository.Conflict, error) {
	if err := canPush(u, pa.project, pa.level, mr.SourceBranch); err != nil {
		return nil, forbiddenf("you are not allowed to push to the source branch '%s' of merge request !%d; "+
			"conflicts are shown to those who can resolve them", mr.SourceBranch, mr.IID)
	}
	if mr.State != models.MergeRequestOpened {
		return nil, invalidf("merge request !%d is %s: only an open merge request has conflicts", mr.IID, mr.State)
	}
	repo, err := m.open(ctx, pa.project)
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	if _, err := compareMR(ctx, repo, mr, repository.CompareOptions{SkipDiffs: true, MaxCommits: 1}); err != nil {
		return nil, err // a missing branch, named
	}
	return repo.Conflicts(ctx, branchRef(mr.SourceBranch), branchRef(mr.TargetBranch))
}

// conflictText renders conflicts as GitLab's get_merge_request_conflicts
// does: per file a "# File: path" line and the file with git's conflict
// markers, files separated by a blank line.
func conflictText(cs []repository.Conflict) string {
	parts := make([]string, 0, len(cs))
	for _, c := range cs {
		head := "# File: " + c.Path
		if c.OurPath != "" && c.TheirPath != "" && c.OurPath != c.TheirPath {
			head = "# File: " + c.TheirPath + " -> " + c.OurPath
		}
		parts = append(parts, head+"\n"+conflictContent(c))
	}
	return strings.Join(parts, "\n\n")
}

// conflictContent is a conflicted file's content: with conflict markers
// for a text conflict, else a line saying what conflicts.
func conflictContent(c repository.Conflict) string {
	if c.Marked != "" {
		return c.Marked
	}
	switch {
	case c.OurPath == "":
		return "(deleted in the source branch, changed in the target branch: resolve it locally)\n"
	case c.TheirPath == "":
		return "(changed in the source branch, deleted in the target branch: resolve it locally)\n"
	}
	return fmt.Sprintf("(%s conflict: binary, too large or of different types; resolve it locally)\n", c.Reason)
}
