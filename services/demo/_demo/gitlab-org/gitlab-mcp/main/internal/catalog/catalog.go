// Package catalog holds the tool definitions the server offers.
package catalog

import (
	"sort"
	"sync"
)

// Tool is one tool definition as sent in tools/list.
type Tool struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	InputSchema map[string]any `json:"inputSchema"`
}

// Catalog is the set of tools, safe for concurrent use.
type Catalog struct {
	mu    sync.RWMutex
	tools map[string]Tool
}

// New returns an empty catalog.
func New() *Catalog {
	return &Catalog{tools: make(map[string]Tool)}
}

// Add registers t, replacing a tool of the same name.
func (c *Catalog) Add(t Tool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tools[t.Name] = t
}

// List returns the tools sorted by name, so that every call, and every
// instance behind a load balancer, returns them in the same order.
func (c *Catalog) List() []Tool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]Tool, 0, len(c.tools))
	for _, t := range c.tools {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
