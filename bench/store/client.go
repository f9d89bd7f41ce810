package main

import (
	"fmt"
	"net/http"
	"time"

	"gitlab.com/glmcp/glmcp/bench/harness"
)

// client calls glmcp's tools over the 2026-07-28 stateless wire, as
// bench/repo's client does.
type client struct {
	addr, token string
	http        http.Client
}

// answer is one tools/call as the wire gave it.
type answer struct {
	status  int            // HTTP status
	code    int            // JSON-RPC error code, 0 when none
	isError bool           // a tool error result
	result  map[string]any // structuredContent
	took    time.Duration  // the whole round trip
	text    string         // what went wrong, for the report
}

// ok reports whether the answer is a 200 with a result.
func (a answer) ok() bool {
	return a.status == http.StatusOK && a.code == 0 && !a.isError && a.result != nil
}

// call sends tools/call name with args; err is a transport failure only,
// everything the server said is in the answer.
func (c *client) call(name string, args map[string]any) (answer, error) {
	r, err := harness.CallTool(&c.http, c.addr, c.token, "bench-store", name, args)
	a := answer{status: r.Status, took: r.Took}
	switch {
	case err != nil:
		return a, err
	case !r.Decoded:
		a.text = fmt.Sprintf("HTTP %d: %.200s", r.Status, r.Raw)
	case r.Code != 0:
		a.code, a.text = r.Code, fmt.Sprintf("HTTP %d, JSON-RPC %d %s", r.Status, r.Code, r.Message)
	case r.IsError:
		a.isError, a.text = true, "isError"
		if r.Text != "" {
			a.text = fmt.Sprintf("isError: %.200s", r.Text)
		}
	default:
		a.result = r.Structured
		if a.result == nil {
			a.text = fmt.Sprintf("no structuredContent: %.200s", r.Raw)
		}
	}
	return a, nil
}

// dig follows keys (strings) and indexes (ints) into decoded JSON; nil
// where the path does not exist.
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}
