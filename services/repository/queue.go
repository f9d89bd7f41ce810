package repository

import "container/heap"

// queued is an item of a dateQueue with its committer time (Unix seconds,
// git's precision) and its place in push order.
type queued[T any] struct {
	v    T
	when int64
	seq  int
}

// dateQueue is a max-heap on committer time; ties keep push order
// (git's date-ordered walk).
type dateQueue[T any] struct {
	items []queued[T]
	seq   int
}

func (q *dateQueue[T]) push(v T, when int64) {
	q.seq++
	heap.Push(q, queued[T]{v: v, when: when, seq: q.seq})
}

func (q *dateQueue[T]) pop() T { return heap.Pop(q).(queued[T]).v }

func (q *dateQueue[T]) Len() int { return len(q.items) }
func (q *dateQueue[T]) Less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	if a.when != b.when {
		return a.when > b.when
	}
	return a.seq < b.seq
}
func (q *dateQueue[T]) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *dateQueue[T]) Push(x any)    { q.items = append(q.items, x.(queued[T])) }
func (q *dateQueue[T]) Pop() any {
	n := len(q.items) - 1
	it := q.items[n]
	q.items = q.items[:n]
	return it
}
