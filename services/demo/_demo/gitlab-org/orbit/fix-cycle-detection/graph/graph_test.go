package graph

import (
	"slices"
	"testing"
)

func TestReachable(t *testing.T) {
	g := New()
	g.AddEdge("app", "store")
	g.AddEdge("store", "models")
	g.AddEdge("app", "handlers")

	got := g.Reachable("app")
	want := []string{"store", "models", "handlers"}
	if !slices.Equal(got, want) {
		t.Errorf("Reachable(app) = %v, want %v", got, want)
	}
}

func TestReachable_cycle(t *testing.T) {
	g := New()
	g.AddEdge("a", "b")
	g.AddEdge("b", "c")
	g.AddEdge("c", "a")

	got := g.Reachable("a")
	want := []string{"b", "c"}
	if !slices.Equal(got, want) {
		t.Errorf("Reachable(a) = %v, want %v", got, want)
	}
}
