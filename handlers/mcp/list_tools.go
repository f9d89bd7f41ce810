package mcp

import (
	"encoding/json"

	"gitlab.com/glmcp/glmcp/services/tools"
)

type listToolsParams struct {
	metaParams
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
func (s *Server) listTools(x *exchange, p *listToolsParams) (any, error) {
	page, err := s.tools.List(x.ctx, tools.ListQuery{Scope: x.scope(s.cfg.Edition), Cursor: p.Cursor})
	if err != nil {
		return nil, err
	}
	res := &listToolsResult{NextCursor: page.NextCursor, prefix: page.Prefix, entries: page.Entries}
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
