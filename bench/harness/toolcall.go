package harness

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"
)

// ToolReply is one tools/call as the wire gave it.
type ToolReply struct {
	Status     int            // HTTP status
	Code       int            // JSON-RPC error code, 0 when none
	Message    string         // the JSON-RPC error's message
	IsError    bool           // a tool error result
	Text       string         // the first text content block
	Structured map[string]any // structuredContent
	Raw        []byte         // the JSON-RPC response (an event stream's last event)
	Decoded    bool           // Raw was a JSON-RPC response
	Took       time.Duration  // the whole round trip
}

// CallTool sends tools/call name with args to the glmcp at addr over the
// 2026-07-28 stateless wire, as a conforming client does (bench/compare
// sends the same requests), as clientName. err is a transport failure
// only: everything the server said is in the reply.
func CallTool(hc *http.Client, addr, token, clientName, name string, args map[string]any) (ToolReply, error) {
	params := map[string]any{"name": name, "arguments": args, "_meta": map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": clientName, "version": "1.0.0"},
	}}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	if err != nil {
		return ToolReply{}, err
	}
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/api/v4/mcp", bytes.NewReader(body))
	if err != nil {
		return ToolReply{}, err
	}
	for k, v := range map[string]string{
		"Authorization": "Bearer " + token, "Content-Type": "application/json",
		"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28",
		"Mcp-Method": "tools/call", "Mcp-Name": name,
	} {
		req.Header.Set(k, v)
	}
	began := time.Now()
	res, err := hc.Do(req)
	if err != nil {
		return ToolReply{}, err
	}
	raw, err := io.ReadAll(res.Body)
	res.Body.Close()
	r := ToolReply{Status: res.StatusCode, Took: time.Since(began), Raw: raw}
	if err != nil {
		return r, err
	}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		r.Raw = lastEvent(raw)
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
	if json.Unmarshal(r.Raw, &env) != nil {
		return r, nil
	}
	r.Decoded = true
	if env.Error != nil {
		r.Code, r.Message = env.Error.Code, env.Error.Message
	}
	r.IsError, r.Structured = env.Result.IsError, env.Result.StructuredContent
	if len(env.Result.Content) > 0 {
		r.Text = env.Result.Content[0].Text
	}
	return r, nil
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
