package catalog

import (
	"errors"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

func TestParseFilter_headers(t *testing.T) {
	t.Parallel()
	all := []string{
		"create_issue", "create_merge_request", "create_workitem_note", "get_issue",
		"get_mcp_server_version", "get_merge_request", "get_pipeline_jobs", "get_workitem_notes",
		"search", "search_labels", "semantic_code_search",
	}
	meta := []string{"get_mcp_server_version"}
	tests := []struct {
		desc            string
		tools, toolsets string
		want            []string // sorted; EE group, read-write token
	}{
		{desc: "both absent lists every enabled tool", want: all},
		{desc: "blank tools header is absent", tools: "   ", want: all},
		{desc: "tools header of blanks and commas is absent", tools: " , ,, ", want: all},
		{desc: "blank toolsets header is absent", toolsets: " \t", want: all},
		{desc: "toolsets header of commas is absent", toolsets: ",,", want: all},
		{desc: "tools header alone lists only the named tools", tools: "get_issue", want: []string{"get_issue"}},
		{desc: "entries are trimmed", tools: "  get_issue ,\tcreate_issue  ", want: []string{"create_issue", "get_issue"}},
		{desc: "unknown tool name is ignored", tools: "get_issue,no_such_tool", want: []string{"get_issue"}},
		{desc: "only unknown tool names list nothing", tools: "no_such_tool", want: []string{}},
		{desc: "tool names are case-sensitive", tools: "GET_ISSUE", want: []string{}},
		{desc: "alias selects its tool, listed once by name", tools: "gitlab_search", want: []string{"search"}},
		{desc: "name and alias of one tool list it once", tools: "search,gitlab_search", want: []string{"search"}},
		{desc: "disabled tool named explicitly stays hidden", tools: "disabled_tool", want: []string{}},
		{desc: "meta tool by name", tools: "get_mcp_server_version", want: meta},
		{desc: "one toolset plus meta", toolsets: "ci", want: []string{"get_mcp_server_version", "get_pipeline_jobs"}},
		{desc: "mixed-case toolsets", toolsets: " CI , Merge_Requests", want: []string{"create_merge_request", "get_mcp_server_version", "get_merge_request", "get_pipeline_jobs"}},
		{desc: "meta toolset alone", toolsets: "meta", want: meta},
		{desc: "all", toolsets: "all", want: all},
		{desc: "all upper-case", toolsets: "ALL", want: all},
		{desc: "all with others", toolsets: "ci,all", want: all},
		{desc: "all makes the tools header moot", tools: "get_issue", toolsets: "all", want: all},
		{desc: "union of tools and toolsets", tools: "get_issue,gitlab_search", toolsets: "ci", want: []string{"get_issue", "get_mcp_server_version", "get_pipeline_jobs", "search"}},
		{desc: "blank tools header with a toolset", tools: " ", toolsets: "work_items", want: []string{"create_workitem_note", "get_mcp_server_version", "get_workitem_notes"}},
		{desc: "ee tool by name", tools: "semantic_code_search", want: []string{"semantic_code_search"}},
		{desc: "a GitLab toolset with no tool here yet", toolsets: "repository,duo_agent_platform", want: meta},
	}
	catalog := fixtureCatalog()
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			f := mustFilter(t, tc.tools, tc.toolsets, "")
			got := visibleNames(catalog, Query{Edition: models.EditionEE, Filter: f})
			equalNames(t, "visible", got, tc.want)
		})
	}
}

// gitlabValid is GitLab 19.5's list of valid toolsets (Toolsets::ALL, in
// its order) followed by the fixture catalog's own, as an unknown toolset's
// error gives it.
var gitlabValid = "meta, core, merge_requests, work_items, repository, ci, duo_agent_platform, wikis, code_security"

func TestParseFilter_errors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc                    string
		tools, toolsets, prefix string
		wantInMsg               []string
	}{
		{desc: "unknown toolset", toolsets: "nope", wantInMsg: []string{"Unknown toolsets: nope. Valid toolsets: " + gitlabValid}},
		{desc: "unknown toolset among valid ones", toolsets: "ci, Bogus ,core", wantInMsg: []string{"Unknown toolsets: bogus. Valid toolsets: " + gitlabValid}},
		{desc: "several unknown toolsets, in header order", toolsets: "zeta,ci,Alpha", wantInMsg: []string{"Unknown toolsets: zeta, alpha. Valid toolsets: " + gitlabValid}},
		{desc: "unknown toolset beside all", toolsets: "all,bogus", wantInMsg: []string{"Unknown toolsets: bogus. Valid toolsets: " + gitlabValid}},
		{desc: "toolset with inner space", toolsets: "merge requests", wantInMsg: []string{"Unknown toolsets: merge requests. "}},
		{desc: "prefix of 33 characters", prefix: strings.Repeat("p", 33), wantInMsg: []string{HeaderToolNamePrefix, "33", "32"}},
		{desc: "prefix with a dot", prefix: "a.b", wantInMsg: []string{HeaderToolNamePrefix, `'.'`}},
		{desc: "prefix with inner space", prefix: "a b", wantInMsg: []string{`' '`}},
		{desc: "prefix with a colon", prefix: "gl:", wantInMsg: []string{`':'`}},
		{desc: "prefix with non-ASCII", prefix: "prä", wantInMsg: []string{HeaderToolNamePrefix}},
		{desc: "valid tools but bad prefix", tools: "get_issue", prefix: "x/", wantInMsg: []string{`'/'`}},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			f, err := ParseFilter(tc.tools, tc.toolsets, tc.prefix, testToolsets)
			if !errors.Is(err, models.ErrInvalidInput) {
				t.Fatalf("err = %v, want ErrInvalidInput", err)
			}
			if uts := (*UnknownToolsetsError)(nil); errors.As(err, &uts) && !strings.HasPrefix(err.Error(), "Unknown toolsets: ") {
				t.Errorf("unknown toolsets error %q", err)
			}
			for _, s := range tc.wantInMsg {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
			if f.Prefix() != "" || f.Fingerprint() != (Filter{}).Fingerprint() {
				t.Errorf("failed parse returned a non-zero filter: %+v", f)
			}
		})
	}
}

func TestParseFilter_prefix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, raw, want string
	}{
		{desc: "absent", raw: "", want: ""},
		{desc: "blank", raw: "   ", want: ""},
		{desc: "simple", raw: "gl_", want: "gl_"},
		{desc: "trimmed", raw: "  gl-  ", want: "gl-"},
		{desc: "all allowed characters", raw: "azAZ09_-", want: "azAZ09_-"},
		{desc: "exactly 32 characters", raw: strings.Repeat("p", 32), want: strings.Repeat("p", 32)},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			f := mustFilter(t, "", "", tc.raw)
			if f.Prefix() != tc.want {
				t.Errorf("Prefix() = %q, want %q", f.Prefix(), tc.want)
			}
		})
	}
}

func TestFilter_Visible_editionReadOnly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc     string
		edition  models.Edition
		readOnly bool
		want     []string
	}{
		{
			desc: "CE group, read-write token", edition: models.EditionCE,
			want: []string{"create_issue", "create_merge_request", "create_workitem_note", "get_issue", "get_mcp_server_version", "get_merge_request", "get_pipeline_jobs", "get_workitem_notes", "search", "search_labels"},
		},
		{
			desc: "EE group, read-write token", edition: models.EditionEE,
			want: []string{"create_issue", "create_merge_request", "create_workitem_note", "get_issue", "get_mcp_server_version", "get_merge_request", "get_pipeline_jobs", "get_workitem_notes", "search", "search_labels", "semantic_code_search"},
		},
		{
			desc: "CE group, read-only token", edition: models.EditionCE, readOnly: true,
			want: []string{"get_issue", "get_mcp_server_version", "get_merge_request", "get_pipeline_jobs", "get_workitem_notes", "search", "search_labels"},
		},
		{
			desc: "EE group, read-only token", edition: models.EditionEE, readOnly: true,
			want: []string{"get_issue", "get_mcp_server_version", "get_merge_request", "get_pipeline_jobs", "get_workitem_notes", "search", "search_labels", "semantic_code_search"},
		},
		{desc: "unknown group edition sees nothing", edition: "xe"},
	}
	catalog := fixtureCatalog()
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			got := visibleNames(catalog, Query{Edition: tc.edition, ReadOnly: tc.readOnly})
			equalNames(t, "visible", got, tc.want)
		})
	}
}

func TestFilter_Visible_tool(t *testing.T) {
	t.Parallel()
	base := tool("get_issue", models.ToolsetCore, models.EditionCE, true)
	tests := []struct {
		desc     string
		edit     func(*models.Tool)
		filter   Filter
		edition  models.Edition
		readOnly bool
		want     bool
	}{
		{desc: "enabled CE tool on CE", edition: models.EditionCE, want: true},
		{desc: "disabled tool", edit: func(t *models.Tool) { t.Enabled = false }, edition: models.EditionEE},
		{desc: "disabled meta tool", edit: func(t *models.Tool) { t.Enabled = false; t.Toolset = models.ToolsetMeta }, edition: models.EditionEE},
		{desc: "EE tool on CE", edit: func(t *models.Tool) { t.Edition = models.EditionEE }, edition: models.EditionCE},
		{desc: "EE tool on EE", edit: func(t *models.Tool) { t.Edition = models.EditionEE }, edition: models.EditionEE, want: true},
		{desc: "tool without edition", edit: func(t *models.Tool) { t.Edition = "" }, edition: models.EditionEE},
		{desc: "read-only token, no annotations", edit: func(t *models.Tool) { t.Annotations = nil }, edition: models.EditionCE, readOnly: true},
		{desc: "read-only token, readOnlyHint false", edit: func(t *models.Tool) { t.Annotations = models.JSON(annotRW) }, edition: models.EditionCE, readOnly: true},
		{desc: "read-only token, readOnlyHint true", edition: models.EditionCE, readOnly: true, want: true},
		{desc: "read-write token, no annotations", edit: func(t *models.Tool) { t.Annotations = nil }, edition: models.EditionCE, want: true},
		{desc: "custom toolset, no filter", edit: func(t *models.Tool) { t.Toolset = "custom" }, edition: models.EditionCE, want: true},
		{desc: "opt-in wikis, no filter", edit: func(t *models.Tool) { t.Toolset = models.ToolsetWikis }, edition: models.EditionCE},
		{desc: "opt-in code_security, no filter", edit: func(t *models.Tool) { t.Toolset = models.ToolsetCodeSecurity }, edition: models.EditionEE},
		{desc: "default duo_agent_platform, no filter", edit: func(t *models.Tool) { t.Toolset = models.ToolsetDuoAgent }, edition: models.EditionCE, want: true},
		{desc: "opt-in wikis, blank headers", edit: func(t *models.Tool) { t.Toolset = models.ToolsetWikis }, filter: mustFilter(t, " , ", " ,, ", ""), edition: models.EditionCE},
		{desc: "opt-in wikis, filter all", edit: func(t *models.Tool) { t.Toolset = models.ToolsetWikis }, filter: mustFilter(t, "", "all", ""), edition: models.EditionCE, want: true},
		{desc: "opt-in wikis, named", edit: func(t *models.Tool) { t.Toolset = models.ToolsetWikis }, filter: mustFilter(t, "", "WIKIS", ""), edition: models.EditionCE, want: true},
		{desc: "opt-in wikis, tool named", edit: func(t *models.Tool) { t.Toolset = models.ToolsetWikis }, filter: mustFilter(t, "get_issue", "", ""), edition: models.EditionCE, want: true},
		{desc: "custom toolset, filter all", edit: func(t *models.Tool) { t.Toolset = "custom" }, filter: mustFilter(t, "", "all", ""), edition: models.EditionCE, want: true},
		{desc: "custom toolset, filter core", edit: func(t *models.Tool) { t.Toolset = "custom" }, filter: mustFilter(t, "", "core", ""), edition: models.EditionCE},
		{desc: "prefix does not affect visibility", filter: mustFilter(t, "", "", "p_"), edition: models.EditionCE, want: true},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			tl := base
			if tc.edit != nil {
				tc.edit(&tl)
			}
			if got := tc.filter.Visible(&tl, tc.edition, tc.readOnly); got != tc.want {
				t.Errorf("Visible = %v, want %v", got, tc.want)
			}
		})
	}
	if (Filter{}).Visible(nil, models.EditionEE, false) {
		t.Error("Visible(nil) = true")
	}
}

func TestFilter_Fingerprint(t *testing.T) {
	t.Parallel()
	same := [][2][3]string{
		{{"", "", ""}, {" ", ",,", "  "}},
		{{"a,b", "", ""}, {" b , a ,a,", "", ""}},
		{{"", "ci,core", ""}, {"", "CORE, ci ,ci", ""}},
		{{"", "ci", ""}, {"", "ci,meta", ""}},
		{{"x", "all", "p"}, {"y", "ci,all", " p "}},
	}
	for _, pair := range same {
		a, b := pair[0], pair[1]
		fa, fb := mustFilter(t, a[0], a[1], a[2]), mustFilter(t, b[0], b[1], b[2])
		if fa.Fingerprint() != fb.Fingerprint() {
			t.Errorf("Fingerprint(%q) = %s, Fingerprint(%q) = %s, want equal", a, fa.Fingerprint(), b, fb.Fingerprint())
		}
	}
	distinct := [][3]string{
		{"", "", ""},
		{"a", "", ""},
		{"b", "", ""},
		{"a,b", "", ""},
		{"", "ci", ""},
		{"", "meta", ""},
		{"ci", "", ""},
		{"", "all", ""},
		{"", "", "p"},
		{"", "", "q"},
		{"a", "", "p"},
		{"a", "ci", ""},
		{"a", "meta", ""},
	}
	seen := map[string][3]string{}
	for _, h := range distinct {
		fp := mustFilter(t, h[0], h[1], h[2]).Fingerprint()
		if len(fp) != 16 {
			t.Errorf("Fingerprint(%q) = %q, want 16 hex digits", h, fp)
		}
		if prev, ok := seen[fp]; ok {
			t.Errorf("Fingerprint(%q) = Fingerprint(%q) = %s", h, prev, fp)
		}
		seen[fp] = h
	}
	if got := (Filter{}).Fingerprint(); got != mustFilter(t, "", "", "").Fingerprint() {
		t.Errorf("zero Filter fingerprint %s differs from parsed empty filter", got)
	}
	// Stability across processes and releases: cursors in flight depend on it.
	if got, want := mustFilter(t, "get_issue", "ci", "gl_").Fingerprint(), goldenFingerprint; got != want {
		t.Errorf("Fingerprint changed: got %s, want %s", got, want)
	}
}

const goldenFingerprint = "824575e816444a5e" // v1 + withToolsets (tools header alone no longer adds meta)

func TestStripPrefix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		prefix, name, want string
		ok                 bool
	}{
		{prefix: "", name: "get_issue", want: "get_issue", ok: true},
		{prefix: "gl_", name: "gl_get_issue", want: "get_issue", ok: true},
		{prefix: "gl_", name: "get_issue", want: "get_issue", ok: false},
		{prefix: "gl_", name: "gl_", want: "gl_", ok: false},
		{prefix: "gl_", name: "GL_get_issue", want: "GL_get_issue", ok: false},
		{prefix: "gl_", name: "gl_gl_x", want: "gl_x", ok: true},
		{prefix: "", name: "", want: "", ok: true},
	}
	for _, tc := range tests {
		got, ok := StripPrefix(tc.prefix, tc.name)
		if got != tc.want || ok != tc.ok {
			t.Errorf("StripPrefix(%q, %q) = %q, %v; want %q, %v", tc.prefix, tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
