// Package graph builds a dependency graph of a code base and answers
// reachability questions over it.
package graph

// Graph is a directed graph of modules, keyed by import path.
type Graph struct {
	edges map[string][]string
}

// New returns an empty graph.
func New() *Graph {
	return &Graph{edges: make(map[string][]string)}
}

// AddEdge records that from depends on to.
func (g *Graph) AddEdge(from, to string) {
	g.edges[from] = append(g.edges[from], to)
}

// Reachable returns every module that start depends on, directly or
// indirectly.
func (g *Graph) Reachable(start string) []string {
	var out []string
	var walk func(string)
	walk = func(n string) {
		for _, next := range g.edges[n] {
			out = append(out, next)
			walk(next)
		}
	}
	walk(start)
	return out
}
