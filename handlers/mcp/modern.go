package mcp

import (
	"time"
)

// modernFields returns the fields every Modern result carries. Meta is
// shared by every result: never modify it.
func (s *Server) modernFields() resultFields {
	return resultFields{ResultType: "complete", Meta: s.modernMeta}
}

type discoverResult struct {
	resultFields
	SupportedVersions []string       `json:"supportedVersions"`
	Capabilities      map[string]any `json:"capabilities"`
	Instructions      string         `json:"instructions,omitempty"`
	TTLMs             int64          `json:"ttlMs"`
	CacheScope        string         `json:"cacheScope"`
}

// discover answers server/discover. The answer is the same for every
// caller of this endpoint, so it is publicly cacheable.
func (s *Server) discover(*exchange, *noParams) (any, error) {
	return discoverResult{
		resultFields:      s.modernFields(),
		SupportedVersions: SupportedVersions,
		Capabilities:      s.capabilities(true, s.hub != nil),
		Instructions:      s.cfg.Instructions,
		TTLMs:             ms(s.cfg.DiscoverTTL),
		CacheScope:        "public",
	}, nil
}

// capabilities are the server capabilities. Prompts and resources are
// declared (with empty lists) so clients and caches can rely on every list
// method answering; listChanged is true only on Modern, where
// subscriptions/listen delivers it. Logging is declared when tools may log
// (Config.Logging).
//
// resources.subscribe: on the 2025 revisions resources/subscribe is
// accepted (a stateless server keeps no session to push updates on, so
// clients re-read); on 2026-07-28 resource subscriptions ride on
// subscriptions/listen.
func (s *Server) capabilities(modern, listChanged bool) map[string]any {
	caps := map[string]any{
		"tools":       map[string]any{"listChanged": listChanged},
		"prompts":     map[string]any{},
		"resources":   map[string]any{"subscribe": !modern},
		"completions": map[string]any{},
	}
	if s.cfg.Logging {
		caps["logging"] = map[string]any{}
	}
	return caps
}

func ms(d time.Duration) int64 {
	if d < 0 {
		return 0
	}
	return d.Milliseconds()
}
