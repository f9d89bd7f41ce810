package mcp

import (
	"encoding/json"
	"errors"
	"strings"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/catalog"
	"gitlab.com/glmcp/glmcp/services/tools"
)

type listToolsParams struct {
	Cursor *string `json:"cursor"`
}

// listToolsResult is a tools/list result. It writes itself
// (jsonrpc.Appender): the tools are pre-encoded in the snapshot and are
// copied once, straight into the response envelope.
type listToolsResult struct {
	resultFields
	NextCursor string `json:"nextCursor,omitempty"`
	TTLMs      *int64 `json:"ttlMs,omitempty"`
	CacheScope string `json:"cacheScope,omitempty"`

	entries []*tools.Entry
	prefix  string
}

// SizeHint implements jsonrpc.Appender.
func (r *listToolsResult) SizeHint() int {
	n := 16
	for _, e := range r.entries {
		n += e.JSONSize(r.prefix) + 1
	}
	return n + 512 // the other fields
}

// AppendJSON implements jsonrpc.Appender: {"tools":[…], other fields}.
func (r *listToolsResult) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"tools":[`...)
	for i, e := range r.entries {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = e.AppendJSON(dst, r.prefix)
	}
	dst = append(dst, ']')
	rest, err := json.Marshal(r) // the small fields; tools are unexported
	if err != nil {
		return dst, err
	}
	if len(rest) > 2 { // not "{}"
		dst = append(dst, ',')
		dst = append(dst, rest[1:len(rest)-1]...)
	}
	return append(dst, '}'), nil
}

// listTools answers tools/list: the tools this caller may use on this group,
// filtered by the GitLab headers, in name order, one page at a time.
func (s *Server) listTools(x *exchange) (any, *jsonrpc.Error) {
	var p listToolsParams
	if len(x.req.Params) > 0 {
		if err := json.Unmarshal(x.req.Params, &p); err != nil {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: "+jsonMessage(err), nil)
		}
	}
	filter, e := x.filter()
	if e != nil {
		return nil, e
	}
	snap, err := s.catalog.Snapshot(x.ctx)
	if err != nil {
		return nil, s.internal(x, "load tool catalog", err)
	}
	q := catalog.Query{Edition: s.cfg.Edition, ReadOnly: x.readOnly(), Filter: filter, Verb: MethodListTools}
	if p.Cursor != nil {
		q.Cursor = *p.Cursor
		if q.Cursor == "" {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: invalid cursor", nil)
		}
	}
	page, err := s.lister.Page(snap.Tools, q)
	if err != nil {
		if errors.Is(err, models.ErrInvalidInput) {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: "+inputMessage(err), nil)
		}
		return nil, s.internal(x, "page tool catalog", err)
	}
	// Page returns names with the prefix applied; the snapshot knows the
	// stored names.
	prefix := filter.Prefix()
	res := &listToolsResult{NextCursor: page.NextCursor, prefix: prefix, entries: make([]*tools.Entry, 0, len(page.Tools))}
	for i := range page.Tools {
		if entry, ok := snap.Lookup(page.Tools[i].Name[len(prefix):]); ok {
			res.entries = append(res.entries, entry)
		}
	}
	if x.modern {
		res.resultFields = s.modernFields()
		ttl := ms(s.cfg.ListTTL)
		res.TTLMs = &ttl
		// The list depends on the user, the token's scopes and the filter
		// headers: never shareable across authorization contexts.
		res.CacheScope = "private"
	}
	return res, nil
}

// filter parses the GitLab tool filter headers (-32602 when invalid).
func (x *exchange) filter() (catalog.Filter, *jsonrpc.Error) {
	h := x.c.Request.Header
	f, err := catalog.ParseFilter(
		strings.Join(h.Values(HeaderEnabledTools), ","),
		strings.Join(h.Values(HeaderEnabledToolsets), ","),
		h.Get(HeaderToolNamePrefix))
	if err != nil {
		return f, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: "+inputMessage(err), nil)
	}
	return f, nil
}

func (x *exchange) readOnly() bool { return x.id != nil && x.id.ReadOnly }

// inputMessage is the client-facing text of an error wrapping
// models.ErrInvalidInput: the message without the sentinel's own words.
func inputMessage(err error) string {
	return strings.TrimSuffix(err.Error(), ": "+models.ErrInvalidInput.Error())
}
