package gitlab

import (
	"context"

	"gitlab.com/glmcp/glmcp/models"
)

// WithheldText replaces, in lockdown, text written by a user below
// Developer in a project that is not private (doc/security.md).
const WithheldText = "[withheld in lockdown: written by a user without Developer access to this project]"

// withholder tells whose text a result withholds: nil withholds nothing
// (lockdown off, or a private project).
type withholder struct {
	levels map[int64]models.AccessLevel
}

// projectRolesStore reads the roles of a text's authors, all that
// withholding needs (so a tool's small store interface can serve it).
type projectRolesStore interface {
	ProjectAccessLevels(ctx context.Context, projectID int64, userIDs []int64) (map[int64]models.AccessLevel, error)
}

// newWithholder reads, in one statement, the roles in pa's project of the
// authors of a result's texts, when lockdown is on for the call and the
// project is not private.
func newWithholder(ctx context.Context, st projectRolesStore, pa *projectAccess, authors []int64) (*withholder, error) {
	if pa == nil || !pa.lockdown || pa.project.Visibility == models.VisibilityPrivate {
		return nil, nil
	}
	levels, err := st.ProjectAccessLevels(ctx, pa.project.ID, authors)
	if err != nil {
		return nil, err
	}
	return &withholder{levels: levels}, nil
}

// withholds reports whether text by author is withheld.
func (w *withholder) withholds(author int64) bool {
	return w != nil && w.levels[author] < models.Developer
}

// text is s, or the marker when author's text is withheld.
func (w *withholder) text(author int64, s string) string {
	if w.withholds(author) {
		return WithheldText
	}
	return s
}

// withholdNotes replaces, in place, the bodies of notes whose authors'
// text pa's call withholds: one statement for the page.
func withholdNotes(ctx context.Context, st projectRolesStore, pa *projectAccess, notes []models.Note) error {
	if pa == nil || !pa.lockdown {
		return nil
	}
	authors := make([]int64, 0, len(notes))
	for k := range notes {
		authors = append(authors, notes[k].AuthorID)
	}
	w, err := newWithholder(ctx, st, pa, authors)
	if err != nil {
		return err
	}
	for k := range notes {
		notes[k].Body = w.text(notes[k].AuthorID, notes[k].Body)
	}
	return nil
}

// authored is a text of a search result: its project, its author and
// the text to withhold in place.
type authored struct {
	projectID, authorID int64
	text                *string
}

// withholdAcross withholds, in lockdown, the texts of results that span
// projects: one statement per project on the page.
func withholdAcross(ctx context.Context, st projectStore, projects map[int64]*models.Project, texts []authored) error {
	byProject := map[int64][]int64{}
	for _, t := range texts {
		byProject[t.projectID] = append(byProject[t.projectID], t.authorID)
	}
	ws := make(map[int64]*withholder, len(byProject))
	for id, authors := range byProject {
		p := projects[id]
		if p == nil {
			continue
		}
		w, err := newWithholder(ctx, st, &projectAccess{project: p, lockdown: true}, authors)
		if err != nil {
			return err
		}
		ws[id] = w
	}
	for _, t := range texts {
		*t.text = ws[t.projectID].text(t.authorID, *t.text)
	}
	return nil
}

// withheldMergeRequest is mr, or a copy with its description withheld
// when pa's call withholds its author's text: what a write tool's answer
// echoes of a merge request (save_merge_request) follows the rule the
// read tools follow, since an update by the agent (labels, a reviewer)
// brings back a description someone else wrote.
func withheldMergeRequest(ctx context.Context, st projectRolesStore, pa *projectAccess, mr *models.MergeRequest) (*models.MergeRequest, error) {
	if pa == nil || !pa.lockdown {
		return mr, nil
	}
	w, err := newWithholder(ctx, st, pa, []int64{mr.AuthorID})
	if err != nil || !w.withholds(mr.AuthorID) {
		return mr, err
	}
	c := *mr
	c.Description = WithheldText
	return &c, nil
}
