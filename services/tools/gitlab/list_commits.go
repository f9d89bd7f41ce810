package gitlab

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"gitlab.com/glmcp/glmcp/internal/cursor"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// Pages of list_commits (GitLab's: 20 by default, at most 100, at most 10
// with stats).
const (
	commitsDefaultFirst = 20
	commitsMaxFirst     = 100
	commitsStatsMax     = 10
)

type listCommitsArgs struct {
	repoTarget
	RefName     string  `json:"ref_name"`
	Author      string  `json:"author"`
	Path        string  `json:"path"`
	Since       string  `json:"since"`
	Until       string  `json:"until"`
	Order       string  `json:"order"`
	FirstParent bool    `json:"first_parent"`
	WithStats   bool    `json:"with_stats"`
	After       string  `json:"after"`
	First       *intArg `json:"first"`
}

type commitsJSON struct {
	Nodes    []commitNodeJSON  `json:"nodes"`
	PageInfo graphPageInfoJSON `json:"pageInfo"`
}

// commitsPosition is where a list_commits cursor continues: the commit the
// first page resolved the ref to, and how many of the commits the filters
// choose from it were already listed. Later pages walk from Head, not from
// the ref, so commits pushed (or a branch moved) between pages neither
// repeat nor skip commits: page 2 is what it was when page 1 was computed.
type commitsPosition struct {
	Head   string `json:"h"`
	Offset int    `json:"o"`
}

func listCommits(g *gitlab) tools.Definition {
	t := listCommitsTool{repo: newRepoOpener(g), cursors: g.cursors}
	props := repoProps("GitLab URL of the project.", "ID or full path of the project.")
	props["ref_name"] = strProp("Branch or tag to list commits from. Defaults to the project default branch.", 0, 1024)
	props["author"] = strProp("Filter by commit author name or email.", 0, 255)
	props["path"] = strProp("Only return commits that touch this file path.", 0, 4096)
	props["since"] = strProp("Only return commits with a committed date after this ISO 8601 date or time.", 0, 64)
	props["until"] = strProp("Only return commits with a committed date before this ISO 8601 date or time.", 0, 64)
	props["order"] = enumProp("Ordering strategy. Defaults to reverse chronological when omitted.", "topo", "date")
	props["first_parent"] = boolProp("Follow only the first parent of merge commits.")
	props["with_stats"] = boolProp("Include per-commit line-count stats (additions, deletions, files changed). " +
		"The page is capped at 10 when set: first defaults to 10 and must not exceed 10.")
	props["after"] = strProp("Cursor for forward pagination. Use endCursor from the previous response.", 0, 256)
	props["first"] = withDesc(obj{"type": "integer", "minimum": 1, "maximum": commitsMaxFirst},
		"Number of commits to return (forward pagination, max 100). A maximum of 10 applies when with_stats is set.")
	return tools.Definition{
		Name:  "list_commits",
		Title: "List commits",
		Description: "List commits in a GitLab project, filtered by ref, author, path, or date. " +
			"Identify the project with exactly one of url or project_id. Returns compact commit " +
			"metadata; use get_commit for a single commit's diff or notes.",
		InputSchema:  argsSchema(t.run, props),
		OutputSchema: tools.OutputSchemaOf[commitsJSON](),
		Annotations:  readOnlyTool("List commits"),
		Toolset:      models.ToolsetRepository,
		Edition:      models.EditionCE,
		Source:       "app/services/mcp/tools/commits/list_commits_tool.rb",
		Target:       g.repoProject("project_id", urlOrID, func(string) error { return errProjectInaccessible }),
		Run:          tools.Typed(t.run),
	}
}

// parseAPITime accepts an ISO 8601 date or date-time.
func parseAPITime(field, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, invalidf("%s: %q is not an ISO 8601 date or time", field, s)
}

// listCommitsTool is list_commits with what it needs: the project's
// repository and the signer of its cursors.
type listCommitsTool struct {
	repo    repoOpener
	cursors *cursor.Signer
}

func (t listCommitsTool) run(ctx context.Context, call *tools.Call, args listCommitsArgs) (*tools.Result, error) {
	first := commitsDefaultFirst
	if args.WithStats {
		first = commitsStatsMax
	}
	if args.First != nil {
		first = int(*args.First)
	}
	if args.WithStats && first > commitsStatsMax {
		return nil, invalidf("with_stats can be requested for at most %d commits per page; set first to %d or less.", commitsStatsMax, commitsStatsMax)
	}
	since, err := parseAPITime("since", args.Since)
	if err != nil {
		return nil, err
	}
	until, err := parseAPITime("until", args.Until)
	if err != nil {
		return nil, err
	}
	ra, err := t.repo.open(ctx, call, args.repoTarget)
	if err != nil {
		return nil, err
	}
	defer ra.Close()
	// The list is the commits the filters choose; first and with_stats
	// only shape the page.
	filters := args
	filters.repoTarget, filters.After, filters.First, filters.WithStats = repoTarget{}, "", nil, false
	pages := newPager(t.cursors, call, "list_commits", "project:"+strconv.FormatInt(ra.pa.project.ID, 10), filters)
	var pos commitsPosition
	if args.After != "" {
		if err := pages.openJSON("after", args.After, &pos); err != nil {
			return nil, err
		}
		if !repository.IsFullHash(pos.Head) || pos.Offset < 0 {
			return nil, pages.refuse("after", args.After, nil)
		}
	}
	ref := args.RefName
	if ref == "" {
		ref = ra.pa.project.DefaultBranch
	}
	out := commitsJSON{Nodes: []commitNodeJSON{}}
	if pos.Head == "" {
		// The first page fixes the head every later page walks from (a
		// cursor is only minted from a repository with commits).
		head, err := ra.repo.Commit(ctx, ref)
		if err != nil {
			if errors.Is(err, models.ErrNotFound) || errors.Is(err, models.ErrInvalidInput) {
				// Only a ref that does not resolve asks whether the
				// repository is empty: an empty one has no commits to
				// list, whatever the ref.
				branches, berr := ra.repo.Branches(ctx)
				if berr != nil {
					return nil, berr
				}
				if len(branches) == 0 {
					return jsonResult(out)
				}
				return nil, refNotFound(ref)
			}
			return nil, repoError(err)
		}
		pos.Head = head.ID
	}
	page, err := ra.repo.Log(ctx, repository.LogOptions{Ref: pos.Head, Path: strings.TrimLeft(args.Path, "/"), Author: args.Author,
		Since: since, Until: until, FirstParent: args.FirstParent, Offset: pos.Offset, Limit: first})
	if err != nil {
		if errors.Is(err, models.ErrNotFound) && args.After != "" {
			// The cursor's head is gone (history rewritten and collected).
			return nil, invalidf("after: the commit this listing started from (%s) is no longer in the repository; list again without after", pos.Head[:12])
		}
		return nil, repoError(err)
	}
	for i := range page.Commits {
		c := &page.Commits[i]
		n := t.repo.links.commitNode(ra.pa.project, c)
		if args.WithStats {
			diffs, err := ra.repo.CommitDiff(ctx, c.ID, repository.CompareOptions{})
			if err != nil {
				return nil, err
			}
			s := &diffStatsJSON{FileCount: len(diffs)}
			for _, d := range diffs {
				s.Additions += d.Additions
				s.Deletions += d.Deletions
			}
			n.DiffStatsSummary = s
		}
		out.Nodes = append(out.Nodes, n)
	}
	if page.More {
		c, err := pages.mintJSON(commitsPosition{Head: pos.Head, Offset: pos.Offset + len(page.Commits)})
		if err != nil {
			return nil, err
		}
		out.PageInfo = graphPageInfoJSON{HasNextPage: true, EndCursor: &c}
	}
	return jsonResult(out)
}
