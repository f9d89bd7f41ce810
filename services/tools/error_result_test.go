package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

// A driver's error, as the store sees it from PostgreSQL.
type fakePgError struct{}

func (fakePgError) Error() string {
	return `ERROR: duplicate key value violates unique constraint "index_issues_on_project_id_and_iid" (SQLSTATE 23505)`
}

func TestErrorResult(t *testing.T) {
	driver := &models.DatabaseError{Kind: models.ErrConflict, Err: fakePgError{}}
	cases := []struct {
		name string
		err  error
		ok   bool
		text string
	}{
		{"tool error as is", Errorf("Branch already exists"), true, "Branch already exists"},
		{"caller message with kind", fmt.Errorf("wrap: %w", &models.InputError{Msg: "title: must not be blank"}), true, "Validation error: title: must not be blank"},
		{"store's own words shown", fmt.Errorf("pipeline 4 is success and cannot be canceled: %w", models.ErrInvalidInput), true,
			"Validation error: pipeline 4 is success and cannot be canceled"},
		{"conflict said once", fmt.Errorf("change vulnerability 1: vulnerability 1 is already dismissed: %w", models.ErrConflict), true,
			"Conflict: change vulnerability 1: vulnerability 1 is already dismissed"},
		{"forbidden said once", fmt.Errorf("delete pipeline 3: %w", models.ErrForbidden), true, "Forbidden: delete pipeline 3"},
		{"only the kind", models.ErrConflict, true, "Conflict: conflict"},
		{"kind inside kept", fmt.Errorf("invalid input: the title: %w", models.ErrInvalidInput), true, "Validation error: invalid input: the title"},
		{"not found capitalized", fmt.Errorf("issue 7: %w", models.ErrNotFound), true, "Issue 7: not found"},
		{"driver text hidden", fmt.Errorf("create issue: %w", driver), true,
			"Conflict: the change conflicts with the current data (it may have been made at the same moment); read it again and retry"},
		{"driver input hidden", fmt.Errorf("find project: %w", &models.DatabaseError{Kind: models.ErrInvalidInput, Err: fakePgError{}}), true,
			"Validation error: the data store refused the input; check the arguments"},
		{"server failure", errors.New("disk on fire"), false, ""},
		// A full disk, whichever layer met it, names no path.
		{"disk full", fmt.Errorf("commit: %w", &fs.PathError{Op: "write", Path: "/srv/repos/@hashed/ab/cd/x.git/objects/pack/tmp_obj_1", Err: syscall.ENOSPC}), true, InsufficientStorageText},
		{"quota", fmt.Errorf("update main: %w", &fs.PathError{Op: "open", Path: "/srv/repos/x", Err: syscall.EDQUOT}), true, InsufficientStorageText},
		{"read-only", fmt.Errorf("set HEAD: %w", &fs.PathError{Op: "rename", Path: "/srv/repos/x", Err: syscall.EROFS}), true, InsufficientStorageText},
		{"database disk full", &models.DatabaseError{Kind: models.ErrInsufficientStorage, Err: fakePgError{}}, true, InsufficientStorageText},
		{"conflict on a full disk", fmt.Errorf("%w: %w", models.ErrConflict, syscall.ENOSPC), true, InsufficientStorageText},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, ok := ErrorResult(c.err)
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v", ok, c.ok)
			}
			if !ok {
				return
			}
			if !res.IsError || res.Text != c.text {
				t.Fatalf("result = %+v, want IsError with %q", res, c.text)
			}
			if strings.Contains(res.Text, "SQLSTATE") || strings.Contains(res.Text, "index_issues") || strings.Contains(res.Text, "/srv") {
				t.Fatalf("driver text reached the result: %q", res.Text)
			}
		})
	}
	if !errors.Is(driver, models.ErrConflict) {
		t.Fatal("a DatabaseError must be its kind")
	}
}
