package spec

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/internal/cursor"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/catalog"
)

// Issue #13 item 8: every cursor glmcp mints is signed with the instance
// secret and bound to the method or tool that minted it, the user it was
// returned to and the list it pages (the object and the filter arguments).
// For every list that pages with a cursor: a real cursor walks the whole
// list with no gap and no repeat; a forged or altered cursor, a cursor
// returned to another user (with the same view) and a cursor of another
// list are refused: -32602 for the protocol lists, a validation error
// (isError) for the tools.

// cursorCase is one tool list: the arguments of its first page (small
// pages), where its items, their identity and its next cursor are, and
// another list of the same tool whose cursor must not page this one.
type cursorCase struct {
	tool     string
	ee       bool
	args     map[string]any
	afterArg string // the argument taking the cursor
	items    []any  // path to the items in the result
	id       string // an item's identity field
	next     []any  // path to the next cursor
	hasNext  []any  // path to the "has a next page" flag (nil: a next cursor says so)
	// list returns the part of the result that holds items and page info
	// (nil: the result).
	list    func(t testing.TB, sc map[string]any) map[string]any
	other   map[string]any // arguments of another list of the tool with at least one item
	want    int            // the number of items the walk must see
	wantIDs []string       // or the items themselves (nil: just count, no repeats)
}

// part is the part of a result holding the case's items and page info.
func (c cursorCase) part(t testing.TB, sc map[string]any) map[string]any {
	if c.list == nil {
		return sc
	}
	return c.list(t, sc)
}

func TestReliability_cursorsSignedAndBound(t *testing.T) {
	h := startServer(t, withEE(), catalogPageSize(5))
	ce, ee := h.groups()[0], h.groups()[1]
	failed := toolsPipelineID(t, h, "gitlab-org/orbit", "failed")
	// list_repository_tree pages by 100: give it 130 entries in one
	// directory (two commits, as a commit takes at most 100 actions).
	for _, part := range []int{0, 1} {
		var actions []any
		for i := range 65 {
			actions = append(actions, map[string]any{"action": "create", "file_path": fmt.Sprintf("many/f%03d.txt", part*65+i), "content": "x\n"})
		}
		h.toolsWrite(t, ce, "modern", "root", "add_commit", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "branch": "main",
			"commit_message": fmt.Sprintf("Many files, part %d", part+1), "actions": actions})
	}
	var treeIDs []string
	for i := range 130 {
		treeIDs = append(treeIDs, fmt.Sprintf("many/f%03d.txt", i))
	}
	// list_vulnerabilities: orbit's one finding and three more.
	orbit, err := h.Env.Store.Projects.FindProjectByPath(context.Background(), "gitlab-org/orbit")
	if err != nil {
		t.Fatal(err)
	}
	for i, sev := range []string{"low", "medium", "critical"} {
		if err := h.Env.Store.Vulnerabilities.CreateVulnerability(context.Background(), &models.Vulnerability{ProjectID: orbit.ID,
			Title: fmt.Sprintf("Finding %d", i), Severity: sev, ReportType: "sast", ScannerName: "Semgrep"}); err != nil {
			t.Fatal(err)
		}
	}
	// list_wiki_pages: a second wiki, orbit's.
	for _, slug := range []string{"a", "b"} {
		if err := h.Env.Store.Releases.CreateWikiPage(context.Background(), &models.WikiPage{ProjectID: orbit.ID, Slug: slug, Title: slug}); err != nil {
			t.Fatal(err)
		}
	}
	// get_work_item: a second merge request related to #2.
	// Its source branch must exist in git (merge requests are made of branches).
	toolsBranch(t, h, "gitlab-org/gitlab-mcp", "spec/validate-headers", "main")
	h.toolsWrite(t, ce, "modern", "alice", "save_merge_request", map[string]any{"project_id": "gitlab-org/gitlab-mcp",
		"title": "Validate the headers (part of #2)", "source_branch": "spec/validate-headers", "target_branch": "feature/server-discover"})
	relatedMRs := func(t testing.TB, sc map[string]any) map[string]any {
		m, _ := widget(t, sc, "DEVELOPMENT")["relatedMergeRequests"].(map[string]any)
		return m
	}
	mcpMR1 := map[string]any{"project_id": "gitlab-org/gitlab-mcp", "merge_request_iid": 1}

	pageInfo := func(k string) []any { return []any{"pageInfo", k} }
	cases := []cursorCase{
		{tool: "get_work_item", args: overrideArgs(wiMCP(2), "include", []any{"related_merge_requests"}, "related_merge_requests_first", 1),
			afterArg: "related_merge_requests_after", list: relatedMRs, items: []any{"nodes"}, id: "iid", next: pageInfo("endCursor"),
			hasNext: pageInfo("hasNextPage"), other: overrideArgs(wiMCP(1), "include", []any{"related_merge_requests"}), want: 2},
		{tool: "list_wiki_pages", args: map[string]any{"project_id": "gitlab-org/gitlab-mcp", "first": 1},
			afterArg: "after", items: []any{"items"}, id: "slug", next: []any{"metadata", "end_cursor"},
			other: map[string]any{"project_id": "gitlab-org/orbit"}, want: 3},
		{tool: "get_workitem_notes", args: map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 1, "first": 2},
			afterArg: "after", items: []any{"items"}, id: "id", next: pageInfo("endCursor"), hasNext: pageInfo("hasNextPage"),
			other: map[string]any{"url": h.Cfg.PublicURL + "/gitlab-org/gitlab-mcp/-/work_items/2"}, want: 6},
		{tool: "get_merge_request_notes", args: overrideArgs(mcpMR1, "first", 1),
			afterArg: "after", items: []any{"nodes"}, id: "id", next: pageInfo("endCursor"), hasNext: pageInfo("hasNextPage"),
			other: map[string]any{"project_id": "gitlab-org/gitlab-mcp", "merge_request_iid": 2}, want: -1},
		{tool: "get_merge_request", args: overrideArgs(mcpMR1, "include", []any{"commits"}, "commits_first", 1),
			afterArg: "commits_after", items: []any{"commits", "nodes"}, id: "sha", next: []any{"commits", "pageInfo", "endCursor"},
			hasNext: []any{"commits", "pageInfo", "hasNextPage"},
			other:   overrideArgs(mcpMR1, "merge_request_iid", 2, "include", []any{"commits"}), want: -1},
		{tool: "list_merge_requests", args: map[string]any{"group_id": "gitlab-org", "first": 1},
			afterArg: "after", items: []any{"nodes"}, id: "id", next: pageInfo("endCursor"), hasNext: pageInfo("hasNextPage"),
			other: map[string]any{"group_id": "gitlab-org", "state": "opened"}, want: 4},
		{tool: "list_work_items", args: map[string]any{"project_id": "gitlab-org/gitlab-mcp", "first": 2},
			afterArg: "after", items: []any{"work_items"}, id: "id", next: pageInfo("endCursor"), hasNext: pageInfo("hasNextPage"),
			other: map[string]any{"project_id": "gitlab-org/gitlab-mcp", "state": "opened"}, want: -1},
		{tool: "list_commits", args: map[string]any{"project_id": "gitlab-org/gitlab-mcp", "first": 1},
			afterArg: "after", items: []any{"nodes"}, id: "sha", next: pageInfo("endCursor"), hasNext: pageInfo("hasNextPage"),
			other: map[string]any{"project_id": "gitlab-org/gitlab-mcp", "path": "many"}, want: -1},
		{tool: "list_repository_tree", args: map[string]any{"project_id": "gitlab-org/gitlab-mcp", "path": "many"},
			afterArg: "after", items: []any{"entries"}, id: "path", next: pageInfo("endCursor"), hasNext: pageInfo("hasNextPage"),
			other: map[string]any{"project_id": "gitlab-org/gitlab-mcp", "path": "many", "recursive": true}, want: 130, wantIDs: treeIDs},
		{tool: "get_pipeline", args: map[string]any{"id": "gitlab-org/orbit", "pipeline_id": failed, "include": []any{"jobs"}, "first": 1},
			afterArg: "after", items: []any{"jobs"}, id: "id", next: []any{"page_info", "end_cursor"}, hasNext: []any{"page_info", "has_next_page"},
			other: map[string]any{"id": "gitlab-org/orbit", "pipeline_id": failed, "include": []any{"artifacts"}}, want: -1},
		{tool: "list_vulnerabilities", ee: true, args: map[string]any{"project_full_path": "gitlab-org/orbit", "first": 1},
			afterArg: "after", items: []any{"nodes"}, id: "id", next: pageInfo("endCursor"), hasNext: pageInfo("hasNextPage"),
			other: map[string]any{"project_full_path": "gitlab-org/orbit", "severity": []any{"HIGH", "LOW"}}, want: 4},
	}

	// A cursor of each list, for the cross-list checks.
	firstCursor := map[string]string{}
	for _, c := range cases {
		g := ce
		if c.ee {
			g = ee
		}
		t.Run(c.tool, func(t *testing.T) {
			// The walk: every item once, in the order of one big page.
			var walked []string
			args := overrideArgs(c.args)
			for pages := 0; ; pages++ {
				if pages > 200 {
					t.Fatal("the walk does not end")
				}
				sc := c.part(t, h.toolsRead(t, g, "alice", c.tool, args))
				for _, it := range toolsArray(t, toolsDig(sc, c.items...)) {
					walked = append(walked, fmt.Sprint(toolsDig(it, c.id)))
				}
				next, _ := toolsDig(sc, c.next...).(string)
				if c.hasNext == nil && next == "" || c.hasNext != nil && toolsDig(sc, c.hasNext...) != true {
					break
				}
				if next == "" {
					t.Fatalf("page %d says there is more but has no cursor: %v", pages, sc)
				}
				if firstCursor[c.tool] == "" {
					firstCursor[c.tool] = next
				}
				args[c.afterArg] = next
			}
			if firstCursor[c.tool] == "" {
				t.Fatalf("the walk took one page (%d items): make its pages smaller", len(walked))
			}
			seen := map[string]bool{}
			for _, id := range walked {
				if seen[id] {
					t.Errorf("item %s appears twice in the walk %v", id, walked)
				}
				seen[id] = true
			}
			switch {
			case c.wantIDs != nil:
				got := slices.Clone(walked)
				slices.Sort(got)
				if !slices.Equal(got, c.wantIDs) {
					t.Errorf("walked %d items %v, want %v", len(got), got, c.wantIDs)
				}
			case c.want > 0 && len(walked) != c.want:
				t.Errorf("walked %d items %v, want %d", len(walked), walked, c.want)
			case c.want < 0:
				// The whole list on one page, where the tool allows it.
				whole := overrideArgs(c.args)
				for k := range whole {
					if strings.HasSuffix(k, "first") {
						whole[k] = 100
					}
				}
				var all []string
				for _, it := range toolsArray(t, toolsDig(c.part(t, h.toolsRead(t, g, "alice", c.tool, whole)), c.items...)) {
					all = append(all, fmt.Sprint(toolsDig(it, c.id)))
				}
				if !slices.Equal(walked, all) {
					t.Errorf("walked %v, one page holds %v", walked, all)
				}
			}

			good := firstCursor[c.tool]
			resume := overrideArgs(c.args, c.afterArg, good)
			// Altered: one character flipped (it stays base64url), or cut.
			flipped := []byte(good)
			flipped[len(flipped)/2] ^= 1
			for _, bad := range []string{string(flipped), good[:len(good)-3], "bm90IGEgY3Vyc29y", "x.y"} {
				h.toolsInvalid(t, g, "alice", c.tool, overrideArgs(resume, c.afterArg, bad), c.afterArg, "is not a cursor of this list")
			}
			// Forged in glmcp's format with a secret not the instance's.
			forged := cursor.New([]byte("not-the-instance-secret-0123456789"), 8192).SealInt(cursor.Binding{Verb: c.tool, User: 2}, 1)
			h.toolsInvalid(t, g, "alice", c.tool, overrideArgs(resume, c.afterArg, forged), "is not a cursor of this list")
			// Another user with the same view: root sees everything alice does.
			h.toolsInvalid(t, g, "root", c.tool, resume, "is not a cursor of this list (it was returned to another user)")
			// Another list of the same tool.
			otherFirst := overrideArgs(c.other)
			for k, v := range c.args {
				if strings.HasSuffix(k, "first") {
					otherFirst[k] = v
				}
			}
			sc := c.part(t, h.toolsRead(t, g, "alice", c.tool, otherFirst))
			otherCursor, _ := toolsDig(sc, c.next...).(string)
			if otherCursor == "" {
				t.Fatalf("the other list %v has no cursor: %v", c.other, sc)
			}
			h.toolsInvalid(t, g, "alice", c.tool, overrideArgs(resume, c.afterArg, otherCursor), "is not a cursor of this list (it was returned for other arguments)")
			// Still good for its own list and user.
			h.toolsRead(t, g, "alice", c.tool, resume)
		})
	}

	// Another tool's cursor.
	t.Run("a cursor of another tool", func(t *testing.T) {
		for i, c := range cases {
			from := cases[(i+1)%len(cases)]
			if firstCursor[c.tool] == "" || firstCursor[from.tool] == "" {
				t.Fatalf("no cursor of %s or %s", c.tool, from.tool)
			}
			g := ce
			if c.ee {
				g = ee
			}
			h.toolsInvalid(t, g, "alice", c.tool, overrideArgs(c.args, c.afterArg, firstCursor[from.tool]),
				"is not a cursor of this list (it was returned by another tool)")
		}
	})

	// The protocol lists: tools/list pages (5 a page here), resources/list
	// pages the caller's projects, prompts/list and
	// resources/templates/list have one page.
	t.Run("protocol lists", func(t *testing.T) {
		for _, era := range eras {
			first := h.catalogList(t, ce, era, "alice", nil, "")
			if first.NextCursor == "" {
				t.Fatal("tools/list: the first page has no nextCursor")
			}
			h.catalogList(t, ce, era, "alice", nil, first.NextCursor)
			flipped := []byte(first.NextCursor)
			flipped[len(flipped)/2] ^= 1
			forged := catalogForge(t, "not-the-instance-secret-0123456789", first.Names[len(first.Names)-1])
			for what, x := range map[string]struct {
				user, cursor, inMsg string
			}{
				"altered":      {"alice", string(flipped), "invalid cursor"},
				"forged":       {"alice", forged, "invalid cursor"},
				"another user": {"root", first.NextCursor, "another user"},
				"a tool's":     {"alice", firstCursor["list_commits"], "different method"},
			} {
				if msg := h.catalogListError(t, ce, era, x.user, nil, x.cursor); !strings.Contains(msg, x.inMsg) {
					t.Errorf("tools/list, %s cursor: message %q, want it to say %q", what, msg, x.inMsg)
				}
			}
			// Another listing of tools/list: other filter headers.
			toolsets := http.Header{catalog.HeaderEnabledToolsets: {"all"}}
			if msg := h.catalogListError(t, ce, era, "alice", toolsets, first.NextCursor); !strings.Contains(msg, "different list") {
				t.Errorf("tools/list cursor under other headers: %q", msg)
			}
			// Cursors of tools/list and of a tool do not page the other lists.
			for _, m := range []string{"resources/list", "prompts/list", "resources/templates/list"} {
				for _, c := range []string{first.NextCursor, firstCursor["list_commits"], forged} {
					h.ctxSend(t, ce, era, "alice", m, map[string]any{"cursor": c}).expectError(t, ctxErrStatus(era), -32602)
				}
			}
		}
	})
}
