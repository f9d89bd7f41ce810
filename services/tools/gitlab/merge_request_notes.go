package gitlab

import (
	"context"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
)

// A merge request's notes and discussions, as get_merge_request_notes and
// get_merge_request's notes and discussions facets page them: free
// functions over the few store methods they read, so each tool declares
// just those.

// mrNotesStore is what paging a merge request's notes reads.
type mrNotesStore interface {
	projectRolesStore
	PageNotes(ctx context.Context, q models.NotePageQuery) (*models.NotePage, error)
}

// mrNotesPage pages a merge request's notes (oldest first), internal
// notes only for those who may read them.
func mrNotesPage(ctx context.Context, st mrNotesStore, l links, pages pager, u *models.User, pa *projectAccess, mr *models.MergeRequest, w noteWindow) (*connection, error) {
	q := models.NotePageQuery{NoteableType: models.NoteableMergeRequest, NoteableID: mr.ID,
		IncludeInternal: access.CanReadInternalNote(u, pa.level), Limit: pageSize(w.first)}
	var err error
	if q.AfterID, err = pages.open(w.prefix+"after", w.after); err != nil {
		return nil, err
	}
	if q.BeforeID, err = pages.open(w.prefix+"before", w.before); err != nil {
		return nil, err
	}
	if w.last != 0 || w.before != "" {
		q.FromEnd, q.Limit = true, pageSize(w.last)
	}
	page, err := st.PageNotes(ctx, q)
	if err != nil {
		return nil, err
	}
	if err := withholdNotes(ctx, st, pa, page.Notes); err != nil {
		return nil, err
	}
	nodes := make([]*gqlNoteJSON, 0, len(page.Notes))
	for k := range page.Notes {
		nodes = append(nodes, l.gqlNote(&page.Notes[k]))
	}
	pi := pageInfoJSON{HasNextPage: page.HasNext, HasPreviousPage: page.HasPrevious}
	if n := len(page.Notes); n > 0 {
		start, end := pages.mint(page.Notes[0].ID), pages.mint(page.Notes[n-1].ID)
		pi.StartCursor, pi.EndCursor = &start, &end
	}
	return &connection{Nodes: nodes, PageInfo: pi}, nil
}

// mrDiscussionsStore is what paging a merge request's discussions reads.
type mrDiscussionsStore interface {
	projectRolesStore
	PageDiscussions(ctx context.Context, q models.DiscussionPageQuery) ([]models.Discussion, bool, error)
}

// mrDiscussionsPage pages a merge request's discussions by their first
// note (comments only, as GitLab's merge request discussions), internal
// notes only for those who may read them.
func mrDiscussionsPage(ctx context.Context, st mrDiscussionsStore, l links, pages pager, u *models.User, pa *projectAccess, mr *models.MergeRequest, first intArg, after string) (*connection, error) {
	afterID, err := pages.open("discussions_after", after)
	if err != nil {
		return nil, err
	}
	ds, more, err := st.PageDiscussions(ctx, models.DiscussionPageQuery{NoteableType: models.NoteableMergeRequest, NoteableID: mr.ID,
		IncludeInternal: access.CanReadInternalNote(u, pa.level), AfterNoteID: afterID, Limit: pageSize(first), Filter: models.OnlyComments})
	if err != nil {
		return nil, err
	}
	for k := range ds {
		if err := withholdNotes(ctx, st, pa, ds[k].Notes); err != nil {
			return nil, err
		}
	}
	nodes := make([]obj, 0, len(ds))
	for k := range ds {
		nodes = append(nodes, l.gqlDiscussion(&ds[k]))
	}
	pi := pageInfoJSON{HasNextPage: more, HasPreviousPage: after != ""}
	if n := len(ds); n > 0 {
		start, end := pages.mint(ds[0].Notes[0].ID-1), pages.mint(ds[n-1].Notes[0].ID)
		pi.StartCursor, pi.EndCursor = &start, &end
	}
	return &connection{Nodes: nodes, PageInfo: pi}, nil
}
