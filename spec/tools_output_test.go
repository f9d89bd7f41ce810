package spec

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"gitlab.com/glmcp/glmcp/services/tools/gitlab"
)

// Every tools/call the tool specs send through toolsCall has its
// structuredContent checked against the tool's outputSchema (MCP clients
// validate it so): a tool declaring one must answer in that shape on every
// path the specs reach.

var (
	outputSchemasOnce sync.Once
	outputSchemas     map[string]*jsonschema.Schema // by name and alias
	outputSchemasErr  error
)

// toolOutputSchema returns the compiled outputSchema of the tool called
// name (or alias), nil when it declares none.
func toolOutputSchema(t testing.TB, name string) *jsonschema.Schema {
	t.Helper()
	outputSchemasOnce.Do(func() {
		outputSchemas = map[string]*jsonschema.Schema{}
		for _, d := range gitlab.Tools(gitlab.Deps{}) {
			if len(d.OutputSchema) == 0 {
				continue
			}
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(d.OutputSchema))
			if err != nil {
				outputSchemasErr = err
				return
			}
			c := jsonschema.NewCompiler()
			c.DefaultDraft(jsonschema.Draft2020)
			url := "mem:///output/" + d.Name + ".json"
			if err := c.AddResource(url, doc); err != nil {
				outputSchemasErr = err
				return
			}
			s, err := c.Compile(url)
			if err != nil {
				outputSchemasErr = err
				return
			}
			outputSchemas[d.Name] = s
			for _, a := range d.Aliases {
				outputSchemas[a] = s
			}
		}
	})
	if outputSchemasErr != nil {
		t.Fatalf("output schemas: %v", outputSchemasErr)
	}
	return outputSchemas[name]
}

// expectOutputShape checks a tools/call answer of tool: a successful
// result of a tool with an outputSchema carries structuredContent that
// validates against it.
func expectOutputShape(t testing.TB, tool string, r *response) {
	t.Helper()
	schema := toolOutputSchema(t, tool)
	if schema == nil || r.Status != http.StatusOK || !strings.HasPrefix(strings.TrimSpace(string(r.Body)), "{") {
		return
	}
	var env struct {
		Result *struct {
			IsError    bool            `json:"isError"`
			Structured json.RawMessage `json:"structuredContent"`
		} `json:"result"`
	}
	if json.Unmarshal(r.Body, &env) != nil || env.Result == nil || env.Result.IsError {
		return
	}
	if len(env.Result.Structured) == 0 {
		t.Errorf("%s: result without structuredContent, but the tool declares an outputSchema", tool)
		return
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(env.Result.Structured))
	if err != nil {
		t.Fatalf("%s: structuredContent: %v", tool, err)
	}
	if err := schema.Validate(v); err != nil {
		t.Errorf("%s: structuredContent does not validate against its outputSchema: %v", tool, err)
	}
}

// TestTools_outputSchemas: the tools with a fixed result shape list an
// outputSchema (an object schema) on both groups; the others list none.
func TestTools_outputSchemas(t *testing.T) {
	h := startServer(t, withEE())
	for _, g := range h.groups() {
		for _, era := range eras {
			for _, tool := range h.toolsList(t, g, era, "alice", catalogHeaders(hdrToolsets, "all")) {
				name := tool["name"].(string)
				_, has := tool["outputSchema"]
				if want := toolOutputSchema(t, name) != nil; has != want {
					t.Errorf("%s %s %s: outputSchema listed %v, want %v", g.Name, era, name, has, want)
				}
				if has && toolsDig(tool, "outputSchema", "type") != "object" {
					t.Errorf("%s: outputSchema %v is not an object schema", name, tool["outputSchema"])
				}
			}
		}
	}
	// One call of each such tool with a simple read, checked by toolsCall.
	ce := h.groups()[0]
	for tool, args := range map[string]map[string]any{
		"get_mcp_server_version": {},
		"get_user":               {"username": "alice"},
		"list_projects":          {},
		"get_work_item":          {"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 1},
		"get_merge_request":      {"project_id": "gitlab-org/gitlab-mcp", "merge_request_iid": 1},
		"list_merge_requests":    {"project_id": "gitlab-org/gitlab-mcp"},
		"search_labels":          {"full_path": "gitlab-org/gitlab-mcp", "is_project": true},
		"list_pipelines":         {"id": "gitlab-org/gitlab-mcp"},
		"get_workitem_notes":     {"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 1},
	} {
		for _, era := range eras {
			toolsSucceeded(t, toolsResult(t, ce, era, h.toolsCall(t, ce, era, "alice", tool, args)))
		}
	}
}
