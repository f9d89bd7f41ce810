package gitlab

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/tools"
)

type commitActionArg struct {
	Action          string  `json:"action"`
	FilePath        string  `json:"file_path"`
	Content         *string `json:"content"`
	OldStr          *string `json:"old_str"`
	NewStr          *string `json:"new_str"`
	PreviousPath    string  `json:"previous_path"`
	Encoding        string  `json:"encoding"`
	LastCommitID    string  `json:"last_commit_id"`
	ExecuteFilemode *bool   `json:"execute_filemode"`
}

type addCommitArgs struct {
	repoTarget
	Branch        string            `json:"branch"`
	StartBranch   string            `json:"start_branch"`
	StartSHA      string            `json:"start_sha"`
	StartProject  string            `json:"start_project"`
	CommitMessage string            `json:"commit_message"`
	Actions       []commitActionArg `json:"actions"`
}

type addCommitJSON struct {
	Commit commitNodeJSON `json:"commit"`
	Errors []string       `json:"errors"`
}

// addCommit is GitLab 19.5's add_commit: addCommitTool, which needs the
// project's repository and, for start_project, the projects it was forked
// from.
func addCommit(g *gitlab) tools.Definition {
	var t addCommitTool
	if !noStore(g.store) {
		t = addCommitTool{store: directoryOf(g.store), repo: newRepoOpener(g)}
	}
	props := repoProps("GitLab URL of the project. Provide this or project_id.", "ID or path of the project. Provide this or url.")
	props["branch"] = strProp("Name of the branch to commit into.", 1, 255)
	props["start_branch"] = strProp("Name of the branch from which to create a new branch. Required when branch does not exist yet.", 0, 255)
	props["start_sha"] = strProp("SHA of the commit to start a new branch from. Mutually exclusive with start_branch.", 0, 64)
	props["start_project"] = strProp("Full path of the project to start the commit from. Must be the project itself or a project it was forked from.", 0, 1024)
	props["commit_message"] = strProp("Commit message.", 1, 65536)
	props["actions"] = withDesc(obj{
		"type": "array", "minItems": 1, "maxItems": 100,
		"items": obj{
			"type": "object",
			"properties": obj{
				"action":           enumProp("Action to perform.", "create", "update", "delete", "move", "chmod"),
				"file_path":        strProp("Full path to the file.", 1, 4096),
				"content":          strProp("File content for create, update, or move actions. Mutually exclusive with old_str and new_str.", 0, 0),
				"old_str":          strProp("Existing text to replace in an update action. Requires new_str.", 0, 0),
				"new_str":          strProp("Replacement text for old_str in an update action.", 0, 0),
				"previous_path":    strProp("Original file path for a move action.", 0, 4096),
				"encoding":         enumProp("Encoding of the file content.", "text", "base64"),
				"last_commit_id":   strProp("Last commit that touched the file, used for optimistic concurrency.", 0, 64),
				"execute_filemode": boolProp("Whether the file is executable."),
			},
			"required":             []string{"action", "file_path"},
			"additionalProperties": false,
		},
	}, "File actions to commit as a single batch.")
	return tools.Definition{
		Name:         "add_commit",
		Title:        "Add commit",
		Description:  "Add a commit with one or more file actions to a project branch.",
		InputSchema:  argsSchema(t.run, props, "branch", "commit_message", "actions"),
		Annotations:  models.ToolAnnotations{Title: "Add commit", ReadOnlyHint: false, DestructiveHint: ptr(true)},
		Toolset:      models.ToolsetRepository,
		Edition:      models.EditionCE,
		Source:       "app/services/mcp/tools/repositories/add_commit_tool.rb",
		Aliases:      []string{"create_commit"},
		OutputSchema: tools.OutputSchemaOf[addCommitJSON](),
		Target:       g.repoProject("project_id", urlOrID, func(string) error { return notFound("Project") }),
		Run:          tools.Typed(t.run),
	}
}

// addCommitStore is what add_commit reads from the store: start_project
// and the chain of projects its project was forked from.
type addCommitStore interface {
	projectStore
}

// addCommitTool is add_commit with what it needs.
type addCommitTool struct {
	store addCommitStore // nil: no store (a catalog built without one)
	repo  repoOpener
}

func (t addCommitTool) run(ctx context.Context, call *tools.Call, args addCommitArgs) (*tools.Result, error) {
	if args.StartBranch != "" && args.StartSHA != "" {
		return nil, invalidf("start_branch and start_sha are mutually exclusive")
	}
	actions, err := commitActions(args.Actions)
	if err != nil {
		return nil, err
	}
	if t.store == nil {
		return nil, errNoStore
	}
	ra, err := t.repo.open(ctx, call, args.repoTarget)
	if err != nil {
		return nil, err
	}
	defer ra.Close()
	p := ra.pa.project
	// start_project, when another project, is checked before the push
	// rule (GitLab's order).
	var start *models.Project
	if sp := strings.Trim(args.StartProject, "/"); sp != "" && sp != p.PathWithNamespace && sp != fmt.Sprint(p.ID) {
		if start, err = startProject(ctx, t.store, ra.user, p, sp); err != nil {
			return nil, err
		}
	}
	if err := canPush(ra.user, p, ra.pa.level, args.Branch); err != nil {
		return nil, err
	}
	req := repository.CommitFilesRequest{
		Branch: args.Branch, StartBranch: args.StartBranch, StartSHA: args.StartSHA,
		Message: args.CommitMessage, Actions: actions,
		Author: repository.Signature{Name: ra.user.Name, Email: ra.user.Email},
	}
	if start != nil {
		repo, err := openProjectRepository(ctx, t.repo.repos, start)
		if err != nil {
			return nil, err
		}
		defer repo.Close()
		req.StartRepository = repo
		if req.StartBranch == "" && req.StartSHA == "" {
			// GitLab's default (lib/api/commits.rb): the start project's
			// branch of the same name.
			req.StartBranch = args.Branch
		}
	}
	c, err := ra.repo.CommitFiles(ctx, req)
	if err != nil {
		return nil, repoError(err)
	}
	return jsonResult(addCommitJSON{Commit: t.repo.links.commitNode(p, c), Errors: []string{}})
}

// maxForkDepth bounds the walk up a fork chain (a guard against a cycle
// in the rows; forks of forks are never that deep).
const maxForkDepth = 100

// startProject resolves add_commit's start_project ref when it is not
// literally p: a project p was forked from, directly or further up the
// chain of forked_from_project (GitLab's commits API takes the direct
// source only; glmcp takes every ancestor, as the tool's description
// says). Siblings and forks of p are refused: p's branch must grow from a
// history p's upstream holds. The caller must be able to read its code; a
// project they cannot is missing to them. nil means ref resolved to p
// itself (its id or path written otherwise).
func startProject(ctx context.Context, st addCommitStore, u *models.User, p *models.Project, ref string) (*models.Project, error) {
	spa, err := resolveProject(ctx, st, u, "start_project", refArg(ref))
	if err != nil {
		return nil, err
	}
	src := spa.project
	if src.ID == p.ID {
		return nil, nil
	}
	if !access.CanReadCode(u, src, spa.level) {
		return nil, notFound("Project")
	}
	cur, seen := p, map[int64]bool{p.ID: true}
	for range maxForkDepth {
		if cur.ForkedFromProjectID == nil || seen[*cur.ForkedFromProjectID] {
			break
		}
		up := *cur.ForkedFromProjectID
		if up == src.ID {
			return src, nil
		}
		seen[up] = true
		// An ancestor the caller cannot see still links the chain; only
		// its id is used, never shown.
		next, _, err := st.FindProjectWithRoleByID(ctx, up, u.ID)
		if errors.Is(err, models.ErrNotFound) {
			break
		}
		if err != nil {
			return nil, err
		}
		cur = next
	}
	return nil, invalidf("start_project %s is not in the fork network of %s: it must be the project itself or a project it was forked from",
		src.PathWithNamespace, p.PathWithNamespace)
}

// commitActions checks and converts add_commit's actions, with GitLab's
// rules for partial edits.
func commitActions(in []commitActionArg) ([]repository.Action, error) {
	out := make([]repository.Action, 0, len(in))
	for i, a := range in {
		ra := repository.Action{Action: a.Action, FilePath: a.FilePath, PreviousPath: a.PreviousPath,
			ExecuteFilemode: a.ExecuteFilemode, LastCommitID: a.LastCommitID}
		if a.OldStr != nil || a.NewStr != nil {
			switch {
			case a.Action != repository.ActionUpdate:
				return nil, invalidf("Partial edits are only supported for update actions")
			case a.OldStr == nil || a.NewStr == nil:
				return nil, invalidf("Provide both old_str and new_str for a partial edit")
			case *a.OldStr == "":
				return nil, invalidf("old_str cannot be empty")
			case a.Content != nil:
				return nil, invalidf("Provide either content or old_str and new_str, not both")
			case a.Encoding != "" && a.Encoding != "text":
				return nil, invalidf("Partial edits require text encoding")
			}
			ra.OldStr, ra.NewStr = a.OldStr, a.NewStr
		}
		if a.Content != nil {
			ra.HasContent = true
			ra.Content = []byte(*a.Content)
			if a.Encoding == "base64" {
				b, err := base64.StdEncoding.DecodeString(*a.Content)
				if err != nil {
					return nil, invalidf("actions[%d].content is not valid base64", i)
				}
				ra.Content = b
			}
		}
		if a.Action == repository.ActionMove && a.PreviousPath == "" {
			return nil, invalidf("actions[%d]: a move needs previous_path", i)
		}
		out = append(out, ra)
	}
	return out, nil
}
