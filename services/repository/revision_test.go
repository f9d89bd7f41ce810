package repository_test

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
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

// Names resolve as git resolves them: git's rule order (the name itself,
// refs/, refs/tags/, refs/heads/, refs/remotes/, refs/remotes/…/HEAD), a
// packed ref of an earlier rule before a loose ref of a later one, a
// symbolic ref followed (a dangling one skipped), a ref before an
// abbreviated commit id of the same spelling. Each answer is compared with
// git rev-parse's, with the refs loose, then packed, then half of each.
func TestCommitResolvesNamesInGitsOrder(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	var ids []string
	for i := range 6 {
		ids = append(ids, f.commit(fmt.Sprintf("c%d", i), "", map[string]string{"f": fmt.Sprint(i)}))
	}
	f.push()
	short := ids[1][:7]
	f.git("", "update-ref", "refs/heads/amb", ids[0])
	f.git("", "update-ref", "refs/tags/amb", ids[1])
	f.git("", "update-ref", "refs/amb2", ids[2])
	f.git("", "update-ref", "refs/tags/amb2", ids[3])
	f.git("", "update-ref", "refs/remotes/origin/main", ids[4])
	f.git("", "symbolic-ref", "refs/remotes/up/HEAD", "refs/remotes/origin/main")
	f.git("", "update-ref", "refs/heads/"+ids[2][:8], ids[5]) // a branch spelled as another commit's id
	f.git("", "symbolic-ref", "refs/heads/dangling", "refs/heads/nothing")
	f.git("", "update-ref", "refs/remotes/dangling", ids[3])
	f.git("", "tag", "-a", "-m", "annotated", "ann", ids[2])
	names := []string{"main", "amb", "amb2", "origin/main", "up", "HEAD", ids[2][:8], short, "dangling", "ann",
		"refs/heads/amb", "tags/amb", "heads/amb", "missing", "refs/heads/missing", "abcdef0", "origin",
		ids[3][:9] + "~1", ids[4][:12] + "^", "amb~1", "main/x", "HEAD/x", "objects/info/commit-graph"}
	check := func(stage string) {
		t.Helper()
		l := f.open()
		for _, name := range names {
			out, gerr := f.gitErr("", "rev-parse", "--verify", "-q", name+"^{commit}")
			lines := strings.Fields(out) // after any warning git gives
			want := ""
			if len(lines) > 0 {
				want = lines[len(lines)-1]
			}
			c, err := l.Commit(ctx, name)
			switch {
			case gerr != nil && !errors.Is(err, models.ErrNotFound):
				t.Errorf("%s: Commit(%q) = %+v, %v; git finds none", stage, name, c, err)
			case gerr == nil && (err != nil || c.ID != want):
				t.Errorf("%s: Commit(%q) = %+v, %v; git: %s", stage, name, c, err, want)
			}
		}
	}
	check("loose")
	f.git("", "pack-refs", "--all")
	check("packed")
	f.git("", "update-ref", "refs/heads/amb", ids[4]) // loose again, its old value still in packed-refs
	f.git("", "update-ref", "refs/tags/amb2", ids[5])
	check("mixed")
	f.git("", "update-ref", "-d", "refs/tags/amb")
	check("deleted")
}

// An abbreviated id that two commits share is ambiguous, as git says
// ("short object ID … is ambiguous"), not whichever was listed first; one
// character more names one of them.
func TestCommitAmbiguousShortID(t *testing.T) {
	f := newFixture(t)
	tree := f.git("", "mktree") // the empty tree (mktree reads no entries)
	// Two commits whose ids share their first four digits: found by
	// hashing candidate commit texts, then written as the objects they are.
	seen := map[string]string{}
	var a, b string
	for i := 0; b == ""; i++ {
		text := fmt.Sprintf("tree %s\nauthor A <a@example.com> 1700000000 +0000\ncommitter A <a@example.com> 1700000000 +0000\n\nc%d\n", tree, i)
		sum := sha1.Sum([]byte(fmt.Sprintf("commit %d\x00%s", len(text), text)))
		id := hex.EncodeToString(sum[:])
		if other, ok := seen[id[:4]]; ok {
			a, b = other, text
			break
		}
		seen[id[:4]] = text
	}
	var ids []string
	for _, text := range []string{a, b} {
		ids = append(ids, gitIn(t, text, "--git-dir", f.bare, "hash-object", "-t", "commit", "-w", "--stdin"))
	}
	if ids[0][:4] != ids[1][:4] {
		t.Fatalf("the two commits %s and %s do not share a prefix", ids[0], ids[1])
	}
	l := f.open()
	ctx := context.Background()
	if _, gerr := f.gitErr("", "rev-parse", "--verify", "-q", ids[0][:4]+"^{commit}"); gerr == nil {
		t.Fatalf("git resolves the shared prefix %s; the fixture is wrong", ids[0][:4])
	}
	if c, err := l.Commit(ctx, ids[0][:4]); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("Commit(%q), a prefix of %s and %s = %+v, %v; want not found (ambiguous)", ids[0][:4], ids[0], ids[1], c, err)
	}
	n := 5
	for ids[0][:n] == ids[1][:n] {
		n++
	}
	if c, err := l.Commit(ctx, ids[1][:n]); err != nil || c.ID != ids[1] {
		t.Errorf("Commit(%q) = %+v, %v; want %s", ids[1][:n], c, err, ids[1])
	}
}
