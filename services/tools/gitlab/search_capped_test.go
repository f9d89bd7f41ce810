package gitlab_test

import (
	"context"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
	"gitlab.com/glmcp/glmcp/services/tools/gitlab"
)

// cappedStore answers SearchIssues with the store's page and the total a
// search with more matches than models.SearchCountCap reports.
type cappedStore struct {
	gitlab.SearchFamily
	total int64
}

func (s *cappedStore) SearchIssues(ctx context.Context, q models.SearchQuery) ([]models.Issue, int64, error) {
	is, _, err := s.SearchFamily.SearchIssues(ctx, q)
	return is, s.total, err
}

// Past the count cap the search tool shows no total (GitLab's "1,000+"),
// and next_page follows what the store says is left.
func TestSearch_cappedTotal(t *testing.T) {
	capped := &cappedStore{}
	w := newWorldWith(t, storetest.Open(t), func(f gitlab.Families) gitlab.Families {
		capped.SearchFamily = f.Search
		f.Search = capped
		return f
	})
	for _, c := range []struct {
		name     string
		total    int64
		page     int
		wantNext any
	}{
		{"exact up to the cap", models.SearchCountCap, 1, float64(2)},
		{"more than the cap", models.SearchCountCap + 1, 1, float64(2)},
		{"last page past the cap", 1040, 53, nil}, // page 53 starts at 1,040, which the store says is the end
		{"a page past the cap with more", 2000, 60, float64(61)},
	} {
		t.Run(c.name, func(t *testing.T) {
			capped.total = c.total
			m := w.ok(t, w.Root, "search", map[string]any{"scope": "issues", "search": "a", "page": c.page})
			pi := get(t, m, "pageInfo").(map[string]any)
			if c.total <= models.SearchCountCap {
				jsonEq(t, "total", pi["total"], c.total)
				jsonEq(t, "total_pages", pi["total_pages"], (c.total+19)/20)
			} else if pi["total"] != nil || pi["total_pages"] != nil {
				t.Errorf("pageInfo = %v; want total and total_pages null past the cap", pi)
			}
			jsonEq(t, "next_page", pi["next_page"], c.wantNext)
			jsonEq(t, "page", pi["page"], c.page)
		})
	}
}
