package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

type demoToken struct {
	username, role, token string
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

// seedDemo builds the demo world (once) and mints a fresh 7-day token per
// demo user. Tokens exist in clear only in the returned values.
func seedDemo(ctx context.Context, e *env) ([]demoToken, error) {
	w, err := store.SeedDemo(ctx, e.store)
	if err != nil {
		return nil, fmt.Errorf("seed demo data: %w", err)
	}
	now := time.Now().UTC()
	exp := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, 7)
	var out []demoToken
	for _, u := range w.Users() {
		raw, _, err := mintToken(ctx, e.store, e.secret, u, "demo", demoScopes, &exp)
		if err != nil {
			return nil, err
		}
		out = append(out, demoToken{username: u.Username, role: demoRoles[u.Username], token: raw})
	}
	return out, nil
}

// announceDemo seeds the embedded store and prints, on stdout, a demo
// token and a curl command to try it. Logs never see the tokens.
func (a *app) announceDemo(ctx context.Context, e *env) error {
	tokens, err := seedDemo(ctx, e)
	if err != nil {
		return err
	}
	var alice string
	var b strings.Builder
	for _, t := range tokens {
		if t.username == "alice" {
			alice = t.token
		}
		fmt.Fprintf(&b, "    %-6s %-26s %s\n", t.username, "("+t.role+")", t.token)
	}
	url := a.cfg.PublicURL + "/api/v4/mcp"
	fmt.Fprintf(a.stdout, `
glmcp demo — embedded store at %s
Fresh demo tokens (valid 7 days, shown only now):
%s
Try it:
    curl -s %s \
      -H 'Authorization: Bearer %s' \
      -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
      -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_issue","arguments":{"id":"gitlab-org/gitlab-mcp","issue_iid":1}}}'

MCP clients: point them at %s with the header "Authorization: Bearer <token>".

`, e.dsn, b.String(), url, alice, url)
	return nil
}
