// Command glmcp serves a GitLab-compatible MCP endpoint and administers its
// store. See the README for the command-line contract.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "glmcp:", err)
		os.Exit(1)
	}
}

// run executes one command line; tests call it directly.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	root := newRootCommand(getenv, stdout, stderr)
	root.SetArgs(args)
	return root.ExecuteContext(ctx)
}
