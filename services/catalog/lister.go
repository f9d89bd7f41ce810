package catalog

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"gitlab.com/glmcp/glmcp/internal/cursor"
	"gitlab.com/glmcp/glmcp/models"
)

// VerbToolsList is the verb of tools/list cursors.
const VerbToolsList = "tools/list"

// Page size limits for [NewLister].
const (
	DefaultPageSize = 100
	MinPageSize     = 1
	MaxPageSize     = 1000
)

// MinSecretLen is the shortest instance secret [NewLister] accepts.
const MinSecretLen = 16

// Lister pages through a sorted tool catalog with signed keyset cursors. It
// holds no per-listing state and is safe for concurrent use.
type Lister struct {
	signer   *cursor.Signer
	pageSize int
}

// NewLister returns a Lister signing cursors with a key derived from the
// instance secret (at least [MinSecretLen] bytes) and returning at most
// pageSize tools per page ([MinPageSize]..[MaxPageSize]; configuration
// should default to [DefaultPageSize]).
func NewLister(secret []byte, pageSize int) (*Lister, error) {
	if len(secret) < MinSecretLen {
		return nil, fmt.Errorf("new lister: secret is %d bytes, need at least %d", len(secret), MinSecretLen)
	}
	if pageSize < MinPageSize || pageSize > MaxPageSize {
		return nil, fmt.Errorf("new lister: page size %d outside %d..%d", pageSize, MinPageSize, MaxPageSize)
	}
	return &Lister{signer: cursor.New(secret, MaxCursorLen), pageSize: pageSize}, nil
}

// PageSize returns the maximum number of tools per page.
func (l *Lister) PageSize() int { return l.pageSize }

// Query is one listing request.
type Query struct {
	// Edition is the route group's edition.
	Edition models.Edition
	// ReadOnly is true for a read_api token without api or mcp.
	ReadOnly bool
	// Filter is the parsed filter headers.
	Filter Filter
	// Cursor is the request's cursor, "" for the first page.
	Cursor string
	// Verb names the method paging, e.g. [VerbToolsList]; cursors minted
	// for one verb are refused by another.
	Verb string
	// User is the caller's user id; cursors minted for one user are
	// refused for another.
	User int64
}

// Page is one page of a listing.
type Page[T any] struct {
	// Items are the visible items of this page in name order, never nil:
	// pointers into the slice paged, never copies.
	Items []*T
	// NextCursor resumes after this page; "" when there is nothing more
	// (the handler then omits nextCursor).
	NextCursor string
}

// Paged is what a listing pages through: a name (the keyset position) and
// whether the caller may see it.
type Paged[T any] struct {
	Name    func(*T) string
	Visible func(*T) bool
}

// PageOf returns the page of items that follows q.Cursor, keeping the ones
// p.Visible admits. items must be sorted by name in byte order with unique
// names; they are not modified. q.Filter's prefix is not applied: the
// caller renders names.
//
// A malformed, tampered, over-long or foreign cursor (minted for another
// verb, user, filter, prefix, edition or read-only state, or with another
// secret)
// is an error wrapping [models.ErrInvalidInput] whose message starts
// "invalid cursor". Other errors are the caller's bug.
func PageOf[T any](l *Lister, items []T, p Paged[T], q Query) (Page[T], error) {
	if q.Verb == "" {
		return Page[T]{}, errors.New("page: empty verb")
	}
	if q.Edition != models.EditionCE && q.Edition != models.EditionEE {
		return Page[T]{}, fmt.Errorf("page: unknown edition %q", q.Edition)
	}
	var bind cursor.Binding
	bound := false
	start := 0
	if q.Cursor != "" {
		bind, bound = binding(q), true
		last, err := decodeCursor(l.signer, bind, q.Cursor)
		if err != nil {
			return Page[T]{}, err // self-describing: "invalid cursor: …"
		}
		start = sort.Search(len(items), func(i int) bool { return p.Name(&items[i]) > last })
	}

	out := make([]*T, 0, min(l.pageSize, len(items)-start))
	i := start
	for ; i < len(items) && len(out) < l.pageSize; i++ {
		if p.Visible(&items[i]) {
			out = append(out, &items[i])
		}
	}
	page := Page[T]{Items: out}
	if len(out) == l.pageSize && anyVisible(items[i:], p.Visible) {
		if !bound {
			bind = binding(q)
		}
		next, err := encodeCursor(l.signer, bind, p.Name(out[len(out)-1]))
		if err != nil {
			return Page[T]{}, fmt.Errorf("page %s: %w", q.Verb, err)
		}
		page.NextCursor = next
	}
	return page, nil
}

// anyVisible reports whether any of items is visible, so the last page
// never carries a cursor to an empty one.
func anyVisible[T any](items []T, visible func(*T) bool) bool {
	for i := range items {
		if visible(&items[i]) {
			return true
		}
	}
	return false
}

// SortTools sorts tools by name in byte order, the order [Lister.Page]
// expects and lists in.
func SortTools(tools []models.Tool) {
	slices.SortFunc(tools, func(a, b models.Tool) int { return strings.Compare(a.Name, b.Name) })
}
