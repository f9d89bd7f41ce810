package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"gitlab.com/glmcp/glmcp/app"
)

func newServeCommand(a *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "serve",
		Short: "Serve the MCP endpoint (the default command)",
		Long: "Serve the MCP endpoint on GLMCP_LISTEN. Migrations are applied first. Without " +
			"GLMCP_DATABASE_URL the embedded store under GLMCP_DATA_DIR is used and filled with " +
			"demo data on its first start; each start then prints a fresh demo token.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.serve(cmd.Context())
		},
	}
}

// serve runs the server until ctx ends (SIGINT/SIGTERM), then shuts down
// gracefully: listen streams get their final result, the listener closes,
// every request already sent is answered (with Connection: close), idle
// connections close, background workers stop.
func (a *cli) serve(ctx context.Context) error {
	logger := a.logger()
	// Bind first: a taken port fails before any work, and with port 0 the
	// real address is known before the banner and the public URL use it.
	ln, err := net.Listen("tcp", a.cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", a.cfg.Listen, err)
	}
	defer ln.Close()
	a.cfg.FollowListener(ln.Addr().String())
	e, err := app.OpenEnv(ctx, &a.cfg, logger)
	if err != nil {
		return err
	}
	defer e.Close()
	if e.Embedded && a.cfg.Demo {
		if err := app.AnnounceDemo(ctx, &a.cfg, e, a.stdout); err != nil {
			return err
		}
	}
	s, err := app.New(ctx, &a.cfg, e, logger)
	if err != nil {
		return err
	}
	s.Start(ctx)
	defer s.Stop()

	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	var drain drainer
	drain.install(srv)
	ln = drain.listen(ln)
	logger.Info("serving", "addr", ln.Addr().String(), "edition", string(a.cfg.Edition),
		"store", e.Store.Dialect(), "public_url", a.cfg.PublicURL, "version", app.Version)
	if a.cfg.PublicURLGuessed() && a.cfg.ListensOnAllInterfaces() {
		logger.Warn("listening on every interface without a public URL: links, OAuth metadata and "+
			"the banner use "+a.cfg.PublicURL+", which works on this machine only; set GLMCP_PUBLIC_URL "+
			"(--public-url) to the URL clients use", "public_url", a.cfg.PublicURL)
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	s.BeginShutdown()
	sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	// Every request accepted gets its whole answer: keep-alive
	// connections are closed only between requests (see drainer).
	drain.drain(sctx, ln)
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := s.WaitStreams(sctx); err != nil {
		logger.Warn("shutting down with listen streams still open", "error", err)
	}
	logger.Info("stopped")
	return nil
}
