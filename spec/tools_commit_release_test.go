package spec

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
)

// get_commit and list_releases over HTTP, checked against the demo's git
// history with the git command line.

func TestTools_getCommit(t *testing.T) {
	h := startServer(t)
	ce := h.groups()[0]
	const mcp = "gitlab-org/gitlab-mcp"
	bare := h.Env.Repositories.Path(toolsProject(t, h, mcp).ID)
	git := func(args ...string) string { return gitRun(t, "", bare, "", args...) }
	sha := git("rev-parse", "v18.7.0^{commit}") // the merge of !2

	sc := h.toolsRead(t, ce, "carol", "get_commit", map[string]any{"project_id": mcp, "commit_sha": "v18.7.0"})
	toolsExpectField(t, sc, sha, "sha")
	toolsExpectField(t, sc, sha[:8], "shortId")
	toolsExpectField(t, sc, git("log", "-1", "--format=%s", sha), "title")
	toolsExpectField(t, sc, git("log", "-1", "--format=%B", sha)+"\n", "message")
	toolsExpectField(t, sc, "Administrator", "authorName")
	toolsExpectField(t, sc, "root", "author", "username")
	toolsExpectField(t, sc, h.Cfg.PublicURL+"/"+mcp+"/-/commit/"+sha, "webUrl")
	if _, ok := sc["diffStatsSummary"]; ok {
		t.Errorf("no facet asked, diffStatsSummary returned: %v", sc)
	}
	byURL := h.toolsRead(t, ce, "alice", "get_commit", map[string]any{"url": h.Cfg.PublicURL + "/" + mcp + "/-/commit/" + sha[:10]})
	toolsExpectField(t, byURL, sha, "sha")

	// The diff against the first parent, as git shows it.
	numstat := strings.Fields(git("diff", "--numstat", sha+"^1", sha))
	stats := h.toolsRead(t, ce, "alice", "get_commit", map[string]any{"project_id": mcp, "commit_sha": sha, "include": []any{"diff"}})
	toolsExpectField(t, stats, 1, "diffStatsSummary", "fileCount")
	toolsExpectField(t, stats, numstat[2], "diffStats", 0, "path")
	if got := fmt.Sprint(toolsDig(stats, "diffStats", 0, "additions"), " ", toolsDig(stats, "diffStats", 0, "deletions")); got != numstat[0]+" "+numstat[1] {
		t.Errorf("additions deletions = %s, git diff --numstat = %v", got, numstat)
	}
	patch := h.toolsRead(t, ce, "alice", "get_commit", map[string]any{"project_id": mcp, "commit_sha": sha, "include": []any{"diff"}, "diff_detail": "full_patch"})
	toolsExpectField(t, patch, "internal/catalog/catalog.go", "diffs", 0, "newPath")
	if d := fmt.Sprint(toolsDig(patch, "diffs", 0, "diff")); !strings.Contains(d, "+\tsort.Slice(out, func(i, j int) bool") {
		t.Errorf("patch = %s", d)
	}
	notes := h.toolsRead(t, ce, "alice", "get_commit", map[string]any{"project_id": mcp, "commit_sha": sha, "include": []any{"notes"}})
	toolsExpectField(t, notes, 0, "notes", "count")

	h.toolsFailWith(t, ce, "alice", "get_commit", map[string]any{"project_id": mcp, "commit_sha": "0123456789abcdef0123456789abcdef01234567"},
		"Commit not found or inaccessible")
	h.toolsFailWith(t, ce, "alice", "get_commit", map[string]any{"project_id": mcp, "commit_sha": "no-such-branch"}, "Commit not found or inaccessible")
	if a, b := h.toolsFail(t, ce, "bob", "get_commit", map[string]any{"project_id": "acme/secret-plans", "commit_sha": "main"}),
		h.toolsFail(t, ce, "bob", "get_commit", map[string]any{"project_id": "acme/nope", "commit_sha": "main"}); a != b || a != "Project not found or inaccessible" {
		t.Errorf("private %q, missing %q", a, b)
	}
	h.toolsInvalid(t, ce, "alice", "get_commit", map[string]any{"url": h.Cfg.PublicURL + "/" + mcp + "/-/commit/" + sha, "project_id": mcp}, "not both")
	h.toolsInvalid(t, ce, "alice", "get_commit", map[string]any{"project_id": mcp}, "Provide either url, or project_id and commit_sha")
	h.toolsInvalid(t, ce, "alice", "get_commit", map[string]any{"project_id": mcp, "commit_sha": sha, "diff_detail": "stats"}, "diff_detail applies only")
	h.toolsInvalid(t, ce, "alice", "get_commit", map[string]any{"project_id": mcp, "commit_sha": sha, "include": []any{"diff", "notes"}}, "/include")
	h.toolsInvalid(t, ce, "alice", "get_commit", map[string]any{"project_id": mcp, "commit_sha": sha, "include": []any{"notes"}, "notes_after": "bogus"}, "notes_after")
	for _, g := range h.groups() {
		h.toolsBlocked(t, g, "get_commit", map[string]any{"project_id": mcp, "commit_sha": sha})
	}
}

func TestTools_listReleases(t *testing.T) {
	h := startServer(t)
	ce := h.groups()[0]
	const mcp = "gitlab-org/gitlab-mcp"
	p := toolsProject(t, h, mcp)
	bare := h.Env.Repositories.Path(p.ID)

	sc := h.toolsRead(t, ce, "carol", "list_releases", map[string]any{"project_id": mcp})
	rel := toolsArray(t, sc["releases"])
	if got := strings.Join(toolsField(rel, "tag_name"), ","); got != "v18.7.0,v18.6.0" {
		t.Errorf("releases = %s", got)
	}
	// Each names a tag of the repository.
	for _, tag := range toolsField(rel, "tag_name") {
		gitRun(t, "", bare, "", "rev-parse", "--verify", "refs/tags/"+tag)
	}
	toolsExpectField(t, sc, "GitLab MCP 18.7.0", "releases", 0, "name")
	toolsExpectField(t, sc, false, "releases", 0, "upcoming")
	toolsExpectField(t, sc, 2, "releases", 0, "assets", "count")
	toolsExpectField(t, sc, "Upgrade notes", "releases", 0, "assets", "links", 1, "name")
	toolsExpectField(t, sc, false, "metadata", "has_more")

	// An upcoming release is listed only when asked for.
	if err := h.Env.Store.Releases.CreateRelease(context.Background(), &models.Release{ProjectID: p.ID, Tag: "v99.0.0", Name: "Far future",
		ReleasedAt: time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	up := h.toolsRead(t, ce, "alice", "list_releases", map[string]any{"url": h.Cfg.PublicURL + "/" + mcp, "state": "upcoming"})
	toolsExpectField(t, up, "v99.0.0", "releases", 0, "tag_name")
	toolsExpectField(t, up, true, "releases", 0, "upcoming")
	all := h.toolsRead(t, ce, "alice", "list_releases", map[string]any{"project_id": mcp, "state": "all", "per_page": 2})
	if got := strings.Join(toolsField(toolsArray(t, all["releases"]), "tag_name"), ","); got != "v99.0.0,v18.7.0" {
		t.Errorf("all, page 1 = %s", got)
	}
	toolsExpectField(t, all, true, "metadata", "has_more")
	page2 := h.toolsRead(t, ce, "alice", "list_releases", map[string]any{"project_id": mcp, "state": "all", "per_page": 2, "page": 2})
	toolsExpectField(t, page2, "v18.6.0", "releases", 0, "tag_name")
	toolsExpectField(t, page2, false, "metadata", "has_more")

	if a, b := h.toolsFail(t, ce, "bob", "list_releases", map[string]any{"project_id": "acme/secret-plans"}),
		h.toolsFail(t, ce, "bob", "list_releases", map[string]any{"project_id": "acme/nope"}); a != b || a != "Project not found or inaccessible" {
		t.Errorf("private %q, missing %q", a, b)
	}
	h.toolsInvalid(t, ce, "alice", "list_releases", map[string]any{}, "Provide exactly one of: url or project_id")
	h.toolsInvalid(t, ce, "alice", "list_releases", map[string]any{"project_id": mcp, "state": "draft"}, "/state")
	h.toolsInvalid(t, ce, "alice", "list_releases", map[string]any{"project_id": mcp, "per_page": 101}, "/per_page")
	for _, g := range h.groups() {
		h.toolsBlocked(t, g, "list_releases", map[string]any{"project_id": mcp})
	}
}
