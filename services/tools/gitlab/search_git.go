package gitlab

import (
	"context"
	"errors"
	"path"
	"strings"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/repository"
)

// The search scopes that read a project's git repository (the default
// branch), as GitLab's basic search reads it through Gitaly: blobs with
// `git grep` (SearchFilesByContent) and `git ls-tree` (ListFiles), commits
// with `git log --grep` (CommitsByMessage). git bounds what they cost: a
// search takes the time git takes, within the request's deadline.
const (
	// blobSearchFileBytes is how much of a file a blob result shows its
	// match from.
	blobSearchFileBytes = 1 << 20
	// commitSearchCountLimit is how many matching commits past a page's
	// start the commit search reads to count, GitLab's search COUNT_LIMIT:
	// its commit search asks Gitaly for offset + 100 commits and pages
	// (and totals) what came back.
	commitSearchCountLimit = 100
)

// gitSearch is the search scopes that read git: what the search tool
// holds for its blobs and commits scopes.
type gitSearch struct {
	repos repoSource // nil: no repositories configured
	links links
}

// open opens pa's repository for a code search, or returns nil when the
// caller may not read the project's code (a Guest of a private project:
// nothing matches) or the repository has no default branch yet.
func (gs gitSearch) open(ctx context.Context, pa *projectAccess, u *models.User) (repository.Repository, string, error) {
	if !access.CanReadCode(u, pa.project, pa.level) {
		return nil, "", nil
	}
	if gs.repos == nil {
		return nil, "", errNoRepositories
	}
	repo, err := openProjectRepository(ctx, gs.repos, pa.project)
	if err != nil {
		return nil, "", err
	}
	c, err := repo.Commit(ctx, pa.project.DefaultBranch)
	if errors.Is(err, models.ErrNotFound) { // an empty repository
		repo.Close()
		return nil, "", nil
	}
	if err != nil {
		repo.Close()
		return nil, "", err
	}
	return repo, c.ID, nil
}

// blobs searches the paths and contents of the files on the default
// branch of pa's project, in the repository's tree order: the file list
// and git grep's matches run side by side.
func (gs gitSearch) blobs(ctx context.Context, pa *projectAccess, q models.SearchQuery) ([]any, int64, error) {
	items := []any{}
	repo, sha, err := gs.open(ctx, pa, q.Viewer)
	if err != nil || repo == nil {
		return items, 0, err
	}
	defer repo.Close()
	term := strings.ToLower(q.Term)
	var contentHits []string
	grepped := make(chan error, 1)
	if term == "" {
		grepped <- nil
	} else {
		go func() {
			var err error
			contentHits, err = repo.GrepFiles(ctx, sha, q.Term)
			grepped <- err
		}()
	}
	files, err := repo.ListFiles(ctx, sha)
	if gerr := <-grepped; err == nil {
		err = gerr
	}
	if err != nil {
		return nil, 0, err
	}
	inContent := make(map[string]bool, len(contentHits))
	for _, p := range contentHits {
		inContent[p] = true
	}
	var total int64
	for _, p := range files {
		if !blobFiltersMatch(p, q) {
			continue
		}
		if term != "" && !inContent[p] && !strings.Contains(strings.ToLower(p), term) {
			continue
		}
		if int(total) >= q.Offset && int(total) < q.Offset+q.Limit {
			file := models.RepositoryFile{ProjectID: pa.project.ID, Ref: pa.project.DefaultBranch, FilePath: p}
			b, err := repo.Blob(ctx, sha, p, repository.BlobOptions{MaxBytes: blobSearchFileBytes})
			switch {
			case errors.Is(err, models.ErrInvalidInput): // a binary file too large to read: its path only
			case err != nil:
				return nil, 0, err
			case !b.Binary:
				file.Content = string(b.Content)
			}
			items = append(items, blobResult(file, q.Term))
		}
		total++
	}
	return items, total, nil
}

// blobFiltersMatch applies GitLab's filename:, extension: and path:
// filters (case-insensitive; "*" in filename: is a wildcard).
func blobFiltersMatch(p string, q models.SearchQuery) bool {
	lp := strings.ToLower(p)
	if q.Filename != "" {
		pat := strings.ToLower(q.Filename)
		if !wildcardMatch(pat, lp) && !wildcardMatch(pat, path.Base(lp)) {
			return false
		}
	}
	if q.Extension != "" && !strings.HasSuffix(lp, "."+strings.ToLower(q.Extension)) {
		return false
	}
	if q.Path != "" && !strings.Contains(lp, strings.ToLower(q.Path)) {
		return false
	}
	return true
}

// wildcardMatch reports whether s matches pat, in which "*" stands for any
// run of characters and nothing else is special.
func wildcardMatch(pat, s string) bool {
	parts := strings.Split(pat, "*")
	if len(parts) == 1 {
		return pat == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, mid := range parts[1 : len(parts)-1] {
		i := strings.Index(s, mid)
		if i < 0 {
			return false
		}
		s = s[i+len(mid):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}

// restCommitJSON is GitLab's Commit entity as the commits search scope
// returns it: the commit, its extended trailers and its project.
type restCommitJSON struct {
	commitJSON
	ExtendedTrailers map[string]string `json:"extended_trailers"`
	ProjectID        int64             `json:"project_id"`
}

// commits matches the messages of the default branch's commits of pa's
// project, newest first (oldest first with sort asc), with git log
// --grep; a term of 7 or more hex digits that abbreviates a commit of the
// branch finds that commit first, as GitLab's commit search does.
func (gs gitSearch) commits(ctx context.Context, pa *projectAccess, q models.SearchQuery) ([]any, int64, error) {
	items := []any{}
	repo, sha, err := gs.open(ctx, pa, q.Viewer)
	if err != nil || repo == nil {
		return items, 0, err
	}
	defer repo.Close()
	opt := repository.LogOptions{Ref: sha, Grep: q.Term}
	byID, err := commitByPrefix(ctx, repo, sha, q.Term)
	if err != nil {
		return nil, 0, err
	}
	offset, limit := q.Offset, q.Limit
	var hits []repository.Commit
	if byID != nil {
		if offset == 0 {
			hits = append(hits, *byID)
			limit--
		} else {
			offset--
		}
	}
	// One walk of the history gives the page and the total, counted as
	// GitLab counts it (up to commitSearchCountLimit matches past the
	// page's start), so git stops there instead of walking the whole
	// history for a number; oldest first it is git's --reverse, the page
	// counted from the oldest commit.
	opt.Offset, opt.Limit, opt.Reverse, opt.CountLimit = offset, limit, q.Ascending, commitSearchCountLimit
	if limit <= 0 { // the commit named by the term fills the page: count only
		opt.Limit = 1
	}
	page, total, err := repo.LogTotal(ctx, opt)
	if err != nil {
		return nil, 0, err
	}
	if limit > 0 {
		hits = append(hits, page...)
	}
	for k := range hits {
		hits[k].Message = strings.TrimRight(hits[k].Message, "\n")
		c := gs.links.commitJSONOf(pa.project, &hits[k])
		// The search scope keeps git's own times (milliseconds, the
		// signature's offset).
		c.CreatedAt, c.AuthoredDate, c.CommittedDate = gitTime(hits[k].Committer.When), gitTime(hits[k].Author.When), gitTime(hits[k].Committer.When)
		items = append(items, &restCommitJSON{commitJSON: c, ExtendedTrailers: map[string]string{}, ProjectID: pa.project.ID})
	}
	if byID != nil {
		total++
	}
	return items, int64(total), nil
}

// commitByPrefix returns the commit of the branch at head that term, 7 to
// 40 hex digits, abbreviates, unless its message contains term (then the
// message search finds it); nil when there is none.
func commitByPrefix(ctx context.Context, repo repository.Repository, head, term string) (*repository.Commit, error) {
	if len(term) < 7 || len(term) > 40 || !isHexString(term) {
		return nil, nil
	}
	c, err := repo.Commit(ctx, strings.ToLower(term))
	if errors.Is(err, models.ErrNotFound) || errors.Is(err, models.ErrInvalidInput) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(c.ID, strings.ToLower(term)) || strings.Contains(strings.ToLower(c.Message), strings.ToLower(term)) {
		return nil, nil
	}
	if ok, err := repo.IsAncestor(ctx, c.ID, head); err != nil || !ok {
		return nil, err
	}
	return c, nil
}

func isHexString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// gitTime formats a git time as GitLab's REST API does: milliseconds, the
// signature's own offset.
func gitTime(t time.Time) string { return t.Format("2006-01-02T15:04:05.000-07:00") }
