package store

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"

	"gitlab.com/glmcp/glmcp/migrations"
	"gitlab.com/glmcp/glmcp/models"
)

// sqliteCodeCandidates caps the files the SQLite fallback scores in Go.
const sqliteCodeCandidates = 1000

// SearchCode ranks the files of a project at one ref against q.Terms (see
// models.CodeSearchQuery). On PostgreSQL it uses the repository_files
// search_vector (to_tsvector('simple', path and content)) with prefix
// matching and ts_rank_cd; on SQLite, which has no text index here, it
// selects files containing any term with LIKE and scores them by term
// frequency. Terms that are not words (letters, digits, "_") are ignored;
// no usable term is models.ErrInvalidInput.
func (s *Search) SearchCode(ctx context.Context, q models.CodeSearchQuery) ([]models.CodeSearchHit, error) {
	terms := wordTerms(q.Terms)
	if len(terms) == 0 {
		return nil, fmt.Errorf("search code: no searchable word in the query: %w", models.ErrInvalidInput)
	}
	if q.Limit <= 0 {
		q.Limit = 20
	}
	var (
		hits []models.CodeSearchHit
		err  error
	)
	if s.dialect == migrations.DialectPostgres {
		hits, err = s.searchCodePostgres(ctx, q, terms)
	} else {
		hits, err = s.searchCodeLike(ctx, q, terms)
	}
	if err != nil {
		return nil, fmt.Errorf("search code in project %d: %w", q.ProjectID, err)
	}
	return hits, nil
}

func (s *Search) searchCodePostgres(ctx context.Context, q models.CodeSearchQuery, terms []string) ([]models.CodeSearchHit, error) {
	parts := make([]string, len(terms))
	for k, t := range terms {
		parts[k] = "'" + t + "':*"
	}
	tsq := strings.Join(parts, " | ")
	db := s.conn(ctx).Table("repository_files").
		Select("id, project_id, ref, file_path, content, size, blob_id, created_at, updated_at, "+
			"ts_rank_cd(search_vector, to_tsquery('simple', ?)) AS score", tsq).
		Where("project_id = ? AND ref = ?", q.ProjectID, q.Ref).
		Where("search_vector @@ to_tsquery('simple', ?)", tsq)
	if q.Directory != "" {
		db = db.Where(`file_path LIKE ? ESCAPE '\'`, likeEscape(q.Directory)+"%")
	}
	var rows []struct {
		models.RepositoryFile
		Score float64
	}
	if err := db.Order("score DESC, file_path").Limit(q.Limit).Scan(&rows).Error; err != nil {
		return nil, translate(err)
	}
	out := make([]models.CodeSearchHit, len(rows))
	for k, r := range rows {
		out[k] = models.CodeSearchHit{File: r.RepositoryFile, Score: r.Score}
	}
	return out, nil
}

func (s *Search) searchCodeLike(ctx context.Context, q models.CodeSearchQuery, terms []string) ([]models.CodeSearchHit, error) {
	db := s.conn(ctx).Where("project_id = ? AND ref = ?", q.ProjectID, q.Ref)
	if q.Directory != "" {
		db = db.Where(`file_path LIKE ? ESCAPE '\'`, likeEscape(q.Directory)+"%")
	}
	db = matchAnyTerm(db, terms, "file_path", "content")
	var files []models.RepositoryFile
	if err := db.Order("file_path").Limit(sqliteCodeCandidates).Find(&files).Error; err != nil {
		return nil, translate(err)
	}
	hits := make([]models.CodeSearchHit, 0, len(files))
	for _, f := range files {
		if score := termScore(f, terms); score > 0 {
			hits = append(hits, models.CodeSearchHit{File: f, Score: score})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	if len(hits) > q.Limit {
		hits = hits[:q.Limit]
	}
	return hits, nil
}

// termScore is the SQLite fallback's relevance: for each term, 1 + ln(term
// frequency) over path (weighted 3) and content, times the fraction of the
// terms found, so files matching every term rank first.
func termScore(f models.RepositoryFile, terms []string) float64 {
	content, path := strings.ToLower(f.Content), strings.ToLower(f.FilePath)
	var sum float64
	found := 0
	for _, t := range terms {
		tf := strings.Count(content, t) + 3*strings.Count(path, t)
		if tf == 0 {
			continue
		}
		found++
		sum += 1 + math.Log(float64(tf))
	}
	if found == 0 {
		return 0
	}
	score := sum * float64(found) / float64(len(terms))
	return math.Round(score*1e6) / 1e6
}

// wordTerms keeps the lower-cased terms made only of letters, digits and
// "_", without duplicates.
func wordTerms(terms []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range terms {
		t = strings.ToLower(strings.TrimSpace(t))
		if t == "" || seen[t] || strings.IndexFunc(t, func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
		}) >= 0 {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	return out
}
