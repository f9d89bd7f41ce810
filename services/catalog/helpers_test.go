package catalog

import (
	"fmt"
	"slices"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

var testSecret = []byte("0123456789abcdef0123456789abcdef")

const (
	annotRO = `{"title":"t","readOnlyHint":true,"destructiveHint":false}`
	annotRW = `{"title":"t","readOnlyHint":false,"destructiveHint":true}`
)

// tool builds a tool definition for tests.
func tool(name, toolset string, edition models.Edition, readOnly bool, aliases ...string) models.Tool {
	annot := annotRW
	if readOnly {
		annot = annotRO
	}
	return models.Tool{
		Name:        name,
		Toolset:     toolset,
		Edition:     edition,
		Enabled:     true,
		Annotations: models.JSON(annot),
		Aliases:     models.StringList(aliases),
	}
}

// fixtureCatalog is a small GitLab-shaped catalog, sorted by name.
func fixtureCatalog() []models.Tool {
	disabled := tool("disabled_tool", models.ToolsetCore, models.EditionCE, true)
	disabled.Enabled = false
	tools := []models.Tool{
		tool("get_mcp_server_version", models.ToolsetMeta, models.EditionCE, true),
		tool("get_issue", models.ToolsetCore, models.EditionCE, true),
		tool("create_issue", models.ToolsetCore, models.EditionCE, false),
		tool("search", models.ToolsetCore, models.EditionCE, true, "gitlab_search"),
		tool("search_labels", models.ToolsetCore, models.EditionCE, true),
		tool("get_merge_request", models.ToolsetMergeRequests, models.EditionCE, true),
		tool("create_merge_request", models.ToolsetMergeRequests, models.EditionCE, false),
		tool("create_workitem_note", models.ToolsetWorkItems, models.EditionCE, false),
		tool("get_workitem_notes", models.ToolsetWorkItems, models.EditionCE, true),
		tool("get_pipeline_jobs", models.ToolsetCI, models.EditionCE, true),
		tool("semantic_code_search", models.ToolsetCore, models.EditionEE, true),
		disabled,
	}
	SortTools(tools)
	return tools
}

// syntheticCatalog returns n tools, sorted by name, with a spread of
// toolsets, editions, read-only hints, disabled tools and aliases.
func syntheticCatalog(n int) []models.Tool {
	stems := []string{"Zeta", "alpha", "beta", "get", "get_", "search", "x"}
	toolsets := []string{models.ToolsetMeta, models.ToolsetCore, models.ToolsetMergeRequests, models.ToolsetWorkItems, models.ToolsetCI}
	tools := make([]models.Tool, 0, n)
	for i := range n {
		edition := models.EditionCE
		if i%7 == 0 {
			edition = models.EditionEE
		}
		var aliases []string
		if i%13 == 0 {
			aliases = []string{fmt.Sprintf("alias_%05d", i)}
		}
		t := tool(fmt.Sprintf("%s_%05d", stems[i%len(stems)], i), toolsets[(i/3)%len(toolsets)], edition, i%3 != 0, aliases...)
		t.Enabled = i%11 != 0
		tools = append(tools, t)
	}
	SortTools(tools)
	return tools
}

// visibleNames lists, in order, the names of tools visible to q, with the
// filter's prefix.
func visibleNames(tools []models.Tool, q Query) []string {
	var names []string
	for i := range tools {
		if q.Filter.Visible(&tools[i], q.Edition, q.ReadOnly) {
			names = append(names, q.Filter.Prefix()+tools[i].Name)
		}
	}
	return names
}

func names(tools []models.Tool) []string {
	out := make([]string, 0, len(tools))
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}

func mustFilter(tb testing.TB, tools, toolsets, prefix string) Filter {
	tb.Helper()
	f, err := ParseFilter(tools, toolsets, prefix, testToolsets)
	if err != nil {
		tb.Fatalf("ParseFilter(%q, %q, %q): %v", tools, toolsets, prefix, err)
	}
	return f
}

func mustLister(tb testing.TB, pageSize int) *Lister {
	tb.Helper()
	l, err := NewLister(testSecret, pageSize)
	if err != nil {
		tb.Fatalf("NewLister: %v", err)
	}
	return l
}

func equalNames(tb testing.TB, what string, got, want []string) {
	tb.Helper()
	if !slices.Equal(got, want) {
		tb.Errorf("%s:\n got  %q\n want %q", what, got, want)
	}
}

// testToolsets are the toolsets of fixtureCatalog.
var testToolsets = Toolsets([]string{models.ToolsetCore, models.ToolsetMergeRequests, models.ToolsetWorkItems, models.ToolsetCI})

// toolPage is a page of tools rendered as tools/list names them.
type toolPage struct {
	Tools      []models.Tool
	NextCursor string
}

// pageTools pages through tools with the visibility rule of Filter.Visible
// and applies the filter's prefix to the names, as tools/list renders them.
func pageTools(l *Lister, tools []models.Tool, q Query) (toolPage, error) {
	p, err := PageOf(l, tools, Paged[models.Tool]{
		Name:    func(t *models.Tool) string { return t.Name },
		Visible: func(t *models.Tool) bool { return q.Filter.Visible(t, q.Edition, q.ReadOnly) },
	}, q)
	if err != nil {
		return toolPage{}, err
	}
	out := toolPage{Tools: make([]models.Tool, 0, len(p.Items)), NextCursor: p.NextCursor}
	for _, t := range p.Items {
		c := *t
		c.Name = q.Filter.Prefix() + c.Name
		out.Tools = append(out.Tools, c)
	}
	return out, nil
}
