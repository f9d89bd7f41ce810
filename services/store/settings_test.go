package store_test

import (
	"context"
	"sync"
	"testing"

	"gitlab.com/glmcp/glmcp/services/store"
)

func TestStore_EnsureSetting(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		v, err := s.EnsureSetting(ctx, "secret", "first")
		if err != nil || v != "first" {
			t.Fatalf("EnsureSetting(new) = %q, %v; want first", v, err)
		}
		if v, err = s.EnsureSetting(ctx, "secret", "second"); err != nil || v != "first" {
			t.Fatalf("EnsureSetting(existing) = %q, %v; want the stored first", v, err)
		}
		if _, err = s.EnsureSetting(ctx, "", "x"); err == nil {
			t.Fatal("empty key accepted")
		}
		// Racing instances agree on one value.
		var wg sync.WaitGroup
		got := make([]string, 8)
		for i := range got {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[i], _ = s.EnsureSetting(ctx, "race", string(rune('a'+i)))
			}()
		}
		wg.Wait()
		for _, g := range got {
			if g == "" || g != got[0] {
				t.Fatalf("racing EnsureSetting returned %q, want one value for all", got)
			}
		}
	})
}
