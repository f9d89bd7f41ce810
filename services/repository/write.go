package repository

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"gitlab.com/glmcp/glmcp/models"
)

// Bounds of one commit.
const (
	maxActions   = 1000
	maxEditBytes = 10 << 20 // a partial edit loads the file
)

// CommitFiles writes the actions as one commit on req.Branch: it writes the
// blobs, trees and commit, then moves the branch with a compare-and-swap
// from the value it started from. When another writer moved the branch in
// between, the result is models.ErrConflict and the branch is unchanged
// (the unreferenced objects are harmless; git gc drops them). With
// req.StartRepository the start commit's missing objects are copied in
// first, under the same rule: they stay unreferenced when the commit fails.
func (l *Local) CommitFiles(ctx context.Context, req CommitFilesRequest) (*Commit, error) {
	if err := ValidateBranchName(req.Branch); err != nil {
		return nil, err
	}
	if strings.TrimSpace(req.Message) == "" {
		return nil, fmt.Errorf("commit message is empty: %w", models.ErrInvalidInput)
	}
	if len(req.Actions) == 0 || len(req.Actions) > maxActions {
		return nil, fmt.Errorf("a commit needs 1 to %d actions, got %d: %w", maxActions, len(req.Actions), models.ErrInvalidInput)
	}
	if strings.TrimSpace(req.Author.Name) == "" || strings.TrimSpace(req.Author.Email) == "" {
		return nil, fmt.Errorf("commit author needs a name and an e-mail: %w", models.ErrInvalidInput)
	}
	ref := plumbing.NewBranchReferenceName(req.Branch)
	old, err := l.refs.readRef(ref)
	if err != nil {
		return nil, err
	}
	if req.ExpectedOldSHA != "" {
		want, err := hashOf(req.ExpectedOldSHA)
		if err != nil {
			return nil, err
		}
		if want != old {
			return nil, fmt.Errorf("branch %q is not at %s any more: %w", req.Branch, req.ExpectedOldSHA, models.ErrConflict)
		}
	}
	var parent *object.Commit
	if req.StartRepository != nil {
		parent, err = l.startCommit(ctx, req, old)
	} else {
		parent, err = l.commitParent(ctx, req, old)
	}
	if err != nil {
		return nil, err
	}
	var tree *object.Tree
	if parent != nil {
		if tree, err = parent.Tree(); err != nil {
			return nil, fmt.Errorf("tree of %s: %w", parent.Hash, err)
		}
	}
	ed := l.objects.newTreeEditor(tree)
	for i, a := range req.Actions {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := l.apply(ctx, ed, parent, a); err != nil {
			return nil, fmt.Errorf("action %d (%s): %w", i+1, a.Action, err)
		}
	}
	treeHash, err := ed.write()
	if err != nil {
		return nil, err
	}
	committer := committerOf(req.Author, req.Committer)
	author := object.Signature{Name: req.Author.Name, Email: req.Author.Email, When: req.Author.When}
	if author.When.IsZero() {
		author.When = committer.When
	}
	c := &object.Commit{
		Author:    author,
		Committer: committer,
		Message:   ensureNewline(req.Message),
		TreeHash:  treeHash,
	}
	if parent != nil {
		c.ParentHashes = []plumbing.Hash{parent.Hash}
	}
	h, err := l.objects.writeCommit(c)
	if err != nil {
		return nil, err
	}
	if err := l.refs.updateRef(ref, old, h); err != nil {
		return nil, fmt.Errorf("commit to %s: %w", req.Branch, err)
	}
	c.Hash = h
	out := toCommit(c)
	return &out, nil
}

// branchExistsError is GitLab's refusal to start an existing branch
// again from elsewhere (start_branch, start_sha or start_project).
func branchExistsError(branch string) error {
	return fmt.Errorf("a branch called %q already exists; switch to that branch in order to make changes: %w", branch, models.ErrInvalidInput)
}

// branchExists refuses to start branch req.Branch, which is at head, from
// req's start point. When the branch grew from that start point (another
// writer created it from there meanwhile: two agents racing to make the
// same branch) it is the conflict that race is; otherwise GitLab's
// refusal, an invalid input. start is the repository req.StartBranch is
// read from (l, or the start project's).
func (l *Local) branchExists(req CommitFilesRequest, head plumbing.Hash, start *Local) error {
	refusal := branchExistsError(req.Branch)
	var from plumbing.Hash
	switch {
	case req.StartSHA != "":
		h, err := hashOf(req.StartSHA)
		if err != nil {
			return refusal
		}
		from = h
	case req.StartBranch != "":
		h, err := start.refs.branchHead(req.StartBranch)
		if err != nil || h.IsZero() {
			return refusal
		}
		from = h
	default:
		return refusal
	}
	sc, err1 := l.objects.peel(from)
	hc, err2 := l.objects.peel(head)
	if err1 != nil || err2 != nil {
		return refusal
	}
	if base, err := l.ancestry.mergeBase(hc, sc); err != nil || base == nil || base.Hash != sc.Hash {
		return refusal
	}
	return fmt.Errorf("a branch called %q was created from the same start meanwhile (it is at %s); "+
		"switch to that branch in order to make changes: %w", req.Branch, head.String()[:8], models.ErrConflict)
}

// commitParent returns the commit a CommitFiles request builds on (nil for
// the first commit of an empty repository), following GitLab's rules for
// branch, start_branch and start_sha.
func (l *Local) commitParent(ctx context.Context, req CommitFilesRequest, old plumbing.Hash) (*object.Commit, error) {
	startGiven := (req.StartBranch != "" && req.StartBranch != req.Branch) || req.StartSHA != ""
	if !old.IsZero() {
		if startGiven && (req.StartSHA == "" || !strings.EqualFold(req.StartSHA, old.String())) {
			return nil, l.branchExists(req, old, l)
		}
		return l.objects.peel(old)
	}
	switch {
	case req.StartSHA != "":
		h, err := hashOf(req.StartSHA)
		if err != nil {
			return nil, err
		}
		return l.objects.peel(h)
	case req.StartBranch != "" && req.StartBranch != req.Branch:
		if err := ValidateBranchName(req.StartBranch); err != nil {
			return nil, err
		}
		h, err := l.refs.branchHead(req.StartBranch)
		if err != nil {
			return nil, err
		}
		if h.IsZero() {
			return nil, fmt.Errorf("start branch %q: %w", req.StartBranch, models.ErrNotFound)
		}
		return l.objects.peel(h)
	}
	branches, err := l.Branches(ctx)
	if err != nil {
		return nil, err
	}
	if len(branches) > 0 {
		return nil, fmt.Errorf("branch %q does not exist; give start_branch or start_sha to create it: %w", req.Branch, models.ErrInvalidInput)
	}
	return nil, nil // the first commit of an empty repository
}

// apply performs one action on the tree being edited.
func (l *Local) apply(ctx context.Context, ed *treeEditor, parent *object.Commit, a Action) error {
	path, err := CleanPath(a.FilePath)
	if err != nil {
		return err
	}
	cur, exists, err := ed.get(path)
	if err != nil {
		return err
	}
	isFile := exists && cur.Mode != filemode.Dir && cur.Mode != filemode.Submodule
	mode := func(keep filemode.FileMode) filemode.FileMode {
		if a.ExecuteFilemode == nil {
			return keep
		}
		if *a.ExecuteFilemode {
			return filemode.Executable
		}
		return filemode.Regular
	}
	missing := func(p string) error {
		return fmt.Errorf("a file with the name %q doesn't exist: %w", p, models.ErrInvalidInput)
	}
	if a.LastCommitID != "" && isFile && parent != nil {
		if err := l.checkLastCommit(ctx, parent, path, a.LastCommitID); err != nil {
			return err
		}
	}
	switch a.Action {
	case ActionCreate:
		if exists {
			return fmt.Errorf("a file with the name %q already exists: %w", path, models.ErrInvalidInput)
		}
		h, err := l.objects.writeBlob(a.Content)
		if err != nil {
			return err
		}
		return ed.set(path, mode(filemode.Regular), h)
	case ActionUpdate:
		if !isFile {
			return missing(path)
		}
		content := a.Content
		if a.OldStr != nil {
			if content, err = l.editContent(cur.Hash, path, a); err != nil {
				return err
			}
		}
		h, err := l.objects.writeBlob(content)
		if err != nil {
			return err
		}
		return ed.set(path, mode(cur.Mode), h)
	case ActionDelete:
		if !isFile {
			return missing(path)
		}
		ed.remove(path)
		return nil
	case ActionMove:
		prevPath, err := CleanPath(a.PreviousPath)
		if err != nil {
			return fmt.Errorf("previous_path: %w", err)
		}
		prev, ok, err := ed.get(prevPath)
		if err != nil {
			return err
		}
		if !ok || prev.Mode == filemode.Dir || prev.Mode == filemode.Submodule {
			return missing(prevPath)
		}
		if exists && prevPath != path {
			return fmt.Errorf("a file with the name %q already exists: %w", path, models.ErrInvalidInput)
		}
		h := prev.Hash
		if a.HasContent {
			if h, err = l.objects.writeBlob(a.Content); err != nil {
				return err
			}
		}
		ed.remove(prevPath)
		return ed.set(path, mode(prev.Mode), h)
	case ActionChmod:
		if !isFile {
			return missing(path)
		}
		if a.ExecuteFilemode == nil {
			return fmt.Errorf("chmod needs execute_filemode: %w", models.ErrInvalidInput)
		}
		return ed.set(path, mode(cur.Mode), cur.Hash)
	default:
		return fmt.Errorf("unknown action %q (want create, update, delete, move or chmod): %w", a.Action, models.ErrInvalidInput)
	}
}

// editContent replaces the one occurrence of a.OldStr in the blob h.
func (l *Local) editContent(h plumbing.Hash, path string, a Action) ([]byte, error) {
	if a.NewStr == nil {
		return nil, fmt.Errorf("old_str needs new_str: %w", models.ErrInvalidInput)
	}
	if *a.OldStr == "" {
		return nil, fmt.Errorf("old_str is empty: %w", models.ErrInvalidInput)
	}
	data, err := l.objects.readBlob(h, maxEditBytes)
	if err != nil {
		return nil, err
	}
	switch n := bytes.Count(data, []byte(*a.OldStr)); n {
	case 0:
		return nil, fmt.Errorf("old_str was not found in '%s': %w", path, models.ErrInvalidInput)
	case 1:
		return bytes.Replace(data, []byte(*a.OldStr), []byte(*a.NewStr), 1), nil
	default:
		return nil, fmt.Errorf("old_str is ambiguous in '%s' (%d occurrences); provide more surrounding context: %w", path, n, models.ErrInvalidInput)
	}
}

// checkLastCommit refuses an edit when path changed after lastCommitID
// (GitLab's last_commit_id).
func (l *Local) checkLastCommit(ctx context.Context, parent *object.Commit, path, lastCommitID string) error {
	page, err := l.Log(ctx, LogOptions{Ref: parent.Hash.String(), Path: path, Limit: 1})
	if err != nil {
		return err
	}
	if len(page.Commits) == 1 && !strings.EqualFold(page.Commits[0].ID, lastCommitID) {
		return fmt.Errorf("you are attempting to update %q, which has changed since you started editing it: %w", path, models.ErrConflict)
	}
	return nil
}

func ensureNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// committerOf is the committer of a new commit: c where it is set, the
// author's name and e-mail and the current time where not.
func committerOf(author, c Signature) object.Signature {
	out := object.Signature{Name: c.Name, Email: c.Email, When: c.When}
	if out.Name == "" || out.Email == "" {
		out.Name, out.Email = author.Name, author.Email
	}
	if out.When.IsZero() {
		out.When = time.Now().UTC().Truncate(time.Second)
	}
	return out
}
