package importexport

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository/gitcmd"
	"gitlab.com/glmcp/glmcp/services/store"
)

// keptDiff is the diff d carries for a merge request whose head is head,
// as glmcp keeps it; nil when d has neither commits nor files.
func keptDiff(d *exMergeRequestDiff, head string) *models.MergeRequestDiff {
	if d == nil || len(d.Commits) == 0 && len(d.Files) == 0 {
		return nil
	}
	out := &models.MergeRequestDiff{HeadSHA: head, BaseSHA: d.BaseCommitSHA, StartSHA: d.StartCommitSHA,
		Commits: make([]models.MergeRequestDiffCommit, 0, len(d.Commits)), Files: make([]models.MergeRequestDiffFile, 0, len(d.Files))}
	commits := append([]exDiffCommit(nil), d.Commits...)
	sort.SliceStable(commits, func(i, j int) bool { return commits[i].RelativeOrder < commits[j].RelativeOrder })
	for _, c := range commits {
		k := models.MergeRequestDiffCommit{SHA: c.SHA, Message: c.Message, AuthorName: c.AuthorName, AuthorEmail: c.AuthorEmail,
			AuthoredDate: c.AuthoredDate, CommitterName: c.CommitterName, CommitterEmail: c.CommitterEmail, CommittedDate: c.CommittedDate}
		if c.CommitAuthor != nil {
			k.AuthorName, k.AuthorEmail = c.CommitAuthor.Name, c.CommitAuthor.Email
		}
		if c.Committer != nil {
			k.CommitterName, k.CommitterEmail = c.Committer.Name, c.Committer.Email
		}
		if k.CommitterName == "" && k.CommitterEmail == "" {
			k.CommitterName, k.CommitterEmail = k.AuthorName, k.AuthorEmail
		}
		out.Commits = append(out.Commits, k)
	}
	files := append([]exDiffFile(nil), d.Files...)
	sort.SliceStable(files, func(i, j int) bool { return files[i].RelativeOrder < files[j].RelativeOrder })
	for _, f := range files {
		diff := f.UTF8Diff
		if diff == "" {
			diff = f.Diff
		}
		out.Files = append(out.Files, models.MergeRequestDiffFile{OldPath: f.OldPath, NewPath: f.NewPath, AMode: f.AMode, BMode: f.BMode,
			NewFile: f.NewFile, RenamedFile: f.RenamedFile, DeletedFile: f.DeletedFile, TooLarge: f.TooLarge, Binary: f.Binary, Diff: diff})
	}
	return out
}

// diffKeeper keeps the exported diff of the merge requests whose commits
// the imported repository lacks: a head no branch or tag reaches (a
// deleted source branch, a head only in refs/merge-requests/*), or a
// missing branch of an open one. glmcp reads every other merge request's
// diff and commits from git, and drops its copy.
type diffKeeper struct {
	git   *gitcmd.Runner
	repo  string // "": no repository
	tips  map[string]string
	isTip map[string]bool
}

// keep drops the diffs of the merge requests of r git answers.
func (d *diffKeeper) keep(ctx context.Context, r *store.ProjectRecords, sum *Summary) error {
	if len(r.MergeRequests) == 0 {
		return nil
	}
	if d.tips == nil {
		d.tips, d.isTip = map[string]string{}, map[string]bool{} // ref → commit
		if d.repo != "" {
			out, err := d.git.Output(ctx, gitcmd.Cmd{Dir: d.repo, Name: "for-each-ref", Flags: []string{"--format=%(objectname) %(refname)"},
				Args: []string{"refs/heads/", "refs/tags/"}})
			if err != nil {
				return fmt.Errorf("list the repository's branches: %w", err)
			}
			for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				if sha, ref, ok := strings.Cut(l, " "); ok {
					d.tips[ref], d.isTip[sha] = sha, true
				}
			}
		}
	}
	git, repo, tips, isTip := d.git, d.repo, d.tips, d.isTip
	for k := range r.MergeRequests {
		m := &r.MergeRequests[k]
		if m.Diff == nil {
			continue
		}
		reached := isTip[m.SHA]
		if m.State == models.MergeRequestOpened {
			// An open merge request is read from its branches, whatever
			// head the archive names.
			_, src := tips["refs/heads/"+m.SourceBranch]
			_, dst := tips["refs/heads/"+m.TargetBranch]
			reached = src && dst
		} else if !reached && repo != "" {
			var err error
			if reached, err = reachable(ctx, git, repo, m.SHA); err != nil {
				return err
			}
		}
		if reached {
			sum.Skipped["merge_request_diff_commits (read from git)"] += len(m.Diff.Commits)
			sum.Skipped["merge_request_diff_files (read from git)"] += len(m.Diff.Files)
			m.Diff = nil
			continue
		}
		sum.Imported["merge_request_diffs (commits not in the repository)"]++
	}
	return nil
}

// reachable reports whether a branch or tag of the git directory repo
// reaches commit sha.
func reachable(ctx context.Context, git *gitcmd.Runner, repo, sha string) (bool, error) {
	if !isHexSHA(sha) {
		return false, nil
	}
	if _, err := git.Output(ctx, gitcmd.Cmd{Dir: repo, Name: "cat-file", Flags: []string{"-e"}, Args: []string{sha + "^{commit}"}}); err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return false, nil // not in the repository at all
	}
	out, err := git.Output(ctx, gitcmd.Cmd{Dir: repo, Name: "for-each-ref", Flags: []string{"--count=1", "--format=%(refname)", "--contains", sha},
		Args: []string{"refs/heads/", "refs/tags/"}})
	if err != nil {
		return false, fmt.Errorf("look for commit %s in the repository: %w", sha, err)
	}
	return strings.TrimSpace(string(out)) != "", nil
}

// isHexSHA reports whether s is a full commit id (SHA-1 or SHA-256).
func isHexSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
