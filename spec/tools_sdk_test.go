package spec

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The official Go SDK (v1.8.0) client against the GitLab tools, in both
// eras: it lists every tool across several pages and calls get_issue and
// create_issue on the demo data.

// toolsSDKConnect connects the go-sdk client to endpoint as user, asking
// for version.
// The transport is the interop spec's recorder (sdkRecorder).
func toolsSDKConnect(t *testing.T, ctx context.Context, endpoint, token, version string) (*mcp.ClientSession, *sdkRecorder) {
	t.Helper()
	tr := &sdkRecorder{token: token, next: http.DefaultTransport}
	client := mcp.NewClient(&mcp.Implementation{Name: "spec-go-sdk-tools", Version: "1.8.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: endpoint, HTTPClient: &http.Client{Transport: tr}, MaxRetries: -1,
	}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, tr
}

func TestTools_goSDK(t *testing.T) {
	const pageSize = 3
	h := startServer(t, withEE(), catalogPageSize(pageSize))
	mcpProject := toolsProject(t, h, "gitlab-org/gitlab-mcp")
	for _, era := range []struct{ name, version, rev string }{
		{"modern", revModern, revModern},
		{"legacy", rev20251125, rev20251125},
	} {
		t.Run(era.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			for _, g := range h.groups() {
				cs, tr := toolsSDKConnect(t, ctx, g.URL, h.Tokens["alice"], era.version)
				var names []string
				for tool, err := range cs.Tools(ctx, nil) {
					if err != nil {
						t.Fatalf("%s: list tools: %v", g.Name, err)
					}
					names = append(names, tool.Name)
				}
				want := map[string][]string{"CE": toolsCE, "EE": toolsEE}[g.Name]
				if !slices.Equal(names, want) {
					t.Errorf("%s: the SDK listed %v\nwant %v", g.Name, names, want)
				}
				pages := tr.responseBodies("tools/list")
				if wantPages := (len(want) + pageSize - 1) / pageSize; len(pages) != wantPages {
					t.Errorf("%s: the SDK fetched %d pages, want %d", g.Name, len(pages), wantPages)
				}
				for _, body := range pages {
					validateResult(t, era.rev, "ListToolsResult", body)
				}
			}

			cs, tr := toolsSDKConnect(t, ctx, h.CE, h.Tokens["alice"], era.version)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_issue", Arguments: map[string]any{"id": "gitlab-org/gitlab-mcp", "issue_iid": 2}})
			if err != nil {
				t.Fatalf("get_issue: %v", err)
			}
			if res.IsError {
				t.Fatalf("get_issue isError: %+v", res.Content)
			}
			sc, _ := res.StructuredContent.(map[string]any)
			if sc["title"] != "Support the 2026-07-28 stateless protocol revision" || toolsDig(sc, "author", "username") != "root" {
				t.Errorf("get_issue structuredContent = %v", sc)
			}

			title := "Filed by the go-sdk (" + era.name + ")"
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_issue", Arguments: map[string]any{
				"id": "gitlab-org/gitlab-mcp", "title": title, "labels": []string{"feature"}}})
			if err != nil {
				t.Fatalf("create_issue: %v", err)
			}
			if res.IsError {
				t.Fatalf("create_issue isError: %+v", res.Content)
			}
			sc, _ = res.StructuredContent.(map[string]any)
			iid, ok := sc["iid"].(float64)
			if !ok || sc["title"] != title {
				t.Fatalf("create_issue structuredContent = %v", sc)
			}
			stored, err := h.Env.Store.Issues.LoadIssue(ctx, mcpProject.ID, int64(iid))
			if err != nil || stored.Title != title || stored.Author == nil || stored.Author.Username != "alice" {
				t.Errorf("stored issue %v: %+v, %v", iid, stored, err)
			}

			// A tool failure reaches the SDK as a result, not an error.
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_issue", Arguments: map[string]any{"id": "acme/nope", "issue_iid": 1}})
			if err != nil {
				t.Fatalf("get_issue of a missing project: %v", err)
			}
			if len(res.Content) != 1 {
				t.Fatalf("missing project: content %v", res.Content)
			}
			if text, _ := res.Content[0].(*mcp.TextContent); !res.IsError || text == nil || text.Text != "404 Project Not Found" {
				t.Errorf("missing project: isError %v, content %+v", res.IsError, res.Content[0])
			}
			for _, body := range tr.responseBodies("tools/call") {
				validateResult(t, era.rev, "CallToolResult", body)
			}
		})
	}
}
