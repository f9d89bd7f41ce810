package spec

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
)

// tools/list pagination over a catalog of several thousand tools
// (doc/endpoint.md, "Pagination"): every visible tool exactly once, in byte order, at any page size,
// in both eras; the last page carries no nextCursor; every page carries the
// configured ttlMs and cacheScope "private"; bad, foreign and over-long
// cursors are refused with 400 -32602.

// TestCatalog_walk walks every page at page sizes 1, 7 and 100.
func TestCatalog_walk(t *testing.T) {
	base := startServer(t, withEE(), catalogPageSize(7), catalogListTTL(12345*time.Millisecond))
	catalogFixture(t, base)
	servers := map[int]*harness{7: base}
	for _, size := range []int{1, 100} {
		servers[size] = startServer(t, withEE(), catalogSharedStore(base), catalogPageSize(size), catalogListTTL(12345*time.Millisecond))
	}
	ceAll := catalogExpected(t, base, models.EditionCE, false)
	if len(ceAll) < catalogFixtureSize*9/10 {
		t.Fatalf("only %d tools visible; the fixture did not land", len(ceAll))
	}
	for _, size := range []int{1, 7, 100} {
		h := servers[size]
		for _, era := range eras {
			t.Run(fmt.Sprintf("CE/%s/page size %d", era, size), func(t *testing.T) {
				names, pages := h.catalogWalk(t, h.groups()[0], era, "alice", nil)
				catalogExpectNames(t, names, ceAll)
				if want := (len(ceAll) + size - 1) / size; pages != want {
					t.Errorf("%d pages, want %d", pages, want)
				}
			})
		}
	}

	// The EE group adds the EE tools; a read_api token sees only read-only
	// ones; a prefix renames every one. Pages skip what the caller cannot
	// see and stay full.
	h := servers[7]
	ee := h.groups()[1]
	for _, era := range eras {
		t.Run("EE/"+era, func(t *testing.T) {
			names, _ := h.catalogWalk(t, ee, era, "alice", nil)
			catalogExpectNames(t, names, catalogExpected(t, h, models.EditionEE, false))
		})
		t.Run("read_api/"+era, func(t *testing.T) {
			ro, _ := authMint(t, h, "alice", []string{"read_api"}, authDay(7))
			h.Tokens["alice-ro"] = ro
			names, _ := h.catalogWalk(t, h.groups()[0], era, "alice-ro", nil)
			catalogExpectNames(t, names, catalogExpected(t, h, models.EditionCE, true))
		})
	}
	big := servers[100]
	for _, era := range eras {
		t.Run("prefix/"+era, func(t *testing.T) {
			names, _ := big.catalogWalk(t, big.groups()[0], era, "alice", http.Header{"X-Gitlab-Mcp-Server-Tool-Name-Prefix": {"p-"}})
			want := make([]string, len(ceAll))
			for i, n := range ceAll {
				want[i] = "p-" + n
			}
			catalogExpectNames(t, names, want)
		})
	}
}

// catalogExpectNames asserts names are exactly want: no duplicates, none
// missing, byte order.
func catalogExpectNames(t testing.TB, names, want []string) {
	t.Helper()
	seen := make(map[string]int, len(names))
	for i, n := range names {
		if j, dup := seen[n]; dup {
			t.Fatalf("%q listed twice (positions %d and %d)", n, j, i)
		}
		seen[n] = i
	}
	if !slices.IsSorted(names) {
		for i := 1; i < len(names); i++ {
			if names[i-1] >= names[i] {
				t.Fatalf("not in byte order at %d: %q before %q", i, names[i-1], names[i])
			}
		}
	}
	if !slices.Equal(names, want) {
		for _, w := range want {
			if _, ok := seen[w]; !ok {
				t.Errorf("%q never listed", w)
				break
			}
		}
		t.Fatalf("listed %d tools, want %d", len(names), len(want))
	}
}

// TestCatalog_cursors: cursors are opaque, self-contained and bound to what
// minted them.
func TestCatalog_cursors(t *testing.T) {
	h := startServer(t, withEE(), catalogPageSize(7))
	catalogFixture(t, h)
	ce, ee := h.groups()[0], h.groups()[1]
	toolsets := http.Header{"X-Gitlab-Enabled-Mcp-Server-Toolsets": {"core"}}
	prefix := http.Header{"X-Gitlab-Mcp-Server-Tool-Name-Prefix": {"a_"}}
	ro, _ := authMint(t, h, "alice", []string{"read_api"}, authDay(7))
	h.Tokens["alice-ro"] = ro

	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			first := h.catalogList(t, ce, era, "alice", nil, "")
			c := first.NextCursor
			if c == "" {
				t.Fatal("the first page has no nextCursor")
			}
			second := h.catalogList(t, ce, era, "alice", nil, c)
			// The same cursor resumes at the same place every time (the
			// cursor holds no state), for the user it was returned to only,
			// even when another user has the same view.
			if again := h.catalogList(t, ce, era, "alice", nil, c); !slices.Equal(again.Names, second.Names) || again.NextCursor != second.NextCursor {
				t.Errorf("the cursor resumed at %v, then at %v", second.Names, again.Names)
			}
			if msg := h.catalogListError(t, ce, era, "root", nil, c); !strings.Contains(msg, "another user") {
				t.Errorf("alice's cursor for root: message %q", msg)
			}

			bad := map[string]string{
				"empty":          "",
				"truncated by 1": c[:len(c)-1],
				"truncated half": c[:len(c)/2],
				"truncated to 4": c[:4],
				"over-long":      strings.Repeat("A", 600),
				"padded to 600":  c + strings.Repeat("A", 600-len(c)),
				"not base64url":  c[:len(c)-2] + "+/",
				"with newline":   c[:10] + "\n" + c[10:],
			}
			for _, i := range []int{0, len(c) / 3, len(c) / 2, len(c) - 2} {
				flip := []byte(c)
				if flip[i] == 'A' {
					flip[i] = 'B'
				} else {
					flip[i] = 'A'
				}
				bad[fmt.Sprintf("tampered at %d", i)] = string(flip)
			}
			for name, cur := range bad {
				if msg := h.catalogListError(t, ce, era, "alice", nil, cur); !strings.Contains(msg, "invalid cursor") {
					t.Errorf("%s: message %q", name, msg)
				}
			}
			// Not a string at all.
			for _, cur := range []any{7, false, []any{c}, map[string]any{"c": c}} {
				h.catalogListError(t, ce, era, "alice", nil, cur)
			}

			// Bound to the listing: filter headers, prefix, token scope and
			// group each make a different listing.
			withToolsets := h.catalogList(t, ce, era, "alice", toolsets, "").NextCursor
			withPrefix := h.catalogList(t, ce, era, "alice", prefix, "").NextCursor
			readOnly := h.catalogList(t, ce, era, "alice-ro", nil, "").NextCursor
			eeCursor := h.catalogList(t, ee, era, "alice", nil, "").NextCursor
			for _, x := range []struct {
				name, cursor string
				g            group
				user         string
				hdr          http.Header
			}{
				{"toolsets cursor without the header", withToolsets, ce, "alice", nil},
				{"plain cursor with a toolsets header", c, ce, "alice", toolsets},
				{"prefix cursor without the prefix", withPrefix, ce, "alice", nil},
				{"prefix cursor under another prefix", withPrefix, ce, "alice", http.Header{"X-Gitlab-Mcp-Server-Tool-Name-Prefix": {"b_"}}},
				{"read_api cursor with a full token", readOnly, ce, "alice", nil},
				{"full cursor with a read_api token", c, ce, "alice-ro", nil},
				{"EE cursor on CE", eeCursor, ce, "alice", nil},
				{"CE cursor on EE", c, ee, "alice", nil},
			} {
				if x.cursor == "" {
					t.Fatalf("%s: no cursor to test with", x.name)
				}
				if msg := h.catalogListError(t, x.g, era, x.user, x.hdr, x.cursor); !strings.Contains(msg, "invalid cursor") {
					t.Errorf("%s: message %q", x.name, msg)
				}
			}
			// The same filter spelled differently is the same listing.
			same := http.Header{"X-Gitlab-Enabled-Mcp-Server-Toolsets": {" CORE , core,"}}
			if p := h.catalogList(t, ce, era, "alice", same, withToolsets); len(p.Names) == 0 {
				t.Error("an equivalent toolsets header refused the cursor")
			}

			// Bound to the verb: a genuine cursor another list minted for
			// alice (a tool's) is refused as such.
			mrs := h.toolsRead(t, ce, "alice", "list_merge_requests", map[string]any{"group_id": "gitlab-org", "first": 1})
			toolCursor, _ := toolsDig(mrs, "pageInfo", "endCursor").(string)
			if toolCursor == "" {
				t.Fatalf("list_merge_requests returned no cursor: %v", mrs)
			}
			if msg := h.catalogListError(t, ce, era, "alice", nil, toolCursor); !strings.Contains(msg, "different method") {
				t.Errorf("list_merge_requests cursor: message %q", msg)
			}
			// A cursor in the right format signed with another secret is
			// forged.
			if msg := h.catalogListError(t, ce, era, "alice", nil, catalogForge(t, "another-secret-0123456789abcdefghij", second.Names[0])); !strings.Contains(msg, "invalid cursor") {
				t.Errorf("foreign secret: message %q", msg)
			}
		})
	}
}

// TestCatalog_cursorAcrossInstances: a cursor is self-contained, so another
// instance with the same secret resumes it (page size is the server's).
func TestCatalog_cursorAcrossInstances(t *testing.T) {
	a := startServer(t, catalogPageSize(7))
	catalogFixture(t, a)
	b := startServer(t, catalogSharedStore(a), catalogPageSize(100))
	want := catalogExpected(t, a, models.EditionCE, false)
	for _, era := range eras {
		first := a.catalogList(t, a.groups()[0], era, "alice", nil, "")
		second := b.catalogList(t, b.groups()[0], era, "alice", nil, first.NextCursor)
		got := append(slices.Clone(first.Names), second.Names...)
		if !slices.Equal(got, want[:len(got)]) || len(second.Names) != 100 {
			t.Errorf("%s: resumed on another instance at %v", era, second.Names[:min(3, len(second.Names))])
		}
	}
}
