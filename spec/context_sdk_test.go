package spec

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestContext_goSDK: the official Go SDK (v1.8.0) client lists and reads
// resources, gets a prompt and completes an argument, in both eras; every
// response validates against its revision's schema.
func TestContext_goSDK(t *testing.T) {
	h := startServer(t)
	ce := h.groups()[0]
	defs := map[string]string{
		"server/discover": "DiscoverResult", "initialize": "InitializeResult",
		"resources/list": "ListResourcesResult", "resources/templates/list": "ListResourceTemplatesResult",
		"resources/read": "ReadResourceResult", "prompts/list": "ListPromptsResult",
		"prompts/get": "GetPromptResult", "completion/complete": "CompleteResult",
	}
	for _, tt := range []struct{ version, rev string }{{revModern, revModern}, {rev20251125, rev20251125}} {
		t.Run(tt.version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			rec := &sdkRecorder{token: h.Tokens["alice"], next: http.DefaultTransport}
			client := mcp.NewClient(&mcp.Implementation{Name: "spec-go-sdk", Version: "1.8.0"}, nil)
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
				Endpoint: ce.URL, HTTPClient: &http.Client{Transport: rec}, MaxRetries: -1,
			}, &mcp.ClientSessionOptions{ProtocolVersion: tt.version})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cs.Close()
			if caps := cs.InitializeResult().Capabilities; caps.Completions == nil || caps.Resources == nil || caps.Prompts == nil {
				t.Errorf("capabilities = %+v, want completions, resources and prompts", caps)
			}

			list, err := cs.ListResources(ctx, nil)
			if err != nil {
				t.Fatalf("list resources: %v", err)
			}
			uri := h.Cfg.PublicURL + "/gitlab-org/gitlab-mcp"
			if !slices.ContainsFunc(list.Resources, func(r *mcp.Resource) bool { return r.URI == uri }) {
				t.Errorf("resources lack %s", uri)
			}
			if _, err := cs.ListResourceTemplates(ctx, nil); err != nil {
				t.Fatalf("list templates: %v", err)
			}
			read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri + "/-/issues/2"})
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if len(read.Contents) != 1 || !strings.Contains(read.Contents[0].Text, `"iid":2`) {
				t.Errorf("contents = %+v", read.Contents)
			}
			if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri + "/-/issues/99999"}); err == nil ||
				!strings.Contains(err.Error(), "Resource not found") {
				t.Errorf("missing issue: err = %v", err)
			}

			prompts, err := cs.ListPrompts(ctx, nil)
			if err != nil || len(prompts.Prompts) != 4 {
				t.Fatalf("prompts: %v %+v", err, prompts)
			}
			p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "triage_issue",
				Arguments: map[string]string{"project": "gitlab-org/gitlab-mcp", "iid": "2"}})
			if err != nil || len(p.Messages) < 2 {
				t.Fatalf("get prompt: %v %+v", err, p)
			}
			if _, ok := p.Messages[1].Content.(*mcp.EmbeddedResource); !ok {
				t.Errorf("message 1 = %T, want an embedded resource", p.Messages[1].Content)
			}

			c, err := cs.Complete(ctx, &mcp.CompleteParams{
				Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "triage_issue"},
				Argument: mcp.CompleteParamsArgument{Name: "project", Value: "gitlab-org/"},
			})
			if err != nil || !slices.Contains(c.Completion.Values, "gitlab-org/gitlab-mcp") {
				t.Fatalf("complete: %v %+v", err, c)
			}

			for _, x := range rec.recorded() {
				if x.HTTPMethod != http.MethodPost || !x.IsRequest || x.Status != http.StatusOK {
					continue
				}
				if _, isError := members(t, x.RespBody)["error"]; isError {
					// A Legacy error about a read request comes with 200.
					validateMessage(t, tt.rev, "JSONRPCErrorResponse", x.RespBody)
				} else if def, ok := defs[x.RPCMethod]; ok {
					validateResult(t, tt.rev, def, x.RespBody)
				}
			}
		})
	}
}
