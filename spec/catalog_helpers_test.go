package spec

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/app"
	"gitlab.com/glmcp/glmcp/internal/cursor"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/catalog"
	"gitlab.com/glmcp/glmcp/services/subscriptions"
	"gitlab.com/glmcp/glmcp/services/tools/gitlab"
)

// Helpers of the catalog specs (catalog_*_test.go): a large tool catalog
// fixture, a tools/list walker that checks every page, and cursor forgery
// for the foreign-verb case.

// catalogPageSize sets the tools/list page size (GLMCP_PAGE_SIZE).
func catalogPageSize(n int) option { return func(c *app.Config) { c.PageSize = n } }

// catalogListTTL sets the tools/list ttlMs hint (GLMCP_LIST_TTL_MS).
func catalogListTTL(d time.Duration) option { return func(c *app.Config) { c.ListTTL = d } }

// catalogSharedStore serves from h's database (and secret), so several servers
// with different settings share one catalog.
func catalogSharedStore(h *harness) option {
	return func(c *app.Config) {
		c.DatabaseURL = h.Cfg.DatabaseURL
		c.DataDir = h.Cfg.DataDir
		c.RepositoriesPath = h.Cfg.RepositoriesPath
	}
}

// catalogFixtureSize is how many tools catalogFixture registers.
const catalogFixtureSize = 3000

// catalogFixture registers catalogFixtureSize tools beside the built-in
// ones, then tells the server the catalog changed. Names mix case and
// punctuation so that byte order differs from a database collation
// ("ZZ_Fixture_00003" < "get_issue" < "zz-fixture-00001" < "zz_fixture_00002");
// every 97th tool is EE-only, every 89th disabled and every 5th a write
// tool (readOnlyHint false). They have no executor.
func catalogFixture(t testing.TB, h *harness) {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	rows := make([]models.Tool, 0, catalogFixtureSize)
	for i := 1; i <= catalogFixtureSize; i++ {
		name := [3]string{"zz_fixture_%05d", "zz-fixture-%05d", "ZZ_Fixture_%05d"}[i%3]
		tool := models.Tool{
			Name: fmt.Sprintf(name, i), Title: fmt.Sprintf("Fixture %d", i), Description: "A catalog pagination fixture.",
			InputSchema: models.JSON(`{"type":"object","properties":{"n":{"type":"integer"}},"additionalProperties":false}`),
			Annotations: models.JSON(`{"readOnlyHint":true}`), Toolset: models.ToolsetCore, Edition: models.EditionCE,
			Enabled: i%89 != 0, Aliases: models.StringList{}, CreatedAt: now, UpdatedAt: now,
		}
		if i%97 == 0 {
			tool.Edition = models.EditionEE
		}
		if i%5 == 0 {
			tool.Annotations = models.JSON(`{"readOnlyHint":false,"destructiveHint":false}`)
		}
		rows = append(rows, tool)
	}
	if err := h.Env.Store.Tools.CreateTools(ctx, rows); err != nil {
		t.Fatalf("create fixture tools: %v", err)
	}
	// The server caches its catalog for up to 5s; a change event drops the
	// cache (PostgreSQL's notification does not come for the bulk insert).
	h.Server.Hub().Publish(subscriptions.Event{Kind: subscriptions.KindTools})
}

// catalogExpected returns, in byte order, the names a caller sees on a
// group of edition with a read-only token (or not) and no filter headers
// (the opt-in toolsets left out), read from the store.
func catalogExpected(t testing.TB, h *harness, edition models.Edition, readOnly bool) []string {
	t.Helper()
	all, err := h.Env.Store.Tools.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	unlisted := map[string]bool{}
	for _, d := range gitlab.Tools(gitlab.Deps{}) {
		unlisted[d.Name] = d.Unlisted
	}
	var out []string
	for _, tool := range all {
		if !tool.Enabled || unlisted[tool.Name] || (tool.Edition == models.EditionEE && edition != models.EditionEE) || slices.Contains(toolsUnlisted, tool.Name) ||
			slices.Contains(models.OptInToolsets, tool.Toolset) {
			continue
		}
		if readOnly {
			var a struct {
				ReadOnlyHint bool `json:"readOnlyHint"`
			}
			if json.Unmarshal(tool.Annotations, &a) != nil || !a.ReadOnlyHint {
				continue
			}
		}
		out = append(out, tool.Name)
	}
	sort.Strings(out) // byte order
	return out
}

// catalogPage is one tools/list answer.
type catalogPage struct {
	Names      []string
	NextCursor string // "" when the page has none
	Raw        *response
}

// catalogList sends one tools/list (cursor "" for the first page) and
// asserts the page's shape: HTTP 200, the era's ListToolsResult schema, at
// most pageSize tools, a full page whenever a next page is announced, no
// empty nextCursor, and the era's cache hints.
func (h *harness) catalogList(t testing.TB, g group, era, user string, hdr http.Header, cursor string) catalogPage {
	t.Helper()
	params := map[string]any{}
	if cursor != "" {
		params["cursor"] = cursor
	}
	r := h.send(t, call{Era: era, URL: g.URL, User: user, Method: "tools/list", Params: params, Header: hdr})
	r.expectStatus(t, http.StatusOK)
	validateResult(t, eraRev(era), "ListToolsResult", r.Body)
	res := r.result(t)
	p := catalogPage{Names: toolNames(t, res), Raw: r}
	if raw, ok := res["nextCursor"]; ok {
		s, isString := raw.(string)
		if !isString || s == "" {
			t.Fatalf("nextCursor = %#v: must be a non-empty string or absent", raw)
		}
		p.NextCursor = s
	}
	size := h.Cfg.PageSize
	switch {
	case len(p.Names) > size:
		t.Fatalf("page holds %d tools, page size is %d", len(p.Names), size)
	case p.NextCursor != "" && len(p.Names) != size:
		t.Fatalf("a page of %d tools (page size %d) announces another", len(p.Names), size)
	}
	if era == "modern" {
		expectModernResult(t, res, g.ServerName)
		expectCache(t, res, "private")
		if got, want := fmt.Sprint(res["ttlMs"]), strconv.FormatInt(h.Cfg.ListTTL.Milliseconds(), 10); got != want {
			t.Errorf("ttlMs = %s, want %s (GLMCP_LIST_TTL_MS)", got, want)
		}
	} else {
		expectLegacyResult(t, res)
	}
	return p
}

// catalogWalk follows nextCursor from the first page to the last and
// returns every name in order and the number of pages.
func (h *harness) catalogWalk(t testing.TB, g group, era, user string, hdr http.Header) (names []string, pages int) {
	t.Helper()
	cursor := ""
	for {
		p := h.catalogList(t, g, era, user, hdr, cursor)
		names = append(names, p.Names...)
		pages++
		if p.NextCursor == "" {
			return names, pages
		}
		if pages > catalogFixtureSize+100 {
			t.Fatal("tools/list never ends")
		}
		cursor = p.NextCursor
	}
}

// catalogListError sends tools/list with the raw cursor value and asserts a
// 400 -32602 whose message says the cursor is invalid.
func (h *harness) catalogListError(t testing.TB, g group, era, user string, hdr http.Header, cursor any) string {
	t.Helper()
	r := h.send(t, call{Era: era, URL: g.URL, User: user, Method: "tools/list", Params: map[string]any{"cursor": cursor}, Header: hdr})
	msg, _ := r.expectError(t, rpcStatus(era, http.StatusBadRequest), -32602)
	return msg
}

// catalogForge mints a tools/list cursor resuming after name in glmcp's
// cursor format (internal/cursor), signed with secret.
func catalogForge(t testing.TB, secret, name string) string {
	t.Helper()
	c, err := cursor.New([]byte(secret), catalog.MaxCursorLen).Seal(cursor.Binding{Verb: catalog.VerbToolsList}, []byte(name))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// catalogVerbToolsList is the verb tools/list cursors are bound to.
const catalogVerbToolsList = catalog.VerbToolsList
