package mcp

import (
	"encoding/json"
	"errors"
	"strings"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/catalog"
)

type listToolsParams struct {
	Cursor *string `json:"cursor"`
}

type listToolsResult struct {
	resultFields
	Tools      json.RawMessage `json:"tools"`
	NextCursor string          `json:"nextCursor,omitempty"`
	TTLMs      *int64          `json:"ttlMs,omitempty"`
	CacheScope string          `json:"cacheScope,omitempty"`
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
	buf := make([]byte, 0, 512*len(page.Tools)+2)
	buf = append(buf, '[')
	n := 0
	for i := range page.Tools {
		entry, ok := snap.Lookup(page.Tools[i].Name[len(prefix):])
		if !ok {
			continue
		}
		if n > 0 {
			buf = append(buf, ',')
		}
		buf = entry.AppendJSON(buf, prefix)
		n++
	}
	buf = append(buf, ']')
	res := listToolsResult{Tools: buf, NextCursor: page.NextCursor}
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
