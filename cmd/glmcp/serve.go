package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"

	"gitlab.com/glmcp/glmcp/handlers"
	"gitlab.com/glmcp/glmcp/middleware"
)

func newServeCommand(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "serve",
		Short: "Serve the MCP endpoint (the default command)",
		Long: "Serve the MCP endpoint on GLMCP_LISTEN. Migrations are applied first. Without " +
			"GLMCP_DATABASE_URL the embedded store under GLMCP_DATA_DIR is used and, on its first " +
			"start, filled with demo data; each start then prints a fresh demo token.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.serve(cmd.Context())
		},
	}
}

func (a *app) serve(ctx context.Context) error {
	logger := a.logger()
	env, err := a.openEnv(ctx, logger)
	if err != nil {
		return err
	}
	defer env.close()

	if env.embedded && a.cfg.Demo {
		if err := a.announceDemo(ctx, env); err != nil {
			return err
		}
	}

	shutdown := make(chan struct{})
	wiring, err := a.wire(ctx, env, logger, shutdown)
	if err != nil {
		return err
	}
	bg, stopBG := context.WithCancel(context.WithoutCancel(ctx))
	defer stopBG()
	wiring.start(bg)

	gin.SetMode(gin.ReleaseMode)
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reg.MustRegister(middleware.Collectors()...)
	wiring.deps.Metrics = promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	srv := &http.Server{
		Handler:           handlers.NewRouter(wiring.deps),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	ln, err := net.Listen("tcp", a.cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", a.cfg.Listen, err)
	}
	logger.Info("serving", "addr", ln.Addr().String(), "edition", string(a.cfg.Edition),
		"store", env.store.Dialect(), "public_url", a.cfg.PublicURL, "version", version)

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	close(shutdown) // listen streams send their final result and end
	wiring.hub.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	stopBG()
	wiring.wait()
	logger.Info("stopped")
	return nil
}
