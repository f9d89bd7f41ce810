package store

import (
	"context"
	"fmt"

	"gitlab.com/glmcp/glmcp/migrations"
)

// resourceChannel is subscriptions.ResourceChannel (the store does not
// import the hub).
const resourceChannel = "glmcp_resources"

// AnnounceResourceChange tells every serving instance that the resource
// with key changed (a resource key of package subscriptions, such as
// "r:7:main" after a ref moved). Database rows announce themselves through
// triggers (migration 20261201140000); this is for what the database does
// not hold, such as git refs. On PostgreSQL it is a NOTIFY on
// glmcp_resources; on the embedded store a row of resource_changes.
func (s *Store) AnnounceResourceChange(ctx context.Context, key string) error {
	var err error
	if s.dialect == migrations.DialectPostgres {
		err = s.db.WithContext(ctx).Exec("SELECT pg_notify(?, ?)", resourceChannel, key).Error
	} else {
		err = s.db.WithContext(ctx).Exec("INSERT INTO resource_changes (resource) VALUES (?)", key).Error
	}
	if err != nil {
		return fmt.Errorf("announce change of %q: %w", key, translate(err))
	}
	return nil
}

// ResourceChange is one row of the embedded store's resource_changes.
type ResourceChange struct {
	ID       int64
	Resource string
}

// ResourceChangesAfter returns up to limit resource changes of the
// embedded store with an id above after, oldest first, and deletes every
// change up to the last one returned: one process serves an embedded
// store. With after < 0 it returns none and only the newest id, the
// place a new reader starts from. PostgreSQL has no such rows (NOTIFY
// delivers its changes); it returns none.
func (s *Store) ResourceChangesAfter(ctx context.Context, after int64, limit int) ([]ResourceChange, int64, error) {
	if s.dialect == migrations.DialectPostgres {
		return nil, after, nil
	}
	db := s.db.WithContext(ctx)
	if after < 0 {
		var last int64
		if err := db.Raw("SELECT COALESCE(MAX(id), 0) FROM resource_changes").Scan(&last).Error; err != nil {
			return nil, 0, fmt.Errorf("read resource changes: %w", translate(err))
		}
		return nil, last, nil
	}
	var out []ResourceChange
	if err := db.Raw("SELECT id, resource FROM resource_changes WHERE id > ? ORDER BY id LIMIT ?", after, limit).
		Scan(&out).Error; err != nil {
		return nil, after, fmt.Errorf("read resource changes: %w", translate(err))
	}
	if len(out) == 0 {
		return nil, after, nil
	}
	last := out[len(out)-1].ID
	if err := db.Exec("DELETE FROM resource_changes WHERE id <= ?", last).Error; err != nil {
		return nil, after, fmt.Errorf("delete read resource changes: %w", translate(err))
	}
	return out, last, nil
}
