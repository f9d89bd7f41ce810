package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
)

// Repositories opens and removes projects' git repositories;
// *repository.Storage satisfies it. The store hands it over
// (store.Store.Repositories): the demo world's history is written into the
// repositories the store creates with each project.
type Repositories interface {
	Repository(ctx context.Context, projectID int64) (repository.Repository, error)
	Remove(projectID int64) error
}

// script is the history of one demo repository, read from
// _demo/<group>/<project>/history.json: steps played in order, each a
// commit, a merge or a tag, by a demo user at a time relative to
// BaseTime. File contents come from the trees beside the script
// (_demo/<group>/<project>/<tree>/<path>).
type script struct {
	Steps []step `json:"steps"`
}

// step is one event of a history. Exactly one of Commit, Merge and Tag is
// set.
type step struct {
	// Commit is the branch committed to; From the branch a new branch
	// starts from (required for a branch that does not exist yet, except
	// the first commit of the repository).
	Commit string `json:"commit"`
	From   string `json:"from"`
	// Tree is where Files are read from when they name no tree ("main");
	// a file is "path" or "tree:path". Delete lists paths removed.
	Tree   string   `json:"tree"`
	Files  []string `json:"files"`
	Delete []string `json:"delete"`

	// Merge is a branch merged Into another with a merge commit;
	// RemoveSourceBranch deletes it afterwards, as GitLab's "delete source
	// branch" does.
	Merge              string `json:"merge"`
	Into               string `json:"into"`
	RemoveSourceBranch bool   `json:"remove_source_branch"`

	// Tag is an annotated tag of Ref.
	Tag string `json:"tag"`
	Ref string `json:"ref"`

	// Author is a demo username; At is days, hours and minutes after
	// BaseTime.
	Author  string `json:"author"`
	At      [3]int `json:"at"`
	Message string `json:"message"`
}

// history is what playing a script left behind, for the merge requests
// and pipelines that name its commits.
type history struct {
	// heads is every branch's last commit, kept after the branch is
	// removed.
	heads map[string]string
	// merges are the merges by source branch: the merge commit and the
	// merge base the source was compared with.
	merges map[string]*repository.MergeResult
}

// history plays _demo/<project>/history.json into p's repository.
func (b *demoBuilder) history(p *models.Project) {
	if b.err != nil {
		return
	}
	h := &history{heads: map[string]string{}, merges: map[string]*repository.MergeResult{}}
	b.hist[p.ID] = h
	raw, err := demoFiles.ReadFile("_demo/" + p.PathWithNamespace + "/history.json")
	if err != nil {
		b.err = fmt.Errorf("demo history of %s: %w", p.PathWithNamespace, err)
		return
	}
	var sc script
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sc); err != nil {
		b.err = fmt.Errorf("demo history of %s: %w", p.PathWithNamespace, err)
		return
	}
	repo, err := b.repos.Repository(b.ctx, p.ID)
	if err != nil {
		b.err = fmt.Errorf("demo history of %s: %w", p.PathWithNamespace, err)
		return
	}
	defer repo.Close()
	for k, st := range sc.Steps {
		if err := b.play(repo, p, h, st); err != nil {
			b.err = fmt.Errorf("demo history of %s, step %d: %w", p.PathWithNamespace, k+1, err)
			return
		}
	}
}

// play runs one step of p's history.
func (b *demoBuilder) play(repo repository.Repository, p *models.Project, h *history, st step) error {
	var who *models.User
	for _, u := range b.w.Users() {
		if u.Username == st.Author {
			who = u
		}
	}
	if who == nil {
		return fmt.Errorf("author %q is not a demo user", st.Author)
	}
	sig := repository.Signature{Name: who.Name, Email: who.Email, When: at(st.At[0], st.At[1], st.At[2])}
	switch {
	case st.Commit != "" && st.Merge == "" && st.Tag == "":
		return b.commitStep(repo, p, h, st, sig)
	case st.Merge != "" && st.Commit == "" && st.Tag == "":
		res, err := repo.Merge(b.ctx, repository.MergeRequest{Source: st.Merge, Target: st.Into,
			Message: st.Message, Author: sig, Committer: sig})
		if err != nil {
			return err
		}
		h.merges[st.Merge], h.heads[st.Into] = res, res.CommitID
		if st.RemoveSourceBranch {
			return repo.DeleteBranch(b.ctx, st.Merge, h.heads[st.Merge])
		}
		return nil
	case st.Tag != "" && st.Commit == "" && st.Merge == "":
		_, err := repo.CreateTag(b.ctx, repository.TagRequest{Name: st.Tag, Target: st.Ref, Message: st.Message, Tagger: sig})
		return err
	}
	return errors.New("a step is exactly one of commit, merge and tag")
}

// commitStep writes one commit of files read from the demo trees.
func (b *demoBuilder) commitStep(repo repository.Repository, p *models.Project, h *history, st step, sig repository.Signature) error {
	start := st.Commit
	if _, ok := h.heads[st.Commit]; !ok {
		start = st.From
	}
	var actions []repository.Action
	for _, f := range st.Files {
		tree, path, ok := strings.Cut(f, ":")
		if !ok {
			tree, path = st.Tree, f
		}
		if tree == "" {
			tree = "main"
		}
		content, ok := demoFile(p.PathWithNamespace, tree, path)
		if !ok {
			return fmt.Errorf("no file %s in demo tree %s", path, tree)
		}
		action := repository.ActionCreate
		if start != "" {
			if _, err := repo.Blob(b.ctx, start, path, repository.BlobOptions{Lines: 1}); err == nil {
				action = repository.ActionUpdate
			} else if !errors.Is(err, models.ErrNotFound) {
				return err
			}
		}
		actions = append(actions, repository.Action{Action: action, FilePath: path, Content: []byte(content), HasContent: true})
	}
	for _, path := range st.Delete {
		actions = append(actions, repository.Action{Action: repository.ActionDelete, FilePath: path})
	}
	req := repository.CommitFilesRequest{Branch: st.Commit, Message: st.Message, Author: sig, Committer: sig, Actions: actions}
	if start != st.Commit {
		req.StartBranch = st.From
	}
	c, err := repo.CommitFiles(b.ctx, req)
	if err != nil {
		return err
	}
	h.heads[st.Commit] = c.ID
	return nil
}
