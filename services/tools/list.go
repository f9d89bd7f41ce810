package tools

import (
	"context"
	"fmt"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/catalog"
)

// filter parses the headers. Errors wrap models.ErrInvalidInput.
func (s *Service) filter(sc models.Scope) (catalog.Filter, error) {
	return catalog.ParseFilter(sc.Headers.Tools, sc.Headers.Toolsets, sc.Headers.Prefix, s.toolsets)
}

// sees is the one visibility rule of tools/list and its change
// notifications: listed, served by the edition, admitted by the headers,
// and read-only for a read-only token or in read-only mode.
func sees(f catalog.Filter, sc models.Scope, t *models.Tool, listed bool) bool {
	return listed && f.Visible(t, sc.Edition, sc.WritesHidden())
}

// ListQuery asks for one page of tools/list.
type ListQuery struct {
	models.Scope
	// Cursor is the request's cursor; nil for the first page. A present
	// but empty cursor is invalid.
	Cursor *string
}

// Page is one page of tools/list: entries of the current snapshot, in name
// order, to be rendered with Prefix before each name.
type Page struct {
	Entries []*Entry
	// Prefix is the tool name prefix the caller asked for ("" for none).
	Prefix string
	// NextCursor resumes after this page; "" at the end.
	NextCursor string
}

// List returns the page of tools the scope sees after q.Cursor. Errors
// caused by the request (a bad header or cursor) wrap
// models.ErrInvalidInput; others are server failures.
func (s *Service) List(ctx context.Context, q ListQuery) (Page, error) {
	f, err := s.filter(q.Scope)
	if err != nil {
		return Page{}, err
	}
	cq := catalog.Query{Edition: q.Edition, ReadOnly: q.WritesHidden(), Filter: f, Verb: catalog.VerbToolsList, User: userOf(q.Scope)}
	if q.Cursor != nil {
		if *q.Cursor == "" {
			return Page{}, fmt.Errorf("invalid cursor: %w", models.ErrInvalidInput)
		}
		cq.Cursor = *q.Cursor
	}
	snap, err := s.Snapshot(ctx)
	if err != nil {
		return Page{}, err
	}
	p, err := catalog.PageOf(s.lister, snap.Entries, catalog.Paged[Entry]{
		Name:    func(e *Entry) string { return e.Tool.Name },
		Visible: func(e *Entry) bool { return sees(f, q.Scope, &e.Tool, e.Listed()) },
	}, cq)
	if err != nil {
		return Page{}, err
	}
	return Page{Entries: p.Items, Prefix: f.Prefix(), NextCursor: p.NextCursor}, nil
}

// Watch returns the rule deciding which tool changes reach a listener with
// this scope: a change is told when the tool, enabled, would be on the
// scope's tools/list, so it could have been there before the change or is
// there after it. It never touches the store, so change fan-out can call it
// per listener. Errors (a bad header) wrap models.ErrInvalidInput.
func (s *Service) Watch(sc models.Scope) (func(name string, toolEdition models.Edition) bool, error) {
	f, err := s.filter(sc)
	if err != nil {
		return nil, err
	}
	return func(name string, toolEdition models.Edition) bool {
		if row, ok := s.Describe(name); ok {
			t := *row
			t.Enabled = true
			return sees(f, sc, &t, !s.defs[name].Unlisted)
		}
		// A tool the code does not know (a row only the store has): judge by
		// edition alone; telling one listener too many is harmless.
		return catalog.EditionServes(sc.Edition, toolEdition)
	}, nil
}
