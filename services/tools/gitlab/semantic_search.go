package gitlab

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// Defaults and caps of semantic_search (GitLab 19.4's).
const (
	defaultCodeKNN   = 64
	defaultCodeLimit = 20
	maxCodeKNN       = 100
	snippetLines     = 12
)

// semanticSearch is GitLab 19.4's semantic_search (EE), renamed from
// semantic_code_search (an alias since). glmcp has no embeddings: it ranks
// the files of the code index — the default branch in git, re-indexed when
// it moved (services/codeindex) — with PostgreSQL full-text search (a plain
// term-frequency fallback on the embedded SQLite store).
func semanticSearch(g *gitlab) tools.Definition {
	var t semanticSearchTool
	if !noStore(g.store) {
		t = semanticSearchTool{store: g.store.Search, index: g.index, links: g.links}
	}
	return tools.Definition{
		Name:  "semantic_search",
		Title: "Semantic search",
		Description: "Search for relevant content in a GitLab project by meaning rather than keywords. Use this tool " +
			"when you do not know the exact symbol or file names, or to discover how a behaviour is implemented " +
			"across the codebase. Results are grouped by file; each file has merged line ranges with content and a " +
			"relevance score. Describe the functionality or behaviour you are interested in.",
		InputSchema: argsSchema(t.run, obj{
			"scope":      enumProp("Type of content to search. Only code is supported.", "code"),
			"q":          strProp("Natural language search query.", 1, 1000),
			"project_id": projectRefProp("ID or full path of the project."),
			"directory_path": strProp("Restrict the search to files under this directory path (for example, app/services/). "+
				"Must be a relative path without a leading slash or .. segments. Applies only when scope is code.", 1, 1000),
			"knn": withDesc(obj{"type": "integer", "minimum": 1, "maximum": maxCodeKNN},
				"Number of nearest neighbors retrieved internally. Default 64, max 100. Applies only when scope is code."),
			"limit": withDesc(obj{"type": "integer", "minimum": 1, "maximum": maxPerPage},
				"Maximum number of results to return. Default 20, max 100. Applies only when scope is code."),
		}, "scope", "q", "project_id"),
		Annotations: readOnlyTool("Semantic search"),
		Toolset:     models.ToolsetCore,
		Edition:     models.EditionEE,
		Source:      "ee/lib/api/search/semantic_code_search.rb",
		Aliases:     []string{"semantic_code_search"},
		Target: g.projectTarget("project_id", access.ReadCode, func(p *models.Project) error {
			return forbiddenf("you need at least the Reporter role in project %s to read its code", p.PathWithNamespace)
		}),
		Run: tools.Typed(t.run),
	}
}

type semanticSearchArgs struct {
	Scope     string  `json:"scope"`
	Query     string  `json:"q"`
	ProjectID refArg  `json:"project_id"`
	Directory string  `json:"directory_path"`
	KNN       *intArg `json:"knn"`
	Limit     *intArg `json:"limit"`
}

type codeRangeJSON struct {
	StartLine int     `json:"start_line"`
	EndLine   int     `json:"end_line"`
	Content   string  `json:"content"`
	Score     float64 `json:"score"`
}

type codeFileJSON struct {
	ProjectID int64           `json:"project_id"`
	Path      string          `json:"path"`
	Ref       string          `json:"ref"`
	BlobID    string          `json:"blob_id"`
	Score     float64         `json:"score"`
	WebURL    string          `json:"web_url"`
	Ranges    []codeRangeJSON `json:"ranges"`
}

// semanticSearchStore is what semantic_search reads: the code index's
// ranking.
type semanticSearchStore interface {
	SearchCode(ctx context.Context, q models.CodeSearchQuery) ([]models.CodeSearchHit, error)
}

// semanticSearchTool is semantic_search with what it needs: the ranking,
// the index it brings up to date first and the links of its answers.
type semanticSearchTool struct {
	store semanticSearchStore // nil: no store (a catalog built without one)
	index CodeIndex           // nil: no repositories to index
	links links
}

func (t semanticSearchTool) run(ctx context.Context, call *tools.Call, args semanticSearchArgs) (*tools.Result, error) {
	if t.store == nil {
		return nil, errNoStore
	}
	if _, err := callerOf(call); err != nil {
		return nil, err
	}
	terms := queryTerms(args.Query)
	if len(terms) == 0 {
		return nil, invalidf("q: has no searchable words")
	}
	dir := strings.TrimSpace(args.Directory)
	if strings.HasPrefix(dir, "/") || dir == ".." || strings.HasPrefix(dir, "../") || strings.Contains(dir, "/../") || strings.HasSuffix(dir, "/..") {
		return nil, invalidf("directory_path: must be a relative path without a leading slash or .. segments")
	}
	pa, err := targetProject(call)
	if err != nil {
		return nil, err
	}
	limit, knn := defaultCodeLimit, defaultCodeKNN
	if args.Limit != nil {
		limit = int(*args.Limit)
	}
	if args.KNN != nil {
		knn = int(*args.KNN)
	}
	if dir = strings.Trim(dir, "/"); dir != "" {
		dir += "/"
	}
	if t.index == nil {
		return nil, errNoRepositories
	}
	// The index is of the default branch at its head in git, re-read
	// here when the branch moved (a push with plain git included).
	st, err := t.index.Ensure(ctx, pa.project.ID, pa.project.DefaultBranch)
	if errors.Is(err, models.ErrNotFound) {
		return nil, notFound("Repository") // not the storage's text, which names internal ids
	}
	if err != nil {
		return nil, err
	}
	items := make([]codeFileJSON, 0, limit)
	if st == nil || st.LastCommit == "" { // an empty repository
		return jsonResult(obj{"scope": "code", "results": items})
	}
	hits, err := t.store.SearchCode(ctx, models.CodeSearchQuery{ProjectID: pa.project.ID,
		Ref: st.Ref, Directory: dir, Terms: terms, Limit: min(limit, knn)})
	if err != nil {
		return nil, err
	}
	for _, h := range hits {
		start, end, snippet := codeSnippet(h.File.Content, terms)
		score := math.Round(h.Score*1e6) / 1e6
		items = append(items, codeFileJSON{ProjectID: h.File.ProjectID, Path: h.File.FilePath, Ref: h.File.Ref,
			BlobID: h.File.BlobID, Score: score,
			WebURL: fmt.Sprintf("%s/-/blob/%s/%s#L%d-%d", t.links.projectURL(pa.project), h.File.Ref, h.File.FilePath, start, end),
			Ranges: []codeRangeJSON{{StartLine: start, EndLine: end, Content: snippet, Score: score}}})
	}
	return jsonResult(obj{"scope": "code", "results": items})
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
