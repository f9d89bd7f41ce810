package repository

import "github.com/go-git/go-git/v5/plumbing/object"

type queued struct {
	c   *object.Commit
	seq int
}

// commitQueue is a max-heap on committer time; ties keep push order
// (git's date-ordered walk).
type commitQueue struct {
	items []queued
	seq   int
}

func (q *commitQueue) Len() int { return len(q.items) }
func (q *commitQueue) Less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	if !a.c.Committer.When.Equal(b.c.Committer.When) {
		return a.c.Committer.When.After(b.c.Committer.When)
	}
	return a.seq < b.seq
}
func (q *commitQueue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *commitQueue) Push(x any)    { q.items = append(q.items, x.(queued)) }
func (q *commitQueue) Pop() any {
	n := len(q.items) - 1
	it := q.items[n]
	q.items = q.items[:n]
	return it
}
