package store_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

func TestStore_ScanProfiles(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		p1 := mustCreateProject(t, s, "sec", "one")
		p2 := mustCreateProject(t, s, "sec", "two")

		wantErr(t, "no default", func() error {
			_, err := s.Vulnerabilities.DefaultScanProfile(ctx, p1.NamespaceID, "container_scanning")
			return err
		}(), models.ErrNotFound)
		if n := countRows(t, s, "security_scan_profiles"); n != 0 {
			t.Fatalf("a refused default left %d profiles", n)
		}

		// Eight callers at once get one row.
		var wg sync.WaitGroup
		ids := make([]int64, 8)
		errs := make([]error, 8)
		for i := range ids {
			wg.Go(func() {
				p, err := s.Vulnerabilities.DefaultScanProfile(ctx, p1.NamespaceID, "secret_detection")
				errs[i] = err
				if err == nil {
					ids[i] = p.ID
				}
			})
		}
		wg.Wait()
		for i := range ids {
			if errs[i] != nil || ids[i] != ids[0] {
				t.Fatalf("DefaultScanProfile #%d = %d, %v; want %d", i, ids[i], errs[i], ids[0])
			}
		}
		prof, err := s.Vulnerabilities.FindScanProfile(ctx, ids[0])
		if err != nil || prof.Name != "Secret Detection (default)" || !prof.GitLabRecommended || prof.NamespaceID != p1.NamespaceID {
			t.Fatalf("FindScanProfile = %+v, %v", prof, err)
		}
		wantErr(t, "FindScanProfile(missing)", func() error { _, err := s.Vulnerabilities.FindScanProfile(ctx, ids[0]+100); return err }(), models.ErrNotFound)

		// Attaching twice attaches once.
		for range 2 {
			full, err := s.Vulnerabilities.AttachScanProfile(ctx, prof.ID, []int64{p1.ID, p2.ID})
			if err != nil || len(full) != 0 {
				t.Fatalf("AttachScanProfile = %v, %v", full, err)
			}
		}
		if got, err := s.Vulnerabilities.ScanProfileProjectIDs(ctx, prof.ID); err != nil || !slices.Equal(got, []int64{p1.ID, p2.ID}) {
			t.Fatalf("ScanProfileProjectIDs = %v, %v", got, err)
		}

		// A project at the limit is returned and gets nothing more.
		for i := range models.MaxScanProfilesPerProject - 1 {
			p := &models.ScanProfile{NamespaceID: p1.NamespaceID, ScanType: "sast", Name: fmt.Sprintf("p%d", i)}
			if err := s.Vulnerabilities.CreateScanProfile(ctx, p); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Vulnerabilities.AttachScanProfile(ctx, p.ID, []int64{p1.ID}); err != nil {
				t.Fatal(err)
			}
		}
		extra, err := s.Vulnerabilities.DefaultScanProfile(ctx, p1.NamespaceID, "sast")
		if err != nil {
			t.Fatal(err)
		}
		full, err := s.Vulnerabilities.AttachScanProfile(ctx, extra.ID, []int64{p1.ID, p2.ID})
		if err != nil || !slices.Equal(full, []int64{p1.ID}) {
			t.Fatalf("AttachScanProfile at the limit = %v, %v; want [%d]", full, err, p1.ID)
		}
		if got, _ := s.Vulnerabilities.ScanProfileProjectIDs(ctx, extra.ID); !slices.Equal(got, []int64{p2.ID}) {
			t.Fatalf("projects of the extra profile = %v, want [%d]", got, p2.ID)
		}
		wantErr(t, "CreateScanProfile(unknown type)", s.Vulnerabilities.CreateScanProfile(ctx,
			&models.ScanProfile{NamespaceID: p1.NamespaceID, ScanType: "nope", Name: "x"}), models.ErrInvalidInput)
		wantErr(t, "CreateScanProfile(blank name)", s.Vulnerabilities.CreateScanProfile(ctx,
			&models.ScanProfile{NamespaceID: p1.NamespaceID, ScanType: "sast", Name: " "}), models.ErrInvalidInput)
		wantErr(t, "CreateScanProfile(second default)", s.Vulnerabilities.CreateScanProfile(ctx,
			&models.ScanProfile{NamespaceID: p1.NamespaceID, ScanType: "sast", Name: "again", GitLabRecommended: true}), models.ErrConflict)
		wantErr(t, "AttachScanProfile(missing project)", func() error {
			_, err := s.Vulnerabilities.AttachScanProfile(ctx, extra.ID, []int64{p2.ID + 100})
			return err
		}(), models.ErrNotFound)
	})
}
