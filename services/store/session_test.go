package store_test

import (
	"testing"

	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// Every PostgreSQL session glmcp opens plans with its own settings (see
// sessionDefaults): no JIT, custom plans, and page costs priced for
// memory and SSDs, so that a selective search goes through its trigram
// index.
func TestSessionDefaults_postgres(t *testing.T) {
	s := storetest.OpenPostgres(t)
	for setting, want := range map[string]string{"jit": "off", "plan_cache_mode": "force_custom_plan", "random_page_cost": "1.1"} {
		var got string
		if err := s.DB().Raw("SHOW " + setting).Scan(&got).Error; err != nil || got != want {
			t.Errorf("SHOW %s = %q, %v; want %q", setting, got, err, want)
		}
	}
}
