package demo

import (
	"context"
	"errors"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

// Ensure every step of the build does nothing once one failed: the
// builder has no store here, so a step that wrote would panic, and so did
// mergeCommit on a project whose history was never written.
func TestBuild_stopsAtTheFirstError(t *testing.T) {
	failed := errors.New("the first step failed")
	b := &demoBuilder{ctx: context.Background(), hist: map[int64]*history{}, err: failed, w: &World{
		Groups: map[string]*models.Group{}, Projects: map[string]*models.Project{},
	}}
	b.build()
	if b.err != failed {
		t.Errorf("err = %v, want the first error", b.err)
	}
	if len(b.w.Projects) != 0 || len(b.w.Groups) != 0 || len(b.hist) != 0 {
		t.Errorf("a failed build recorded projects %v, groups %v, histories %d", b.w.Projects, b.w.Groups, len(b.hist))
	}
}
