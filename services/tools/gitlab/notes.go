package gitlab

import (
	"context"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
)

// bareDiscussionID strips the global-id prefix of a discussion id.
func bareDiscussionID(s string) string {
	return strings.TrimPrefix(strings.TrimSpace(s), "gid://gitlab/Discussion/")
}

// noteWindow is a notes page request: first/after or last/before.
type noteWindow struct {
	first  intArg
	after  string
	last   intArg
	before string
	prefix string
}

// notePager reads a page of notes and their authors' roles (mrNotesPage).
type notePager interface {
	PageNotes(ctx context.Context, q models.NotePageQuery) (*models.NotePage, error)
	projectRolesStore
}

// discussionPager reads a page of discussions and their authors' roles
// (discussionsPageOf).
type discussionPager interface {
	PageDiscussions(ctx context.Context, q models.DiscussionPageQuery) ([]models.Discussion, bool, error)
	projectRolesStore
}

// mrNotesPage pages a merge request's notes (oldest first), internal notes
// only for those who may read them.
func mrNotesPage(ctx context.Context, st notePager, l links, pages pager, u *models.User, pa *projectAccess, mr *models.MergeRequest, w noteWindow) (*connection, error) {
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

// discussionsPageOf pages the discussions of a noteable of pa's project by
// their first note, made of the notes filter chooses, internal notes only
// for those who may read them.
func discussionsPageOf(ctx context.Context, st discussionPager, l links, pages pager, u *models.User, pa *projectAccess, typ models.NoteableType, id int64, filter models.NotesFilter, first intArg, after string) (*connection, error) {
	afterID, err := pages.open("discussions_after", after)
	if err != nil {
		return nil, err
	}
	ds, more, err := st.PageDiscussions(ctx, models.DiscussionPageQuery{NoteableType: typ, NoteableID: id,
		IncludeInternal: access.CanReadInternalNote(u, pa.level), AfterNoteID: afterID, Limit: pageSize(first), Filter: filter})
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

func (l links) gqlNote(n *models.Note) *gqlNoteJSON {
	out := &gqlNoteJSON{ID: gid("Note", n.ID), Body: n.Body, Author: l.gqlUser(n.Author), System: n.System,
		Internal: n.Internal, CreatedAt: apiTime(n.CreatedAt), UpdatedAt: apiTime(n.UpdatedAt),
		DiscussionID: "gid://gitlab/Discussion/" + n.DiscussionID, Resolvable: n.Resolvable(),
		Resolved: n.Resolvable() && n.ResolvedAt != nil}
	if p := n.Position; p != nil {
		out.Position = &gqlPositionJSON{OldPath: p.OldPath, NewPath: p.NewPath, OldLine: p.OldLine, NewLine: p.NewLine,
			HeadSha: p.HeadSHA, BaseSha: p.BaseSHA, StartSha: p.StartSHA}
	}
	return out
}

func (l links) gqlDiscussion(d *models.Discussion) obj {
	notes := make([]*gqlNoteJSON, 0, len(d.Notes))
	var resolvedAt *string
	var resolvedBy *int64
	for k := range d.Notes {
		notes = append(notes, l.gqlNote(&d.Notes[k]))
		if n := &d.Notes[k]; n.ResolvedAt != nil {
			resolvedAt, resolvedBy = apiTimePtr(n.ResolvedAt), n.ResolvedByID
		}
	}
	out := obj{"id": "gid://gitlab/Discussion/" + d.ID, "replyId": "gid://gitlab/Discussion/" + d.ID,
		"individualNote": d.Individual, "resolvable": d.Resolvable(), "resolved": d.Resolved(),
		"resolvedAt": nil, "resolvedBy": nil, "notes": obj{"nodes": notes}}
	if d.Resolved() {
		out["resolvedAt"] = resolvedAt
		if resolvedBy != nil {
			out["resolvedBy"] = obj{"id": gid("User", *resolvedBy)}
		}
	}
	return out
}

// gqlNoteJSON is a note as GitLab's GraphQL Note shows it.
type gqlNoteJSON struct {
	ID           string           `json:"id"`
	Body         string           `json:"body"`
	Author       *plainUserJSON   `json:"author"`
	System       bool             `json:"system"`
	Internal     bool             `json:"internal"`
	CreatedAt    string           `json:"createdAt"`
	UpdatedAt    string           `json:"updatedAt"`
	DiscussionID string           `json:"discussionId"`
	Resolvable   bool             `json:"resolvable"`
	Resolved     bool             `json:"resolved"`
	Position     *gqlPositionJSON `json:"position"`
}

type gqlPositionJSON struct {
	OldPath  string `json:"oldPath"`
	NewPath  string `json:"newPath"`
	OldLine  *int   `json:"oldLine"`
	NewLine  *int   `json:"newLine"`
	HeadSha  string `json:"headSha"`
	BaseSha  string `json:"baseSha"`
	StartSha string `json:"startSha"`
}

// notePages is notePager over the families.
type notePages struct {
	notesPage
	projectRolesStore
}

// notePagesOf is f's notePages, or nil for the zero Families.
func notePagesOf(f Families) notePager {
	if noStore(f) {
		return nil
	}
	return notePages{f.Notes, f.Groups}
}
