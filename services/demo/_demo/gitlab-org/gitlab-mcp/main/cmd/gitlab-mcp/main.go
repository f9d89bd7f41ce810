// Command gitlab-mcp serves GitLab tools to AI agents over MCP.
package main

import (
	"flag"
	"log/slog"
	"net/http"
	"os"
	"time"

	"gitlab.com/gitlab-org/gitlab-mcp/internal/catalog"
	"gitlab.com/gitlab-org/gitlab-mcp/internal/mcp"
)

func main() {
	listen := flag.String("listen", ":8080", "address to serve on")
	gitlabURL := flag.String("gitlab-url", "https://gitlab.com", "GitLab instance the tools act on")
	flag.Parse()

	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	tools := catalog.Default(*gitlabURL)

	mux := http.NewServeMux()
	mux.Handle("/api/v4/mcp", mcp.NewHandler(tools))

	srv := &http.Server{
		Addr:              *listen,
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
	}
	logger.Info("serving MCP", "addr", *listen, "tools", len(tools.List()))
	if err := srv.ListenAndServe(); err != nil {
		logger.Error("server stopped", "error", err)
		os.Exit(1)
	}
}
