package catalog

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

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
	signer   *signer
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
	return &Lister{signer: newSigner(deriveKey(secret)), pageSize: pageSize}, nil
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
}

// Page is one page of a listing.
type Page struct {
	// Tools are the visible tools of this page in name order, never nil.
	// Each is a shallow copy of the input (slices such as InputSchema are
	// shared: do not modify them) whose Name carries the filter's prefix,
	// ready to render.
	Tools []models.Tool
	// NextCursor resumes after this page; "" when there is nothing more
	// (the handler then omits nextCursor).
	NextCursor string
}

// Page returns the page of tools visible to q that follows q.Cursor. tools
// must be sorted by name in byte order (see [SortTools]) with unique names;
// they are not modified.
//
// A malformed, tampered, over-long or foreign cursor (minted for another
// verb, filter, prefix, edition or read-only state, or with another secret)
// is an error wrapping [models.ErrInvalidInput] whose message starts
// "invalid cursor". Other errors are the caller's bug.
func (l *Lister) Page(tools []models.Tool, q Query) (Page, error) {
	if q.Verb == "" {
		return Page{}, errors.New("page: empty verb")
	}
	if q.Edition != models.EditionCE && q.Edition != models.EditionEE {
		return Page{}, fmt.Errorf("page: unknown edition %q", q.Edition)
	}
	bind := newBinding(q)
	start := 0
	if q.Cursor != "" {
		last, err := decodeCursor(l.signer, bind, q.Cursor)
		if err != nil {
			return Page{}, err // self-describing: "invalid cursor: …"
		}
		start = sort.Search(len(tools), func(i int) bool { return tools[i].Name > last })
	}

	out := make([]models.Tool, 0, min(l.pageSize, len(tools)-start))
	i := start
	for ; i < len(tools) && len(out) < l.pageSize; i++ {
		if q.Filter.Visible(&tools[i], q.Edition, q.ReadOnly) {
			out = append(out, tools[i])
		}
	}
	page := Page{Tools: out}
	if len(out) == l.pageSize && l.anyVisible(tools[i:], q) {
		next, err := encodeCursor(l.signer, bind, out[len(out)-1].Name)
		if err != nil {
			return Page{}, fmt.Errorf("page %s: %w", q.Verb, err)
		}
		page.NextCursor = next
	}
	if p := q.Filter.Prefix(); p != "" {
		for k := range out {
			out[k].Name = p + out[k].Name
		}
	}
	return page, nil
}

// anyVisible reports whether any of tools is visible to q, so the last page
// never carries a cursor to an empty one.
func (l *Lister) anyVisible(tools []models.Tool, q Query) bool {
	for i := range tools {
		if q.Filter.Visible(&tools[i], q.Edition, q.ReadOnly) {
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
