package gitlab

import (
	"context"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
)

// Patches reads merge requests' diffs as one unified patch, straight from
// git, for the resources service (the merge request resource and the
// review_merge_request prompt), with get_merge_request_diffs's access
// rules.
type Patches struct {
	store *targetStore // nil: no store
	git   mrGit
}

// NewPatches returns the reader over d's store and repositories.
func NewPatches(d Deps) *Patches {
	g := newGitlab(d)
	return &Patches{store: g.targets, git: mrGitOf(g)}
}

// MergeRequestPatch returns merge request iid of project (an id or a
// full path) as u may read it: per changed file "--- a/old" and "+++ b/new"
// lines and the hunks. A missing or hidden merge request is
// models.ErrNotFound. At most maxBytes of patch are returned; cut reports
// that files were left out.
func (p *Patches) MergeRequestPatch(ctx context.Context, u *models.User, project string, iid int64, maxBytes int) (patch string, cut bool, err error) {
	if p.store == nil {
		return "", false, errNoStore
	}
	if u == nil {
		return "", false, notFound("Merge Request")
	}
	pa, mr, err := readableMergeRequest(ctx, p.store, u, &mrArgs{ID: refArg(project), MergeRequestIID: intArg(iid)})
	if err != nil {
		return "", false, err
	}
	cmp, err := p.git.compare(ctx, pa.project, mr, repository.CompareOptions{SkipCommits: true})
	if err != nil {
		return "", false, err
	}
	var b strings.Builder
	for k := range cmp.Files {
		f := &cmp.Files[k]
		text := "--- a/" + f.OldPath + "\n+++ b/" + f.NewPath + "\n" + f.Diff
		switch {
		case f.Binary:
			text += "Binary files differ\n"
		case f.TooLarge:
			text += "(diff too large to show: read the file with get_repository_file)\n"
		case text != "" && !strings.HasSuffix(text, "\n"):
			text += "\n"
		}
		if maxBytes > 0 && b.Len()+len(text) > maxBytes {
			return b.String(), true, nil
		}
		b.WriteString(text)
	}
	return b.String(), false, nil
}
