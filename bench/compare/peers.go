package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The two peers run in their own processes (this program started again
// with -serve), as glmcp does, so that each server has the runtime and the
// garbage collector to itself and the load generator's process is not
// shared with any of them.

// canned is what the bare server answers: glmcp's tools/list response,
// byte for byte, with its headers.
type canned struct {
	Header http.Header `json:"header"`
	Body   []byte      `json:"body"`
}

// serveBare answers every POST with the canned response in file and
// nothing else: the ceiling of net/http on these bytes.
func serveBare(file string) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var c canned
	if err := json.Unmarshal(raw, &c); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return servePeer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		for k, v := range c.Header {
			h[k] = v
		}
		_, _ = w.Write(c.Body)
	}))
}

// serveSDK serves the go-sdk's stateless Streamable HTTP handler (JSON
// responses, no sessions: glmcp's model) with the tools in file (glmcp's
// tools/list tools array) minus the last, plus "echo", so both list the
// same number of tools. Every tool echoes its arguments as text.
func serveSDK(file string) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var tools []*mcp.Tool
	if err := json.Unmarshal(raw, &tools); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if len(tools) == 0 {
		return errors.New("no tools to serve")
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "go-sdk peer", Version: "v1.8.0"}, nil)
	echo := func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
	}
	for _, t := range tools[:len(tools)-1] {
		t.OutputSchema = nil // the echo handler returns no structured content
		t.Meta = nil
		server.AddTool(t, echo)
	}
	server.AddTool(&mcp.Tool{
		Name:        "echo",
		Description: "Echo the arguments.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
	}, echo)
	return servePeer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
}

// servePeer serves h on a loopback port, prints "ready ADDR" on stdout,
// and stops on SIGTERM/SIGINT or when stdin closes (the parent died).
func servePeer(h http.Handler) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	go func() { // the parent holds our stdin: EOF means it is gone
		var b [1]byte
		_, _ = os.Stdin.Read(b[:])
		stop()
	}()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	fmt.Println("ready", ln.Addr().String())
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// peerAddr parses the "ready ADDR" line.
func peerAddr(line string) (string, error) {
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "ready ")
	if !ok {
		return "", fmt.Errorf("peer said %q, want \"ready ADDR\"", line)
	}
	return addr, nil
}
