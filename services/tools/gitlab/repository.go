package gitlab

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// Repositories opens a project's git repository; *repository.Storage
// satisfies it. The repository tools use nothing but repository.Repository,
// and fork_repository CreateFork and Remove.
type Repositories interface {
	Repository(ctx context.Context, projectID int64) (repository.Repository, error)
	// CreateFork fills project targetID's repository with project
	// sourceID's branches and tags (only branch, when set) at the same
	// commits (Gitaly's CreateFork).
	CreateFork(ctx context.Context, sourceID, targetID int64, branch string) (*repository.ImportResult, error)
	// Remove deletes project id's repository (undoing a fork that failed).
	Remove(projectID int64) error
}

// errNoRepositories is a server failure: the catalog was built without
// repositories.
var errNoRepositories = errors.New("the git repositories are not configured")

// repoTarget is a repository tool's project: given as project_id or as a
// GitLab URL, never both (GitLab's rule).
type repoTarget struct {
	URL       string `json:"url"`
	ProjectID refArg `json:"project_id"`
}

// repoProps are the url and project_id properties of the repository tools.
func repoProps(urlDesc, idDesc string) obj {
	return obj{
		"url":        strProp(urlDesc, 0, 2048),
		"project_id": strProp(idDesc, 0, 1024),
	}
}

// repoAccess is a resolved repository tool call: the caller, the project
// with the caller's role, and its open repository (close it).
type repoAccess struct {
	user *models.User
	pa   *projectAccess
	repo repository.Repository
	// rest is what followed "/-/" in the url (e.g. "blob/main/README.md").
	rest string
}

func (r *repoAccess) Close() {
	if r.repo != nil {
		r.repo.Close()
	}
}

// repoProject declares a repository tool's project (ability ReadCode),
// named by argument arg or, as byURL says, a url (urlOrArg). missing is
// the tool's answer, in GitLab's words, for a project that is not there,
// hidden, or whose code the caller may not read; it gets the project_id
// or the url's project path.
func (g *gitlab) repoProject(arg string, byURL repoURL, missing func(ident string) error) *tools.Target {
	return g.namedProject(access.ReadCode, g.urlOrArg(arg, byURL, nil), missing, nil)
}

// repoURL is how a tool reads its url argument beside its project
// argument.
type repoURL int

const (
	noURL   repoURL = iota // the tool has no url: only the project argument
	urlOrID                // exactly one of url and the project argument
	urlWins                // either; both given, the url names the project
)

// urlOrArg names the project of a url (its path before "/-/") or of
// argument arg, as byURL says; badURL, when set, is the tool's answer to
// a url naming no project (nil: parseProjectURL's).
func (g *gitlab) urlOrArg(arg string, byURL repoURL, badURL error) projectName {
	return func(call *tools.Call) (string, refArg, error) {
		var rt repoTarget
		if err := decodeArg(call, arg, &rt.ProjectID); err != nil {
			return "", "", err
		}
		if byURL != noURL {
			if err := decodeArg(call, "url", &rt.URL); err != nil {
				return "", "", err
			}
		}
		if byURL == urlWins && rt.URL != "" {
			rt.ProjectID = ""
		}
		hasURL, hasID := strings.TrimSpace(rt.URL) != "", strings.TrimSpace(string(rt.ProjectID)) != ""
		if hasURL == hasID {
			return "", "", invalidf("Provide exactly one of: url or project_id")
		}
		if !hasURL {
			return "project_id", rt.ProjectID, nil
		}
		path, _, err := g.links.parseProjectURL(rt.URL)
		if err != nil && badURL != nil {
			err = badURL
		}
		return "project_id", refArg(path), err
	}
}

// repoSource opens a project's git repository: the half of Repositories
// the reading tools use.
type repoSource interface {
	Repository(ctx context.Context, projectID int64) (repository.Repository, error)
}

// repoOpener is what every repository tool holds to reach its project's
// repository: the repositories and the instance URL its url argument is
// read against.
type repoOpener struct {
	repos repoSource // nil: no repositories configured
	links links
}

// newRepoOpener is g's repoOpener.
func newRepoOpener(g *gitlab) repoOpener {
	return repoOpener{repos: g.repos, links: g.links}
}

// open opens the repository of the project the service resolved for call
// (its Definition's repoProject), or returns the tool-level failure of
// that resolution; t is the call's url and project_id, read for what
// follows "/-/" in the url. A catalog built without a store never gets
// here: the Target's resolution fails first.
func (o repoOpener) open(ctx context.Context, call *tools.Call, t repoTarget) (*repoAccess, error) {
	u, err := callerOf(call)
	if err != nil {
		return nil, err
	}
	if o.repos == nil {
		return nil, errNoRepositories
	}
	pa, err := targetProject(call)
	if err != nil {
		return nil, err
	}
	ra := &repoAccess{user: u, pa: pa}
	if strings.TrimSpace(t.URL) != "" {
		if _, ra.rest, err = o.links.parseProjectURL(t.URL); err != nil {
			return nil, err
		}
	}
	if ra.repo, err = openProjectRepository(ctx, o.repos, pa.project); err != nil {
		return nil, err
	}
	return ra, nil
}

// openProjectRepository opens project p's repository; a missing one is
// GitLab's "404 Repository Not Found" (the storage's own text names
// internal ids).
func openProjectRepository(ctx context.Context, repos repoSource, p *models.Project) (repository.Repository, error) {
	if repos == nil {
		return nil, errNoRepositories
	}
	repo, err := repos.Repository(ctx, p.ID)
	if errors.Is(err, models.ErrNotFound) {
		return nil, notFound("Repository")
	}
	if err != nil {
		return nil, fmt.Errorf("repository of %s: %w", p.PathWithNamespace, err)
	}
	return repo, nil
}

// parseProjectURL returns the project path of a GitLab URL on this
// instance and what follows "/-/" in it.
func (l links) parseProjectURL(raw string) (string, string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Path == "" {
		return "", "", invalidf("url %q is not a GitLab URL", raw)
	}
	if l.base != "" {
		if b, err := url.Parse(l.base); err == nil && b.Host != "" && u.Host != "" && !strings.EqualFold(b.Host, u.Host) {
			return "", "", invalidf("url %q is not on this GitLab instance (%s)", raw, b.Host)
		}
	}
	p := strings.Trim(u.Path, "/")
	project, rest, _ := strings.Cut(p, "/-/")
	if strings.Count(project, "/") < 1 {
		return "", "", invalidf("url %q does not name a project", raw)
	}
	rest, err = url.PathUnescape(rest)
	if err != nil {
		return "", "", invalidf("url %q is not a valid URL", raw)
	}
	return project, rest, nil
}

// refNotFound is GitLab's message for a ref that does not resolve.
func refNotFound(ref string) error {
	return &kindError{msg: fmt.Sprintf("Ref '%s' not found. Provide an existing branch name, tag name, or commit SHA, "+
		"or use HEAD for the default branch.", ref), kind: models.ErrNotFound}
}

// repoError turns a repository failure into a tool error with the
// repository's own words (it names the path or ref); server failures pass
// through.
func repoError(err error) error {
	var ce *repository.ConflictError
	switch {
	case models.IsStorageFull(err):
		return err // "Insufficient storage", without the system's text
	case errors.As(err, &ce):
		return conflictf("%s", ce.Error())
	case errors.Is(err, models.ErrInvalidInput):
		return invalidf("%s", trimSentinel(err))
	case errors.Is(err, models.ErrConflict):
		return conflictf("%s", trimSentinel(err))
	case errors.Is(err, models.ErrNotFound):
		// No kind prefix says "not found" here, so the words stay:
		// `start branch "x": not found`, not `Start branch "x"`.
		return &kindError{msg: err.Error(), kind: models.ErrNotFound}
	}
	return err
}

// trimSentinel drops the ": invalid input" (…) suffix the sentinel adds
// (tools.WithoutKind, as the tool service does for every error result).
func trimSentinel(err error) string {
	return tools.WithoutKind(err.Error(), models.ErrInvalidInput, models.ErrConflict, models.ErrNotFound)
}

// canPush applies GitLab's push rule: Developer or above, and Maintainer
// for a protected branch. The default branch is protected (GitLab's
// default: Maintainers may push, nobody may force-push).
func canPush(u *models.User, p *models.Project, level models.AccessLevel, branch string) error {
	if !access.CanCreateMergeRequest(u, p, level) {
		return forbiddenf("You are not allowed to push into this branch")
	}
	if branch == p.DefaultBranch && !u.Admin && level < models.Maintainer {
		return forbiddenf("You are not allowed to push into the protected branch '%s'; it needs the Maintainer role", branch)
	}
	return nil
}

// commitJSONOf renders a commit in GitLab's REST shape.
func (l links) commitJSONOf(p *models.Project, c *repository.Commit) commitJSON {
	short := c.ID
	if len(short) > 8 {
		short = short[:8]
	}
	parents := c.ParentIDs
	if parents == nil {
		parents = []string{}
	}
	return commitJSON{
		ID: c.ID, ShortID: short, CreatedAt: apiTime(c.Committer.When), ParentIDs: parents,
		Title: c.Title, Message: c.Message, AuthorName: c.Author.Name, AuthorEmail: c.Author.Email,
		AuthoredDate: apiTime(c.Author.When), CommitterName: c.Committer.Name, CommitterEmail: c.Committer.Email,
		CommittedDate: apiTime(c.Committer.When), Trailers: map[string]string{},
		WebURL: l.projectURL(p) + "/-/commit/" + c.ID,
	}
}
