package gitlab

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"gitlab.com/glmcp/glmcp/internal/cursor"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/tools"
)

type getCommitArgs struct {
	repoTarget
	CommitSHA  string   `json:"commit_sha"`
	Include    []string `json:"include"`
	DiffDetail string   `json:"diff_detail"`
	NotesAfter string   `json:"notes_after"`
	NotesFirst intArg   `json:"notes_first"`
}

// commitDetailJSON is get_commit's commit: GitLab's GraphQL Commit fields
// the tool selects, and the requested facet.
type commitDetailJSON struct {
	commitNodeJSON
	FullTitle        string         `json:"fullTitle"`
	Description      string         `json:"description"`
	Author           *plainUserJSON `json:"author"`
	DiffStatsSummary *diffSummary   `json:"diffStatsSummary,omitempty"`
	DiffStats        []fileStatJSON `json:"diffStats,omitempty"`
	Diffs            []obj          `json:"diffs,omitempty"`
	Notes            *notesConnJSON `json:"notes,omitempty"`
}

type notesConnJSON struct {
	PageInfo graphPageInfoJSON `json:"pageInfo"`
	Count    int               `json:"count"`
	Nodes    []obj             `json:"nodes"`
}

// getCommit is GitLab 19.5's get_commit: one commit's metadata and,
// optionally, its diff (stats or patch) or notes.
func getCommit(g *gitlab) tools.Definition {
	var t getCommitTool
	if !noStore(g.store) {
		t = getCommitTool{users: g.store.Users, repo: newRepoOpener(g), cursors: g.cursors}
	}
	props := repoProps("GitLab URL of the commit. Provide this, or project_id and commit_sha.",
		"ID or path of the project. Required if url is not provided.")
	props["commit_sha"] = strProp("Commit to look up. Accepts a full or short SHA, branch name, or tag name. "+
		"Required if url is not provided.", 0, 1024)
	props["include"] = withDesc(obj{"type": "array", "items": obj{"type": "string", "enum": []string{"diff", "notes"}}, "maxItems": 1},
		`Associated facet to fetch inline, one per call. "diff" returns the commit diff (bounded by diff_detail); `+
			`"notes" returns the commit notes (paginated with notes_after/notes_first).`)
	props["diff_detail"] = enumProp(`Level of diff detail to return. Applies only when "diff" is in include. "stats" `+
		`returns per-file and summary line counts; "full_patch" returns the patch text. Defaults to "stats".`, "stats", "full_patch")
	props["notes_after"] = strProp(`Cursor for forward pagination of notes. Use endCursor from a previous response. `+
		`Applies only when "notes" is in include.`, 0, 256)
	props["notes_first"] = withDesc(obj{"type": "integer", "minimum": 1, "maximum": 100},
		`Number of notes to return after the cursor (max 100). Applies only when "notes" is in include.`)
	return tools.Definition{
		Name:  "get_commit",
		Title: "Get commit",
		Description: "Get a single commit's metadata, optionally including its diff or notes. " +
			"Identify the commit with either url, or project_id and commit_sha.",
		InputSchema:  argsSchema(t.run, props),
		OutputSchema: tools.OutputSchemaOf[commitDetailJSON](),
		Annotations:  readOnlyTool("Get commit"),
		Toolset:      models.ToolsetRepository,
		Edition:      models.EditionCE,
		Source:       "app/services/mcp/tools/commits/get_commit_tool.rb",
		Target:       g.repoProject("project_id", urlOrID, func(string) error { return errProjectInaccessible }),
		Run:          tools.Typed(t.run),
	}
}

// getCommitStore is what get_commit reads from the store: the user a
// commit's author email belongs to.
type getCommitStore interface {
	FindUserByEmail(ctx context.Context, email string) (*models.User, error)
}

// getCommitTool is get_commit with what it needs: the commit's author
// among the users, the project's repository and the signer of its notes
// cursors.
type getCommitTool struct {
	users   getCommitStore // nil: no store (a catalog built without one)
	repo    repoOpener
	cursors *cursor.Signer
}

func (t getCommitTool) run(ctx context.Context, call *tools.Call, args getCommitArgs) (*tools.Result, error) {
	hasURL := strings.TrimSpace(args.URL) != ""
	switch {
	case hasURL && (args.ProjectID != "" || args.CommitSHA != ""):
		return nil, invalidf("Provide either url, or project_id and commit_sha, not both")
	case !hasURL && (args.ProjectID == "" || args.CommitSHA == ""):
		return nil, invalidf("Provide either url, or project_id and commit_sha")
	}
	facet := ""
	if len(args.Include) > 0 {
		facet = args.Include[0]
	}
	switch {
	case args.DiffDetail != "" && facet != "diff":
		return nil, invalidf(`diff_detail applies only when include is ["diff"]`)
	case (args.NotesAfter != "" || args.NotesFirst != 0) && facet != "notes":
		return nil, invalidf(`notes_after and notes_first apply only when include is ["notes"]`)
	}
	if t.users == nil {
		return nil, errNoStore
	}
	ra, err := t.repo.open(ctx, call, args.repoTarget)
	if err != nil {
		return nil, err
	}
	defer ra.Close()
	rev := args.CommitSHA
	if hasURL {
		var ok bool
		if rev, ok = strings.CutPrefix(ra.rest, "commit/"); !ok || rev == "" || strings.Contains(rev, "/") {
			return nil, invalidf("Invalid commit URL: %s", args.URL)
		}
	}
	c, err := ra.repo.Commit(ctx, rev)
	if err != nil {
		if isNotFoundOrInvalid(err) {
			return nil, &kindError{msg: "Commit not found or inaccessible", kind: models.ErrNotFound}
		}
		return nil, err
	}
	// The diff is git's process and the author a store query: neither
	// waits for the other (the repository is not read meanwhile).
	var diffs []repository.FileDiff
	var diffErr error
	var diffDone chan struct{}
	if facet == "diff" {
		diffDone = make(chan struct{})
		go func() {
			defer close(diffDone)
			diffs, diffErr = ra.repo.CommitDiff(ctx, c.ID, repository.CompareOptions{})
		}()
		defer func() { <-diffDone }() // the diff ends before ra.Close
	}
	p := ra.pa.project
	fullTitle, description, _ := strings.Cut(strings.TrimRight(c.Message, "\n"), "\n")
	out := commitDetailJSON{commitNodeJSON: t.repo.links.commitNode(p, c), FullTitle: strings.TrimSpace(fullTitle),
		Description: strings.TrimLeft(description, "\n")}
	if u, err := t.users.FindUserByEmail(ctx, c.Author.Email); err == nil {
		out.Author = t.repo.links.gqlUser(u)
	}
	switch facet {
	case "diff":
		detail := args.DiffDetail
		if detail == "" {
			detail = "stats"
		}
		<-diffDone
		if diffErr != nil {
			return nil, repoError(diffErr)
		}
		if detail == "stats" {
			sum := &diffSummary{FileCount: len(diffs)}
			out.DiffStats = []fileStatJSON{}
			for _, d := range diffs {
				sum.Additions += d.Additions
				sum.Deletions += d.Deletions
				out.DiffStats = append(out.DiffStats, fileStatJSON{Path: d.NewPath, Additions: d.Additions, Deletions: d.Deletions})
			}
			sum.Changes = sum.Additions + sum.Deletions
			out.DiffStatsSummary = sum
			break
		}
		out.Diffs = []obj{}
		for _, d := range diffs {
			out.Diffs = append(out.Diffs, obj{"oldPath": d.OldPath, "newPath": d.NewPath, "diff": d.Diff, "newFile": d.NewFile,
				"deletedFile": d.DeletedFile, "renamedFile": d.RenamedFile, "collapsed": d.TooLarge, "tooLarge": d.TooLarge})
		}
	case "notes":
		// glmcp keeps no notes on commits: an empty, well-formed page (a
		// cursor is still checked, so a foreign one is refused).
		pages := newPager(t.cursors, call, "get_commit", "commit:"+strconv.FormatInt(p.ID, 10)+":"+c.ID, nil)
		if _, err := pages.open("notes_after", args.NotesAfter); err != nil {
			return nil, err
		}
		out.Notes = &notesConnJSON{Nodes: []obj{}}
	}
	return jsonResult(out)
}

// isNotFoundOrInvalid reports a ref that does not name a commit.
func isNotFoundOrInvalid(err error) bool {
	return errors.Is(err, models.ErrNotFound) || errors.Is(err, models.ErrInvalidInput)
}
