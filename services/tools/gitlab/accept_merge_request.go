package gitlab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// Auto-merge strategies GitLab accepts (AutoMergeService, CE); glmcp runs
// no pipelines, so none can be armed.
var autoMergeStrategies = []string{"merge_when_checks_pass", "merge_when_pipeline_succeeds"}

// acceptMergeRequest is GitLab 19.5's accept_merge_request: merge a
// merge request in git now, guarded by the head SHA the caller has seen.
func acceptMergeRequest(g *gitlab) tools.Definition {
	t := acceptMRTool{links: g.links, inTx: g.inTx, git: mrGitOf(g), settler: mergeSettlerOf(g)}
	return tools.Definition{
		Name:  "accept_merge_request",
		Title: "Accept merge request",
		Description: "Merge a merge request, or schedule it to merge automatically. Without strategy the merge starts " +
			"immediately; with strategy, auto-merge is armed and the merge request merges once its checks pass. " +
			"Identify the merge request by url, or by project_id and merge_request_iid. To approve a merge request " +
			"instead, use save_merge_request_review.",
		InputSchema: argsSchema(t.run, mrRefProps(obj{
			"sha": strProp("Head SHA guard. When it no longer matches the merge request head, the merge is refused "+
				"instead of merging content you have not seen. Pass the diff_head_sha returned by get_merge_request.", 1, 64),
			"strategy": enumProp("Auto-merge strategy. When given, arms auto-merge instead of merging immediately.",
				autoMergeStrategies...),
			"squash":                      boolProp("Squash the commits into a single commit on merge."),
			"commit_message":              strProp("Custom merge commit message.", 1, maxDescriptionLength),
			"squash_commit_message":       strProp("Custom squash commit message. Applies when squash is true.", 1, maxDescriptionLength),
			"should_remove_source_branch": boolProp("Remove the source branch after merging."),
		}), "sha"),
		Annotations:  destructiveTool("Accept merge request"),
		OutputSchema: tools.OutputSchemaOf[acceptJSON](),
		Toolset:      models.ToolsetMergeRequests,
		Edition:      models.EditionCE,
		Source:       "app/services/mcp/tools/merge_requests/accept_merge_request_tool.rb",
		Target:       mrRefTargetOf[acceptMRArgs](g),
		Run:          tools.Typed(t.run),
	}
}

// acceptMRTool is accept_merge_request with what it needs: the links it
// answers with, the transactions it merges in, git, and the settler
// that finishes a merge a crash left half done.
type acceptMRTool struct {
	links   links
	inTx    InTx
	git     mrGit
	settler mergeSettler
}

// acceptWriteStore is what a merge writes, in its transaction.
type acceptWriteStore interface {
	LockMergeRequest(ctx context.Context, projectID, iid int64) (*models.MergeRequest, error)
	MergeMergeRequest(ctx context.Context, projectID, iid int64, m models.MergeRequestMerge) (*models.MergeRequest, error)
}

type acceptMRArgs struct {
	mrRefArgs
	SHA                      string  `json:"sha"`
	Strategy                 string  `json:"strategy"`
	Squash                   *bool   `json:"squash"`
	CommitMessage            *string `json:"commit_message"`
	SquashCommitMessage      *string `json:"squash_commit_message"`
	ShouldRemoveSourceBranch *bool   `json:"should_remove_source_branch"`
}

// acceptJSON is accept_merge_request's answer: GitLab's status and
// merge_request_url, and (glmcp, which merges synchronously) the commits
// the merge made.
type acceptJSON struct {
	Status              string  `json:"status"`
	MergeRequestURL     string  `json:"merge_request_url"`
	MergeCommitSHA      *string `json:"merge_commit_sha,omitempty"`
	SquashCommitSHA     *string `json:"squash_commit_sha,omitempty"`
	SourceBranchRemoved *bool   `json:"source_branch_removed,omitempty"`
}

// notMergeable is GitLab's refusal of a merge request that cannot be
// merged, with the reason.
func notMergeable(format string, args ...any) error {
	return invalidf("This branch cannot be merged: "+format, args...)
}

func (t acceptMRTool) run(ctx context.Context, call *tools.Call, args acceptMRArgs) (*tools.Result, error) {
	if err := t.git.storeMissing(); err != nil {
		return nil, err
	}
	u, err := callerOf(call)
	if err != nil {
		return nil, err
	}
	// A merge that reached git but not the store is finished now.
	pa, mr, mergedMeanwhile, err := t.settler.settledTarget(ctx, call)
	if err != nil {
		return nil, err
	}
	if mergedMeanwhile {
		// Open when this call read it, merged by another accept that was
		// running meanwhile (whose record the settler found and waited
		// for): GitLab answers already_merged only to a call that reads
		// the merge request merged, so this one overlapped the winner and
		// is told it lost, as one that reaches the row lock below after
		// the winner is.
		return nil, conflictf("merge request !%d was merged by another request meanwhile; nothing more was merged", mr.IID)
	}
	p := pa.project
	url := t.links.projectURL(p) + "/-/merge_requests/" + strconv.FormatInt(mr.IID, 10)
	if mr.State == models.MergeRequestMerged {
		return jsonResult(acceptJSON{Status: "already_merged", MergeRequestURL: url})
	}
	if err := canPush(u, p, pa.level, mr.TargetBranch); err != nil {
		if !access.CanCreateMergeRequest(u, p, pa.level) {
			return nil, forbiddenf("you need at least the Developer role in project %s to merge merge requests", p.PathWithNamespace)
		}
		return nil, forbiddenf("you are not allowed to merge into the protected branch '%s'; it needs the Maintainer role", mr.TargetBranch)
	}
	switch {
	case args.Strategy != "":
		return nil, invalidf("strategy: auto-merge is not available on this instance (it runs no pipelines to wait for); " +
			"omit strategy to merge immediately")
	case mr.State != models.MergeRequestOpened:
		return nil, notMergeable("merge request !%d is %s; reopen it first", mr.IID, mr.State)
	case mr.Draft:
		return nil, notMergeable("merge request !%d is a draft; mark it as ready first", mr.IID)
	}
	squash := mr.Squash
	if args.Squash != nil {
		squash = *args.Squash
	}
	if args.SquashCommitMessage != nil && !squash {
		return nil, invalidf("squash_commit_message applies only when squash is true")
	}
	removeSource := mr.ForceRemoveSourceBranch
	if args.ShouldRemoveSourceBranch != nil {
		removeSource = *args.ShouldRemoveSourceBranch
	}
	repo, err := t.git.open(ctx, p)
	if err != nil {
		return nil, err
	}
	defer repo.Close()

	var merged *repository.MergeResult
	// The merge is recorded beside the repository before the target
	// moves, and the record dropped once the store has it: a crash in
	// between is finished by the next read (see mergeSettler.settle).
	intents, moved := t.settler.intents, false
	err = t.inTx(ctx, func(tx Families) error {
		st := acceptWriteStore(tx.MergeRequests)
		// The row lock makes concurrent accepts of one merge request take
		// turns; git's compare-and-swap of the target branch makes sure
		// one merge only is ever made, whatever the store.
		locked, err := st.LockMergeRequest(ctx, p.ID, mr.IID)
		if err != nil {
			return err
		}
		if locked.State != models.MergeRequestOpened {
			return conflictf("merge request !%d was %s by another request meanwhile; nothing more was merged", mr.IID, locked.State)
		}
		cmp, err := compareMR(ctx, repo, locked, repository.CompareOptions{SkipDiffs: true, MaxCommits: 1})
		if err != nil {
			return err
		}
		if !strings.EqualFold(strings.TrimSpace(args.SHA), cmp.HeadSHA) {
			return invalidf("The merge-head is not at the anticipated SHA: merge request !%d's head is %s, not %s. "+
				"Read it again (get_merge_request diffHeadSha), review what changed, and pass the current sha",
				mr.IID, cmp.HeadSHA, args.SHA)
		}
		if cmp.MergeBaseSHA == cmp.HeadSHA {
			return notMergeable("the source branch '%s' has no changes that are not in '%s' already", locked.SourceBranch, locked.TargetBranch)
		}
		req := repository.MergeRequest{Source: branchRef(locked.SourceBranch), Target: locked.TargetBranch,
			ExpectedSourceSHA: cmp.HeadSHA, ExpectedTargetSHA: cmp.BaseSHA, Squash: squash,
			Method:  mergeMethod(p.MergeMethod),
			Message: strOr(args.CommitMessage), SquashMessage: strOr(args.SquashCommitMessage),
			Author: repository.Signature{Name: u.Name, Email: u.Email}}
		if req.Message == "" {
			req.Message = defaultMergeMessage(p, locked)
		}
		if squash && req.SquashMessage == "" {
			req.SquashMessage = locked.Title
		}
		record := func(res *repository.MergeResult) models.MergeRequestMerge {
			rec := models.MergeRequestMerge{HeadSHA: cmp.HeadSHA, DiffBaseSHA: res.MergeBase, SquashCommitSHA: res.SquashID,
				MergeUserID: u.ID, Squash: squash, RemoveSourceBranch: args.ShouldRemoveSourceBranch}
			if !res.FastForward {
				rec.MergeCommitSHA = res.CommitID
			}
			return rec
		}
		if intents != nil {
			req.BeforeMove = func(res *repository.MergeResult) error {
				data, err := json.Marshal(mergeIntent{Target: locked.TargetBranch, NewHead: res.CommitID, Merge: record(res)})
				if err != nil {
					return err
				}
				return intents.WriteMergeIntent(p.ID, mr.IID, data)
			}
		}
		merged, err = repo.Merge(ctx, req)
		if err != nil {
			return mergeError(locked, err)
		}
		moved = true
		_, err = st.MergeMergeRequest(ctx, p.ID, mr.IID, record(merged))
		return err
	})
	if intents != nil && (err == nil || !moved) {
		// Kept only when git has the merge and the store may not.
		_ = intents.RemoveMergeIntent(p.ID, mr.IID)
	}
	if err != nil {
		return nil, err
	}
	out := acceptJSON{Status: "merged", MergeRequestURL: url}
	if !merged.FastForward {
		out.MergeCommitSHA = &merged.CommitID
	}
	if merged.SquashID != "" {
		out.SquashCommitSHA = &merged.SquashID
	}
	if removeSource && mr.SourceBranch != p.DefaultBranch {
		removed := repo.DeleteBranch(ctx, mr.SourceBranch, "") == nil
		out.SourceBranchRemoved = &removed
	}
	return jsonResult(out)
}

func strOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// mergeMethod maps GitLab's project merge method to the repository's.
func mergeMethod(m string) string {
	switch m {
	case models.MergeMethodFastForward:
		return repository.MergeMethodFastForward
	case models.MergeMethodRebaseMerge:
		return repository.MergeMethodRebaseMerge
	}
	return repository.MergeMethodMerge
}

// defaultMergeMessage is GitLab's default merge commit message.
func defaultMergeMessage(p *models.Project, mr *models.MergeRequest) string {
	return fmt.Sprintf("Merge branch '%s' into '%s'\n\n%s\n\nSee merge request %s!%d", mr.SourceBranch, mr.TargetBranch,
		mr.Title, p.PathWithNamespace, mr.IID)
}

// mergeError words a refused merge for the caller; nothing was written.
func mergeError(mr *models.MergeRequest, err error) error {
	var ce *repository.ConflictError
	switch {
	case errors.As(err, &ce):
		paths := make([]string, len(ce.Conflicts))
		for i, c := range ce.Conflicts {
			paths[i] = c.Path
		}
		return &kindError{msg: fmt.Sprintf("This branch cannot be merged: merge conflicts in %s. "+
			"get_merge_request with include [\"conflicts\"] shows them; resolve them on the source branch and try again",
			strings.Join(paths, ", ")), kind: models.ErrConflict}
	case errors.Is(err, models.ErrConflict):
		return conflictf("merge request !%d was not merged: %s. Nothing was changed; read the merge request again and retry",
			mr.IID, trimSentinel(err))
	case errors.Is(err, models.ErrInvalidInput):
		return notMergeable("%s", trimSentinel(err))
	case errors.Is(err, models.ErrNotFound):
		return &kindError{msg: trimSentinel(err), kind: models.ErrNotFound}
	}
	return err
}
