package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/spf13/cobra"
)

// defaultHealthURL is the readiness probe of a server listening on the
// container's default address.
const defaultHealthURL = "http://127.0.0.1:8080/-/readiness"

// newHealthcheckCommand probes a running server. It exists so container
// images without a shell or curl (distroless) can still have a health
// check: `glmcp healthcheck` exits 0 on HTTP 200 and 1 otherwise.
func newHealthcheckCommand(a *cli) *cobra.Command {
	var target string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "healthcheck [--url URL] [--timeout D]",
		Short: "Probe a running server's readiness endpoint; exit 0 on HTTP 200",
		Long: "GETs --url (default " + defaultHealthURL + ") and exits 0 when the answer is " +
			"HTTP 200, 1 otherwise. It opens no store; use it as a container health check.",
		Args: cobra.NoArgs,
		// The probe needs no configuration: skip the root's validation so a
		// health check never fails on settings it does not use.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(cmd *cobra.Command, _ []string) error {
			return healthcheck(cmd.Context(), target, timeout, a.stdout)
		},
	}
	cmd.Flags().StringVar(&target, "url", defaultHealthURL, "URL to probe")
	cmd.Flags().DurationVar(&timeout, "timeout", 3*time.Second, "give up after this long")
	return cmd
}

// healthcheck GETs target and reports its status on w.
func healthcheck(ctx context.Context, target string, timeout time.Duration, w io.Writer) error {
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--url %q: want an http(s) URL", target)
	}
	if timeout <= 0 {
		return fmt.Errorf("--timeout: must be positive")
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fmt.Errorf("build request: %w", err)
	}
	client := &http.Client{
		// A redirect is not a healthy answer.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("probe %s: %w", u.Redacted(), err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("probe %s: HTTP %d", u.Redacted(), resp.StatusCode)
	}
	fmt.Fprintf(w, "ok: %s answered HTTP %d\n", u.Redacted(), resp.StatusCode)
	return nil
}
