// Package cli is glmcp's command line (cobra): serve (the default),
// migrate, seed, users, tokens, tools, projects, ci, healthcheck, and the
// flags and GLMCP_* variables that fill app.Config. Two binaries run it:
// cmd/glmcp, the product, and cmd/glmcp-conformance, the same command tree
// with the MCP conformance suite's fixtures (a Build with Fixtures).
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"gitlab.com/glmcp/glmcp/app"
)

// Build is what a binary adds to the command tree. The zero Build is
// glmcp's.
type Build struct {
	// Name is the binary's name in help and errors (default "glmcp").
	Name string
	// Fixtures, when set, are what serve adds with --conformance-fixtures
	// (GLMCP_CONFORMANCE_FIXTURES). A build without them hides the flag and
	// refuses it when true: the fixtures are not linked into glmcp.
	Fixtures func() *app.Fixtures
}

func (b Build) name() string {
	if b.Name == "" {
		return "glmcp"
	}
	return b.Name
}

// Main runs the process's command line and exits non-zero on error: the
// whole main function of a glmcp binary.
func Main(b Build) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := Run(ctx, b, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, b.name()+":", err)
		os.Exit(1)
	}
}

// Run executes one command line of build b; tests call it directly.
func Run(ctx context.Context, b Build, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	root := newRootCommand(b, getenv, stdout, stderr)
	root.SetArgs(args)
	return root.ExecuteContext(ctx)
}
