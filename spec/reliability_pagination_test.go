package spec

import (
	"fmt"
	"math"
	"testing"
)

// Huge page numbers (issue #13, item 4): page × per_page overflowed the
// offset and answered page 1 while pageInfo claimed page 9.2×10^18. GitLab
// caps offset pagination at an offset of 50,000 (offset_pagination_limit:
// "Offset pagination has a maximum allowed offset of 50000 …"); past it
// every paged tool answers a validation error naming page.

func TestReliability_pageBounds(t *testing.T) {
	h := startServer(t)
	ce := h.groups()[0]
	pipeline := toolsPipelineID(t, h, "gitlab-org/gitlab-mcp", "running")
	mr := map[string]any{"id": "gitlab-org/gitlab-mcp", "merge_request_iid": 1}
	paged := []struct {
		tool string
		args map[string]any
	}{
		{"search", map[string]any{"scope": "issues", "search": "nebula"}},
		{"get_merge_request_commits", mr},
		{"get_merge_request_diffs", mr},
		{"get_pipeline_jobs", map[string]any{"id": "gitlab-org/gitlab-mcp", "pipeline_id": pipeline}},
	}
	for _, p := range paged {
		for _, c := range []struct {
			page, perPage any
		}{
			{int64(math.MaxInt64), nil},
			{int64(math.MaxInt64), 100},
			{int64(1) << 32, 20},
			{2501, 20}, // offset 50,020: past GitLab's cap
			{50001, 1}, // likewise
		} {
			args := overrideArgs(p.args, "page", c.page)
			if c.perPage != nil {
				args["per_page"] = c.perPage
			}
			t.Run(fmt.Sprintf("%s page %v per_page %v", p.tool, c.page, c.perPage), func(t *testing.T) {
				h.toolsInvalid(t, ce, "alice", p.tool, args, "page")
			})
		}
		// The last allowed page still answers (empty past the end).
		args := overrideArgs(p.args, "page", 2500, "per_page", 20)
		h.toolsRead(t, ce, "alice", p.tool, args)
	}
}
