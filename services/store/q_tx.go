package store

import "context"

// RunInTx is WithTx for consumers that cannot name *Store (services declare
// their own store interfaces): fn receives the transaction's *Store as any
// and type-asserts it to its interface. Commit and rollback are WithTx's.
func (s *Store) RunInTx(ctx context.Context, fn func(tx any) error) error {
	return s.WithTx(ctx, func(tx *Store) error { return fn(tx) })
}
