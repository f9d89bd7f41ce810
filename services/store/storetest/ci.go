package storetest

import (
	"testing"

	"gitlab.com/glmcp/glmcp/services/store"
)

// CancelUnfinishedCI marks the pipelines and jobs of project that had not
// finished as canceled, as GitLab's importer imports them
// (doc/import-export.md): a spec that compares a project with its imported
// copy compares the source as it imports.
func CancelUnfinishedCI(tb testing.TB, st *store.Store, projectID int64) {
	tb.Helper()
	for _, table := range []string{"ci_pipelines", "ci_jobs"} {
		if err := st.DB().Exec("UPDATE "+table+" SET status = 'canceled' WHERE project_id = ? AND status NOT IN ('success', 'failed', 'canceled', 'skipped')",
			projectID).Error; err != nil {
			tb.Fatal(err)
		}
	}
}
