package store_test

import (
	"context"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

// GitLab's waiting_for_callback and canceling statuses are stored like the
// others; a job waiting for a callback is canceled with its pipeline, a
// canceling one is already on its way.
func TestStore_CIStatuses(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		p := mustCreateProject(t, s, "g", "p")
		waiting := &models.Pipeline{ProjectID: p.ID, SHA: "abc", Ref: "main", Status: "waiting_for_callback",
			Jobs: []models.CIJob{{Name: "deploy", Status: "waiting_for_callback"}, {Name: "lint", Status: models.StatusSuccess}}}
		wantErr(t, "CreatePipeline(waiting_for_callback)", s.CI.CreatePipeline(ctx, waiting), nil)
		canceled, err := s.CI.CancelPipeline(ctx, waiting.ID)
		if err != nil || canceled.Status != models.StatusCanceled {
			t.Fatalf("cancel: %+v %v", canceled, err)
		}
		jobs, _, err := s.CI.PageJobs(ctx, models.JobQuery{PipelineID: waiting.ID, Limit: 10})
		if err != nil || len(jobs) != 2 || jobs[0].Status != models.StatusCanceled || jobs[1].Status != models.StatusSuccess {
			t.Fatalf("jobs after cancel = %+v %v", jobs, err)
		}

		canceling := &models.Pipeline{ProjectID: p.ID, SHA: "abc", Ref: "main", Status: "canceling",
			Jobs: []models.CIJob{{Name: "test", Status: "canceling"}}}
		wantErr(t, "CreatePipeline(canceling)", s.CI.CreatePipeline(ctx, canceling), nil)
		_, err = s.CI.CancelPipeline(ctx, canceling.ID)
		wantErr(t, "cancel a canceling pipeline", err, models.ErrInvalidInput)

		bogus := &models.Pipeline{ProjectID: p.ID, SHA: "abc", Ref: "main", Status: "cancelling"}
		wantErr(t, "CreatePipeline(cancelling)", s.CI.CreatePipeline(ctx, bogus), models.ErrInvalidInput)
	})
}
