package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
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
	params := map[string]any{"name": name, "arguments": args, "_meta": map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "bench-store", "version": "1.0.0"},
	}}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	if err != nil {
		return answer{}, err
	}
	req, err := http.NewRequest(http.MethodPost, "http://"+c.addr+"/api/v4/mcp", bytes.NewReader(body))
	if err != nil {
		return answer{}, err
	}
	for k, v := range map[string]string{
		"Authorization": "Bearer " + c.token, "Content-Type": "application/json",
		"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28",
		"Mcp-Method": "tools/call", "Mcp-Name": name,
	} {
		req.Header.Set(k, v)
	}
	began := time.Now()
	res, err := c.http.Do(req)
	if err != nil {
		return answer{}, err
	}
	raw, err := io.ReadAll(res.Body)
	res.Body.Close()
	a := answer{status: res.StatusCode, took: time.Since(began)}
	if err != nil {
		return a, err
	}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		raw = lastEvent(raw)
	}
	var env struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		Result struct {
			IsError           bool                    `json:"isError"`
			StructuredContent map[string]any          `json:"structuredContent"`
			Content           []struct{ Text string } `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		a.text = fmt.Sprintf("HTTP %d: %.200s", res.StatusCode, raw)
		return a, nil
	}
	switch {
	case env.Error != nil:
		a.code, a.text = env.Error.Code, fmt.Sprintf("HTTP %d, JSON-RPC %d %s", res.StatusCode, env.Error.Code, env.Error.Message)
	case env.Result.IsError:
		a.isError = true
		a.text = "isError"
		if len(env.Result.Content) > 0 {
			a.text = fmt.Sprintf("isError: %.200s", env.Result.Content[0].Text)
		}
	default:
		a.result = env.Result.StructuredContent
		if a.result == nil {
			a.text = fmt.Sprintf("no structuredContent: %.200s", raw)
		}
	}
	return a, nil
}

// lastEvent is the data of the last event of an SSE body.
func lastEvent(raw []byte) []byte {
	var data []byte
	for line := range strings.Lines(string(raw)) {
		if d, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "data:"); ok {
			data = []byte(strings.TrimSpace(d))
		}
	}
	return data
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
