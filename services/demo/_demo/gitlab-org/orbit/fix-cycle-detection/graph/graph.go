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
// indirectly, in depth-first order. Each module is listed once, so cyclic
// dependencies terminate.
func (g *Graph) Reachable(start string) []string {
	var out []string
	seen := map[string]bool{start: true}
	var walk func(string)
	walk = func(n string) {
		for _, next := range g.edges[n] {
			if seen[next] {
				continue
			}
			seen[next] = true
			out = append(out, next)
			walk(next)
		}
	}
	walk(start)
	return out
}
