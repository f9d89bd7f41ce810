package repository_test

import (
	"context"
	"errors"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

// go-git's resolver applies a ref, ~n, ^n and ^{/regex} and silently skips
// any other revision syntax: "main:README.md" (a blob), "main^{tree}",
// "main@{0}" all resolved to main's commit, so a tool asked for a tree or
// a reflog entry answered with the branch head, and add_branch or
// save_pipeline built on it. What the resolver cannot apply must not
// resolve.
func TestCommitRefusesRevisionSyntaxTheResolverSkips(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	first := f.commit("first", "", map[string]string{"README.md": "a\n"})
	second := f.commit("second", "", map[string]string{"README.md": "b\n"})
	f.git(f.work, "tag", "-a", "-m", "v1", "v1", first)
	f.push()
	l := f.open()
	for _, rev := range []string{"main:README.md", "main:", "HEAD:README.md", second + ":README.md", ":/first",
		"main^{tree}", "main^{blob}", "v1^{tag}", "main@{0}", "main@{yesterday}", "main@{upstream}", "@{-1}", "main~1:README.md"} {
		c, err := l.Commit(ctx, rev)
		if !errors.Is(err, models.ErrNotFound) {
			t.Errorf("Commit(%q) = %+v, %v; want not found", rev, c, err)
		}
	}
	for rev, want := range map[string]string{"main": second, "main~1": first, "main^": first, "main^0": second,
		"main^{commit}": second, "v1": first, "v1^{}": first, "v1^{commit}": first, "HEAD": second,
		"main^{/first}": first, second[:10]: second} {
		c, err := l.Commit(ctx, rev)
		if err != nil || c.ID != want {
			t.Errorf("Commit(%q) = %+v, %v; want %s", rev, c, err, want)
		}
	}
}
