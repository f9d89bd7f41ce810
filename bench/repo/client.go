package main

import (
	"fmt"
	"net/http"
	"time"

	"gitlab.com/glmcp/glmcp/bench/harness"
)

// client calls glmcp's tools over the 2026-07-28 stateless wire, as a
// conforming client does (bench/compare sends the same requests).
type client struct {
	addr, token string
	http        http.Client
}

// call sends tools/call name with args and returns the tool's structured
// result; a JSON-RPC error or an isError result is an error. The time is
// the whole round trip.
func (c *client) call(name string, args map[string]any) (map[string]any, time.Duration, error) {
	r, err := harness.CallTool(&c.http, c.addr, c.token, "bench-repo", name, args)
	switch {
	case err != nil:
		return nil, r.Took, err
	case r.Status != http.StatusOK:
		return nil, r.Took, fmt.Errorf("%s: HTTP %d: %.300s", name, r.Status, r.Raw)
	case !r.Decoded:
		return nil, r.Took, fmt.Errorf("%s: not a JSON-RPC response: %.300s", name, r.Raw)
	case r.Code != 0:
		return nil, r.Took, fmt.Errorf("%s: JSON-RPC error %s", name, r.Message)
	case r.IsError:
		return nil, r.Took, fmt.Errorf("%s: isError: %.300s", name, r.Text)
	case r.Structured == nil:
		return nil, r.Took, fmt.Errorf("%s: no structuredContent: %.300s", name, r.Raw)
	}
	return r.Structured, r.Took, nil
}

// Accessors of the decoded JSON: a missing or mistyped value is the zero
// value, which the checks then report.

func list(v any, key string) []any {
	m, _ := v.(map[string]any)
	l, _ := m[key].([]any)
	return l
}

func field(v any, key string) any {
	m, _ := v.(map[string]any)
	return m[key]
}

func str(v any, key string) string {
	s, _ := field(v, key).(string)
	return s
}

func num(v any, key string) int {
	f, _ := field(v, key).(float64)
	return int(f)
}

// strs is key of each element of l.
func strs(l []any, key string) []string {
	out := make([]string, len(l))
	for i, v := range l {
		out[i] = str(v, key)
	}
	return out
}
