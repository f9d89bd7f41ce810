package gitlab

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

func init() {
	register((*gitlab).semanticCodeSearch)
}

// Defaults of semantic_code_search (GitLab's).
const (
	defaultCodeKNN   = 64
	defaultCodeLimit = 20
	snippetLines     = 12
)

// semanticCodeSearch is GitLab's semantic_code_search (EE). glmcp has no
// embeddings: it ranks files with PostgreSQL full-text search (a plain
// term-frequency fallback on the embedded SQLite store).
func (g *gitlab) semanticCodeSearch() tools.Definition {
	return tools.Definition{
		Name:  "semantic_code_search",
		Title: "Semantic code search",
		Description: "Search a GitLab project's code on its default branch for the files most relevant to a query, " +
			"ranked best first. Each result has the file path, a snippet with line numbers around the best " +
			"matching lines, and a score. Describe the functionality you are looking for in words that appear " +
			"in the code (names, comments).",
		InputSchema: inputSchema(obj{
			"semantic_query": strProp("Search query for the code.", 1, 1000),
			"project_id":     projectIDProp(),
			"directory_path": strProp("Only search files under this directory (for example app/services/).", 1, 1000),
			"knn": withDesc(obj{"type": "integer", "minimum": 1, "maximum": 1000, "default": defaultCodeKNN},
				"Number of nearest neighbours (candidate files) considered before limit is applied. Default 64."),
			"limit": withDesc(obj{"type": "integer", "minimum": 1, "maximum": maxPerPage, "default": defaultCodeLimit},
				"Maximum number of results to return. Default 20, max 100."),
		}, "semantic_query", "project_id"),
		Annotations: readOnlyTool("Semantic code search"),
		Toolset:     models.ToolsetCore,
		Edition:     models.EditionEE,
		Run:         tools.Typed(g.runSemanticCodeSearch),
	}
}

type codeHitJSON struct {
	ProjectID int64   `json:"project_id"`
	Path      string  `json:"path"`
	Ref       string  `json:"ref"`
	BlobID    string  `json:"blob_id"`
	Score     float64 `json:"score"`
	StartLine int     `json:"start_line"`
	EndLine   int     `json:"end_line"`
	Snippet   string  `json:"snippet"`
	WebURL    string  `json:"web_url"`
}

type semanticCodeSearchArgs struct {
	Query     string  `json:"semantic_query"`
	ProjectID refArg  `json:"project_id"`
	Directory string  `json:"directory_path"`
	KNN       *intArg `json:"knn"`
	Limit     *intArg `json:"limit"`
}

func (g *gitlab) runSemanticCodeSearch(ctx context.Context, call *tools.Call, args semanticCodeSearchArgs) (*tools.Result, error) {
	u, err := g.viewer(call)
	if err != nil {
		return nil, err
	}
	terms := queryTerms(args.Query)
	if len(terms) == 0 {
		return nil, invalidf("semantic_query: has no searchable words")
	}
	pa, err := resolveProject(ctx, g.store, u, "project_id", args.ProjectID)
	if err != nil {
		return nil, err
	}
	if !access.CanReadCode(u, pa.project, pa.level) {
		return nil, forbiddenf("you need at least the Reporter role in project %s to read its code", pa.project.PathWithNamespace)
	}
	limit, knn := defaultCodeLimit, defaultCodeKNN
	if args.Limit != nil {
		limit = int(*args.Limit)
	}
	if args.KNN != nil {
		knn = int(*args.KNN)
	}
	dir := strings.Trim(strings.TrimSpace(args.Directory), "/")
	if dir != "" {
		dir += "/"
	}
	hits, err := g.store.SearchCode(ctx, models.CodeSearchQuery{ProjectID: pa.project.ID,
		Ref: pa.project.DefaultBranch, Directory: dir, Terms: terms, Limit: min(limit, knn)})
	if err != nil {
		return nil, err
	}
	items := make([]codeHitJSON, 0, len(hits))
	for _, h := range hits {
		start, end, snippet := codeSnippet(h.File.Content, terms)
		items = append(items, codeHitJSON{ProjectID: h.File.ProjectID, Path: h.File.FilePath, Ref: h.File.Ref,
			BlobID: h.File.BlobID, Score: math.Round(h.Score*1e6) / 1e6, StartLine: start, EndLine: end,
			Snippet: snippet,
			WebURL:  fmt.Sprintf("%s/-/blob/%s/%s#L%d-%d", g.projectURL(pa.project), h.File.Ref, h.File.FilePath, start, end)})
	}
	return jsonResult(listJSON[codeHitJSON]{Items: items, PageInfo: newRESTPageInfo(1, limit, int64(len(items)))})
}

// stopWords are left out of a natural-language query unless nothing else
// is left.
var stopWords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true, "by": true,
	"do": true, "does": true, "for": true, "from": true, "how": true, "i": true, "in": true, "is": true,
	"it": true, "of": true, "on": true, "or": true, "the": true, "this": true, "that": true, "to": true,
	"was": true, "what": true, "when": true, "where": true, "which": true, "who": true, "why": true,
	"with": true, "we": true, "our": true, "code": true,
}

// queryTerms splits a query into lower-case words (letters, digits, "_"),
// without stop words and duplicates.
func queryTerms(q string) []string {
	words := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	})
	var out, all []string
	seen := map[string]bool{}
	for _, w := range words {
		if seen[w] {
			continue
		}
		seen[w] = true
		all = append(all, w)
		if !stopWords[w] {
			out = append(out, w)
		}
	}
	if len(out) == 0 {
		return all
	}
	return out
}

// codeSnippet picks the snippetLines-line window of content with the most
// term hits (the earliest on ties) and returns its 1-based first and last
// line and the lines prefixed with their numbers ("12: code").
func codeSnippet(content string, terms []string) (start, end int, snippet string) {
	lines := strings.Split(strings.TrimRight(content, "\n"), "\n")
	score := make([]int, len(lines))
	for k, l := range lines {
		ll := strings.ToLower(l)
		for _, t := range terms {
			if strings.Contains(ll, t) {
				score[k]++
			}
		}
	}
	w := min(snippetLines, len(lines))
	best, sum := 0, 0
	for k := 0; k < w; k++ {
		sum += score[k]
	}
	bestSum := sum
	for k := w; k < len(lines); k++ {
		sum += score[k] - score[k-w]
		if sum > bestSum {
			best, bestSum = k-w+1, sum
		}
	}
	// Any start keeping the window's first and last hit keeps its hits:
	// prefer two lines of context before the first.
	first, last := -1, -1
	for k := best; k < best+w; k++ {
		if score[k] > 0 {
			if first < 0 {
				first = k
			}
			last = k
		}
	}
	if first >= 0 {
		best = max(first-2, last-w+1, 0)
		best = min(best, first, len(lines)-w)
	}
	var b strings.Builder
	for k := best; k < best+w; k++ {
		fmt.Fprintf(&b, "%d: %s\n", k+1, lines[k])
	}
	return best + 1, best + w, strings.TrimRight(b.String(), "\n")
}
