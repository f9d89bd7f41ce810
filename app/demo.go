package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/demo"
)

// DemoToken is a freshly minted token of a demo user.
type DemoToken struct {
	Username, Role, Token string
}

// demoRoles describe the demo users for the printed table.
var demoRoles = map[string]string{
	"root":  "admin, EE seat",
	"alice": "developer, EE seat",
	"bob":   "reporter",
	"carol": "guest on gitlab-mcp only",
	"dave":  "blocked",
}

// demoScopes grant both route groups.
var demoScopes = []string{models.ScopeAPI, models.ScopeMCP, models.ScopeMCPOrbit}

// SeedDemo builds the demo world (once) and mints a fresh 7-day token per
// demo user. Tokens exist in clear only in the returned values.
func SeedDemo(ctx context.Context, e *Env) ([]DemoToken, error) {
	w, err := demo.Seed(ctx, e.Store)
	if errors.Is(err, models.ErrConflict) {
		return nil, fmt.Errorf("seed demo data: this store already has users, groups or projects with the demo's names "+
			"(users root, alice, bob, carol, dave; groups gitlab-org, acme) that the demo did not create; "+
			"seed an empty store instead: %w", err)
	}
	if err != nil {
		return nil, fmt.Errorf("seed demo data: %w", err)
	}
	now := time.Now().UTC()
	exp := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, 7)
	var out []DemoToken
	for _, u := range w.Users() {
		raw, _, err := MintToken(ctx, e, u, "demo", demoScopes, &exp)
		if err != nil {
			return nil, err
		}
		out = append(out, DemoToken{Username: u.Username, Role: demoRoles[u.Username], Token: raw})
	}
	return out, nil
}

// AnnounceDemo seeds the store and prints on w a fresh demo token per user
// and a curl command to try one. Logs never see the tokens.
func AnnounceDemo(ctx context.Context, cfg *Config, e *Env, w io.Writer) error {
	tokens, err := SeedDemo(ctx, e)
	if err != nil {
		return err
	}
	var alice string
	var b strings.Builder
	for _, t := range tokens {
		if t.Username == "alice" {
			alice = t.Token
		}
		fmt.Fprintf(&b, "    %-6s %-26s %s\n", t.Username, "("+t.Role+")", t.Token)
	}
	url := cfg.PublicURL + ceGroup.path
	endpoints := "    " + url + "  (" + ceGroup.name + ")\n"
	if cfg.Edition == models.EditionEE {
		endpoints += "    " + cfg.PublicURL + eeGroup.path + "  (" + eeGroup.name + ", users with a Duo Enterprise seat)\n"
	}
	if cfg.PublicURLGuessed() && cfg.ListensOnAllInterfaces() {
		endpoints += "\n    These URLs work on this machine. glmcp listens on every interface: for clients\n" +
			"    elsewhere set GLMCP_PUBLIC_URL (or --public-url) to the URL they use, e.g.\n" +
			"    GLMCP_PUBLIC_URL=https://mcp.example.com\n"
	}
	fmt.Fprintf(w, `
glmcp demo — embedded store at %s
Fresh demo tokens (valid 7 days, shown only now):
%s
Try it:
    curl -s %s \
      -H 'Authorization: Bearer %s' \
      -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
      -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_work_item","arguments":{"project_id":"gitlab-org/gitlab-mcp","work_item_iid":1}}}'

MCP clients: point them at the endpoint with the header "Authorization: Bearer <token>":
%s
`, e.DSN, b.String(), url, alice, endpoints)
	return nil
}
