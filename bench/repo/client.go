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
	params := map[string]any{"name": name, "arguments": args, "_meta": map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "bench-repo", "version": "1.0.0"},
	}}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	if err != nil {
		return nil, 0, err
	}
	req, err := http.NewRequest(http.MethodPost, "http://"+c.addr+"/api/v4/mcp", bytes.NewReader(body))
	if err != nil {
		return nil, 0, err
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
		return nil, 0, err
	}
	raw, err := io.ReadAll(res.Body)
	res.Body.Close()
	took := time.Since(began)
	if err != nil {
		return nil, took, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, took, fmt.Errorf("%s: HTTP %d: %.300s", name, res.StatusCode, raw)
	}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		raw = lastEvent(raw)
	}
	var env struct {
		Error  *struct{ Message string } `json:"error"`
		Result struct {
			IsError           bool                    `json:"isError"`
			StructuredContent map[string]any          `json:"structuredContent"`
			Content           []struct{ Text string } `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, took, fmt.Errorf("%s: %w: %.300s", name, err, raw)
	}
	if env.Error != nil {
		return nil, took, fmt.Errorf("%s: JSON-RPC error %s", name, env.Error.Message)
	}
	if env.Result.IsError {
		text := ""
		if len(env.Result.Content) > 0 {
			text = env.Result.Content[0].Text
		}
		return nil, took, fmt.Errorf("%s: isError: %.300s", name, text)
	}
	if env.Result.StructuredContent == nil {
		return nil, took, fmt.Errorf("%s: no structuredContent: %.300s", name, raw)
	}
	return env.Result.StructuredContent, took, nil
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
