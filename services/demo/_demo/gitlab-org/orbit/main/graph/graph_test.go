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
