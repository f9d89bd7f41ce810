package gitlab

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// forkRepository forks a project: a new project in a group whose
// repository holds the source's branches and tags at the same commits.
// GitLab has no MCP fork tool; this is its REST endpoint POST
// /projects/:id/fork (lib/api/projects.rb, Projects::ForkService) as a
// tool, with its parameters, defaults and errors. glmcp has no personal
// namespaces, so the target is always a group.
func forkRepository(g *gitlab) tools.Definition {
	var t forkRepositoryTool
	if !noStore(g.store) {
		t = forkRepositoryTool{store: &forkRepositoryStore{directory{g.store.Projects, g.store.Groups, g.store.Users}, g.store.Groups}, repos: g.repos, links: g.links, inTx: g.inTx}
	}
	return tools.Definition{
		Name:  "fork_repository",
		Title: "Fork repository",
		Description: "Fork a GitLab project into a group: a new project whose repository shares the source's history " +
			"(every branch and tag at the same commits, or only one branch with branches). The new project is " +
			"returned with forked_from_project.\n\nExamples:\n" +
			"- Use id and namespace_path to fork a project into a group where you have at least the Developer role\n" +
			"- Add path and name to fork into a group that already has a project with the source's path",
		InputSchema: argsSchema(t.run, obj{
			"id":             refProp("The ID or URL-encoded path of the project to fork."),
			"namespace_path": strProp("Full path of the group to fork the project into. Provide this, or namespace_id.", 1, 1024),
			"namespace_id":   withDesc(obj{"type": "integer", "minimum": 1}, "ID of the group to fork the project into. Provide this, or namespace_path."),
			"name":           strProp("Name of the fork. Default: the source project's name.", 1, 255),
			"path":           strProp("Path of the fork in the group. Default: the source project's path.", 1, 255),
			"description":    strProp("Description of the fork. Default: the source project's description.", 0, 2000),
			"visibility": enumProp("Visibility of the fork. It is never more public than the source project or the "+
				"target group: a wider value is lowered to theirs.", visibilityLevels...),
			"branches": strProp("Name of the single branch to fork (it becomes the default branch). Empty: all branches and tags.", 0, 255),
		}, "id"),
		Annotations: models.ToolAnnotations{Title: "Fork repository", ReadOnlyHint: false, DestructiveHint: ptr(false),
			IdempotentHint: ptr(false)},
		OutputSchema: tools.OutputSchemaOf[projectJSON](),
		Toolset:      models.ToolsetRepository,
		Edition:      models.EditionCE,
		Source:       "lib/api/projects.rb",
		// A fork reads the source project and writes into the target
		// group: the Target finds both, and the group's tool rules govern
		// the call, not the source's.
		Target: g.lookupTarget(t.find),
		Run:    tools.Typed(t.run),
	}
}

type forkRepositoryArgs struct {
	ProjectID     refArg  `json:"id"`
	NamespacePath string  `json:"namespace_path"`
	NamespaceID   intArg  `json:"namespace_id"`
	Name          string  `json:"name"`
	Path          string  `json:"path"`
	Description   *string `json:"description"`
	Visibility    string  `json:"visibility"`
	Branches      string  `json:"branches"`
}

// errTargetNamespace is GitLab's answer to a group the caller may not
// create projects in (not_found!('Target Namespace')).
var errTargetNamespace = notFound("Target Namespace")

// forkRepositoryStore is what fork_repository reads: the source project,
// the target group and the caller's role there, the source a fork shows
// (projectJSONOf).
type forkRepositoryStore struct {
	directory
	groupAccess
}

// forkWriteStore is what fork_repository writes, in its transaction.
type forkWriteStore interface {
	CreateProject(ctx context.Context, p *models.Project) error
	SetProjectDefaultBranch(ctx context.Context, id int64, branch string) error
}

// forkRepositoryTool is fork_repository with what it needs: the store, the
// repositories it copies and removes, its transactions and the links its
// answer renders.
type forkRepositoryTool struct {
	store *forkRepositoryStore // nil: no store (a catalog built without one)
	repos Repositories
	links links
	inTx  InTx
}

// forkPlan is what fork_repository's Target finds: a source whose code
// the caller may read and a group they may create projects in.
type forkPlan struct {
	source *models.Project
	group  *models.Group
}

// find checks a fork's arguments, source and target group in GitLab's
// order, with its texts. The group the call names, when the caller can
// see it, is returned whatever else fails: its tool rules govern the call
// (namespace_path's when both are given, as the rules read the arguments
// of a tool without a Target).
func (t forkRepositoryTool) find(ctx context.Context, u *models.User, call *tools.Call) (any, *projectAccess, *models.Group, error) {
	args, err := tools.Args[forkRepositoryArgs](call)
	if err != nil {
		return nil, nil, nil, err
	}
	hasPath, hasID := strings.TrimSpace(args.NamespacePath) != "", args.NamespaceID != 0
	field, ref := "namespace_path", refArg(strings.TrimSpace(args.NamespacePath))
	if !hasPath {
		field, ref = "namespace_id", refArg(fmt.Sprint(int64(args.NamespaceID)))
	}
	var grp *models.Group
	var grpErr error
	if hasPath || hasID {
		grp, grpErr = resolveGroup(ctx, t.store, u, field, ref)
		if grpErr != nil {
			if _, ok := tools.ErrorResult(grpErr); !ok {
				return nil, nil, nil, grpErr // a server failure
			}
		}
	}
	if hasPath == hasID {
		return nil, nil, grp, invalidf("Provide exactly one of: namespace_path or namespace_id (glmcp has no personal namespaces: a fork goes into a group)")
	}
	if args.Branches != "" {
		if err := repository.ValidateBranchName(args.Branches); err != nil {
			return nil, nil, grp, invalidf("branches: %s", trimSentinel(err))
		}
	}
	// The source: the caller must be able to read its code (GitLab's
	// fork_project ability); a hidden project reads as a missing one.
	spa, err := resolveProject(ctx, t.store, u, "id", args.ProjectID)
	if err != nil {
		return nil, nil, grp, err
	}
	if !access.CanReadCode(u, spa.project, spa.level) {
		return nil, nil, grp, notFound("Project")
	}
	// The target group: visible, and the caller may create projects in it
	// (GitLab's default project_creation_level: Developers and above).
	if errors.Is(grpErr, models.ErrNotFound) {
		return nil, nil, grp, notFound("Namespace")
	}
	if grpErr != nil {
		return nil, nil, grp, grpErr
	}
	if !u.Admin {
		level, err := t.store.GroupAccessLevel(ctx, grp.ID, u.ID)
		if err != nil {
			return nil, nil, grp, err
		}
		if level < models.Developer {
			return nil, nil, grp, errTargetNamespace
		}
	}
	return &forkPlan{source: spa.project, group: grp}, nil, grp, nil
}

func (t forkRepositoryTool) run(ctx context.Context, call *tools.Call, args forkRepositoryArgs) (*tools.Result, error) {
	if t.store == nil {
		return nil, errNoStore
	}
	u, err := callerOf(call)
	if err != nil {
		return nil, err
	}
	if t.repos == nil {
		return nil, errNoRepositories
	}
	plan, err := lookedUp[*forkPlan](call)
	if err != nil {
		return nil, err
	}
	src, grp := plan.source, plan.group
	if args.Branches != "" {
		if ok, err := branchExists(ctx, t.repos, src.ID, args.Branches); err != nil {
			return nil, forkError(src, args.Branches, err)
		} else if !ok {
			return nil, notFound("Source Branch")
		}
	}

	p := &models.Project{Name: src.Name, Path: src.Path, NamespaceID: grp.ID, Description: src.Description,
		Visibility:    forkVisibility(src.Visibility, grp.Visibility, models.Visibility(args.Visibility)),
		DefaultBranch: src.DefaultBranch, MergeMethod: src.MergeMethod, ForkedFromProjectID: &src.ID}
	if args.Name != "" {
		p.Name = args.Name
	}
	if args.Path != "" {
		p.Path = args.Path
	}
	if args.Description != nil {
		p.Description = *args.Description
	}
	if args.Branches != "" {
		p.DefaultBranch = args.Branches
	}
	// forked is the new project's id once the transaction's work is done:
	// if the commit then fails, its repository goes too.
	var forked int64
	err = t.inTx(ctx, func(tx Families) (err error) {
		st := forkWriteStore(tx.Projects)
		forked = 0
		if err := st.CreateProject(ctx, p); err != nil {
			var taken *models.TakenError
			switch {
			case errors.As(err, &taken):
				// GitLab's Project validations: the name and the path are
				// each unique in the namespace.
				return conflictf("Failed to fork project: %s", taken.CallerMessage())
			case errors.Is(err, models.ErrConflict):
				return conflictf("Failed to fork project: Name or path has already been taken")
			case errors.Is(err, models.ErrInvalidInput):
				return invalidf("Failed to fork project: %s", trimSentinel(err))
			}
			return err
		}
		defer func() {
			if err != nil {
				// Removed before the rollback, while no other project
				// can have the row's id (SQLite may hand it out again).
				_ = t.repos.Remove(p.ID)
			}
		}()
		res, err := t.repos.CreateFork(ctx, src.ID, p.ID, args.Branches)
		if err != nil {
			return forkError(src, args.Branches, err)
		}
		if res.DefaultBranch != "" && res.DefaultBranch != p.DefaultBranch {
			if err := st.SetProjectDefaultBranch(ctx, p.ID, res.DefaultBranch); err != nil {
				return err
			}
			p.DefaultBranch = res.DefaultBranch
		}
		forked = p.ID
		return nil
	})
	if err != nil {
		if forked > 0 {
			// The commit failed: the row is gone, so is its repository.
			_ = t.repos.Remove(forked)
		}
		return nil, err
	}
	out, err := projectJSONOf(ctx, t.store, t.links, u, p)
	if err != nil {
		return nil, err
	}
	return jsonResult(out)
}

// forkError answers a failure of the source's or the fork's repository
// in GitLab's words, never the repository's own: its text names storage
// paths and git's messages. A missing branch (deleted since the check) or
// source repository reads as missing; anything else (a target repository
// left with refs, a failed copy) is a server failure, its kind dropped so
// that its text stays in the log.
func forkError(src *models.Project, branch string, err error) error {
	switch {
	case models.IsStorageFull(err):
		return err // "Insufficient storage", without the system's text
	case errors.Is(err, models.ErrNotFound) && branch != "":
		return notFound("Source Branch")
	case errors.Is(err, models.ErrNotFound):
		return notFound("Repository")
	}
	return fmt.Errorf("fork the repository of %s: %v", src.PathWithNamespace, err)
}

// branchExists reports whether project id's repository has branch.
func branchExists(ctx context.Context, repos repoSource, projectID int64, branch string) (bool, error) {
	repo, err := repos.Repository(ctx, projectID)
	if err != nil {
		return false, err
	}
	defer repo.Close()
	branches, err := repo.Branches(ctx)
	if err != nil {
		return false, err
	}
	for _, b := range branches {
		if b.Name == branch {
			return true, nil
		}
	}
	return false, nil
}

// forkVisibility is GitLab's visibility of a fork: the least public of the
// source's, the target group's and the requested one (when given).
func forkVisibility(levels ...models.Visibility) models.Visibility {
	rank := map[models.Visibility]int{models.VisibilityPrivate: 0, models.VisibilityInternal: 1, models.VisibilityPublic: 2}
	out := models.VisibilityPublic
	for _, v := range levels {
		if r, ok := rank[v]; ok && r < rank[out] {
			out = v
		}
	}
	return out
}
