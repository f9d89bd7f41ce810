package gitlab

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/repository"
)

// The search scopes that read a project's git repository (the default
// branch), as GitLab's basic search reads it through Gitaly: blobs and
// commits. Both are bounded: what a search reads is capped, so a large
// repository costs at most the caps, never its size.
const (
	// blobSearchMaxEntries caps the tree entries a blob search lists.
	blobSearchMaxEntries = 100_000
	// blobSearchMaxBytes caps the file content a blob search reads; past
	// it the search is refused (narrow it with path:, filename: or
	// extension:, which are applied before any content is read).
	blobSearchMaxBytes = 64 << 20
	// blobSearchFileBytes is how much of one file is searched.
	blobSearchFileBytes = 1 << 20
	// commitSearchMaxScan is how many commits of the default branch, newest
	// first, a commit search reads.
	commitSearchMaxScan = 10_000
	gitPage             = 1000
)

// openSearchRepository opens pa's repository for a code search, or
// returns nil when the caller may not read the project's code (a Guest of
// a private project: nothing matches) or the repository has no default
// branch yet.
func (g *gitlab) openSearchRepository(ctx context.Context, pa *projectAccess, u *models.User) (repository.Repository, string, error) {
	if !access.CanReadCode(u, pa.project, pa.level) {
		return nil, "", nil
	}
	if g.repos == nil {
		return nil, "", errNoRepositories
	}
	repo, err := g.projectRepository(ctx, pa.project)
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

// searchGitBlobs searches the paths and contents of the files on the
// default branch of pa's project, in the repository's tree order.
func (g *gitlab) searchGitBlobs(ctx context.Context, pa *projectAccess, q models.SearchQuery) ([]any, int64, error) {
	items := []any{}
	repo, sha, err := g.openSearchRepository(ctx, pa, q.Viewer)
	if err != nil || repo == nil {
		return items, 0, err
	}
	defer repo.Close()
	term := strings.ToLower(q.Term)
	var total int64
	var read, listed int64
	after := ""
	for {
		tp, err := repo.Tree(ctx, sha, "", repository.TreeOptions{Recursive: true, After: after, Limit: gitPage})
		if err != nil {
			return nil, 0, err
		}
		for _, e := range tp.Entries {
			if listed++; listed > blobSearchMaxEntries {
				return nil, 0, tooLargeToSearch(pa, fmt.Sprintf("more than %d files", blobSearchMaxEntries))
			}
			if e.Type != "blob" || !blobFiltersMatch(e.Path, q) {
				continue
			}
			file := models.RepositoryFile{ProjectID: pa.project.ID, Ref: pa.project.DefaultBranch, FilePath: e.Path}
			hit := term == "" || strings.Contains(strings.ToLower(e.Path), term)
			if term != "" || int(total) >= q.Offset && int(total) < q.Offset+q.Limit {
				b, err := repo.Blob(ctx, sha, e.Path, repository.BlobOptions{MaxBytes: blobSearchFileBytes})
				switch {
				case errors.Is(err, models.ErrInvalidInput): // a binary file too large to read: its path only
				case err != nil:
					return nil, 0, err
				case !b.Binary:
					if read += int64(len(b.Content)); read > blobSearchMaxBytes {
						return nil, 0, tooLargeToSearch(pa, fmt.Sprintf("more than %d MiB of files", blobSearchMaxBytes>>20))
					}
					file.Content = string(b.Content)
					hit = hit || strings.Contains(strings.ToLower(file.Content), term)
				}
			}
			if !hit {
				continue
			}
			if int(total) >= q.Offset && int(total) < q.Offset+q.Limit {
				items = append(items, blobResult(file, q.Term))
			}
			total++
		}
		if tp.Next == "" {
			return items, total, nil
		}
		after = tp.Next
	}
}

func tooLargeToSearch(pa *projectAccess, what string) error {
	return invalidf("search: project %s holds %s matching this search; glmcp searches code without an index and "+
		"stops there. Narrow the search with path:, filename: or extension:", pa.project.PathWithNamespace, what)
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

// searchGitCommits matches the messages (and id prefixes) of the newest
// commitSearchMaxScan commits of the default branch of pa's project,
// newest first (oldest first with sort asc).
func (g *gitlab) searchGitCommits(ctx context.Context, pa *projectAccess, q models.SearchQuery) ([]any, int64, error) {
	items := []any{}
	repo, sha, err := g.openSearchRepository(ctx, pa, q.Viewer)
	if err != nil || repo == nil {
		return items, 0, err
	}
	defer repo.Close()
	term := strings.ToLower(q.Term)
	var hits []repository.Commit
	for offset := 0; offset < commitSearchMaxScan; offset += gitPage {
		lp, err := repo.Log(ctx, repository.LogOptions{Ref: sha, Offset: offset, Limit: min(gitPage, commitSearchMaxScan-offset)})
		if err != nil {
			return nil, 0, err
		}
		for _, c := range lp.Commits {
			if strings.Contains(strings.ToLower(c.Message), term) || (len(term) >= 7 && strings.HasPrefix(c.ID, term)) {
				c.Message = strings.TrimRight(c.Message, "\n")
				hits = append(hits, c)
			}
		}
		if !lp.More {
			break
		}
	}
	if q.Ascending {
		slices.Reverse(hits)
	}
	for k := q.Offset; k < len(hits) && k < q.Offset+q.Limit; k++ {
		c := g.commitJSONOf(pa.project, &hits[k])
		// The search scope keeps git's own times (milliseconds, the
		// signature's offset).
		c.CreatedAt, c.AuthoredDate, c.CommittedDate = gitTime(hits[k].Committer.When), gitTime(hits[k].Author.When), gitTime(hits[k].Committer.When)
		items = append(items, &restCommitJSON{commitJSON: c, ExtendedTrailers: map[string]string{}, ProjectID: pa.project.ID})
	}
	return items, int64(len(hits)), nil
}

// gitTime formats a git time as GitLab's REST API does: milliseconds, the
// signature's own offset.
func gitTime(t time.Time) string { return t.Format("2006-01-02T15:04:05.000-07:00") }
