package gitlab_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools/gitlab"
)

// TestCatalog checks every tool of the catalog: GitLab's names, toolsets,
// editions, aliases and annotations, a description, and an input schema
// that compiles as JSON Schema 2020-12 and is a closed object.
func TestCatalog(t *testing.T) {
	type want struct {
		toolset  string
		edition  models.Edition
		readOnly bool
		aliases  []string
		required []string
	}
	wants := map[string]want{
		"get_mcp_server_version":      {models.ToolsetMeta, models.EditionCE, true, nil, nil},
		"get_issue":                   {models.ToolsetWorkItems, models.EditionCE, true, nil, []string{"id", "issue_iid"}},
		"create_issue":                {models.ToolsetWorkItems, models.EditionCE, false, nil, []string{"id", "title"}},
		"get_merge_request":           {models.ToolsetMergeRequests, models.EditionCE, true, nil, nil},
		"list_merge_requests":         {models.ToolsetMergeRequests, models.EditionCE, true, []string{"gitlab_merge_request_search"}, nil},
		"get_merge_request_notes":     {models.ToolsetMergeRequests, models.EditionCE, true, []string{"list_all_merge_request_notes"}, nil},
		"save_merge_request":          {models.ToolsetMergeRequests, models.EditionCE, false, []string{"update_merge_request", "create_merge_request"}, []string{"project_id"}},
		"save_merge_request_review":   {models.ToolsetMergeRequests, models.EditionCE, false, nil, []string{"method"}},
		"list_pipelines":              {models.ToolsetCI, models.EditionCE, true, nil, []string{"id"}},
		"get_pipeline":                {models.ToolsetCI, models.EditionCE, true, nil, []string{"id", "pipeline_id"}},
		"save_pipeline":               {models.ToolsetCI, models.EditionCE, false, nil, nil},
		"manage_pipeline":             {models.ToolsetCI, models.EditionCE, false, nil, []string{"id", "pipeline_id"}},
		"get_job":                     {models.ToolsetCI, models.EditionCE, true, []string{"get_job_log"}, []string{"id", "job_id"}},
		"get_artifact_file":           {models.ToolsetCI, models.EditionCE, true, nil, []string{"artifact_path"}},
		"list_vulnerabilities":        {"code_security", models.EditionEE, true, nil, []string{"project_full_path"}},
		"get_vulnerability":           {"code_security", models.EditionEE, true, nil, []string{"vulnerability_id"}},
		"save_vulnerability":          {"code_security", models.EditionEE, false, nil, []string{"action", "vulnerability_id"}},
		"attach_scan_profile":         {"code_security", models.EditionEE, false, nil, []string{"security_scan_profile_id"}},
		"list_duo_agents_and_flows":   {"duo_agent_platform", models.EditionCE, true, nil, []string{"project_id"}},
		"start_duo_session":           {"duo_agent_platform", models.EditionCE, false, nil, []string{"project_id", "ai_catalog_item_consumer_id", "goal"}},
		"list_duo_sessions":           {"duo_agent_platform", models.EditionCE, true, nil, nil},
		"get_duo_session":             {"duo_agent_platform", models.EditionCE, true, []string{"get_duo_workflow_status"}, []string{"workflow_id"}},
		"send_duo_session_input":      {"duo_agent_platform", models.EditionCE, false, nil, []string{"workflow_id", "human_approval"}},
		"get_merge_request_commits":   {models.ToolsetMergeRequests, models.EditionCE, true, nil, []string{"id", "merge_request_iid"}},
		"get_merge_request_diffs":     {models.ToolsetMergeRequests, models.EditionCE, true, []string{"list_merge_request_diffs"}, []string{"id", "merge_request_iid"}},
		"get_merge_request_pipelines": {models.ToolsetMergeRequests, models.EditionCE, true, nil, []string{"id", "merge_request_iid"}},
		"get_merge_request_conflicts": {models.ToolsetMergeRequests, models.EditionCE, true, nil, []string{"project_id", "merge_request_iid"}},
		"accept_merge_request":        {models.ToolsetMergeRequests, models.EditionCE, false, nil, []string{"sha"}},
		"get_commit":                  {models.ToolsetRepository, models.EditionCE, true, nil, nil},
		"list_releases":               {models.ToolsetRepository, models.EditionCE, true, nil, nil},
		"get_pipeline_jobs":           {models.ToolsetCI, models.EditionCE, true, nil, []string{"id", "pipeline_id"}},
		"get_workitem_notes":          {models.ToolsetWorkItems, models.EditionCE, true, []string{"get_work_item_notes"}, nil},
		"search":                      {models.ToolsetCore, models.EditionCE, true, []string{"gitlab_search"}, []string{"scope", "search"}},
		"search_labels":               {models.ToolsetCore, models.EditionCE, true, nil, []string{"full_path", "is_project"}},
		"get_project":                 {models.ToolsetCore, models.EditionCE, true, nil, nil},
		"get_user":                    {models.ToolsetCore, models.EditionCE, true, nil, nil},
		"list_projects":               {models.ToolsetCore, models.EditionCE, true, nil, nil},
		"list_groups":                 {models.ToolsetCore, models.EditionCE, true, nil, nil},
		"list_project_members":        {models.ToolsetCore, models.EditionCE, true, nil, []string{"project_id"}},
		"save_note":                   {models.ToolsetCore, models.EditionCE, false, []string{"create_merge_request_note", "create_work_item_note", "create_workitem_note"}, []string{"body"}},
		"list_work_items":             {models.ToolsetWorkItems, models.EditionCE, true, nil, nil},
		"get_work_item":               {models.ToolsetWorkItems, models.EditionCE, true, nil, nil},
		"save_work_item":              {models.ToolsetWorkItems, models.EditionCE, false, []string{"create_work_item", "update_work_item"}, nil},
		"link_work_items":             {models.ToolsetWorkItems, models.EditionCE, false, nil, []string{"work_items_ids"}},
		"get_work_item_types":         {models.ToolsetWorkItems, models.EditionCE, true, nil, nil},
		"get_saved_view_work_items":   {models.ToolsetWorkItems, models.EditionCE, true, nil, []string{"saved_view_id"}},
		"list_wiki_pages":             {models.ToolsetWikis, models.EditionCE, true, nil, nil},
		"get_repository_file":         {models.ToolsetRepository, models.EditionCE, true, nil, []string{}},
		"list_repository_tree":        {models.ToolsetRepository, models.EditionCE, true, nil, nil},
		"list_commits":                {models.ToolsetRepository, models.EditionCE, true, nil, nil},
		"list_branches":               {models.ToolsetRepository, models.EditionCE, true, nil, []string{"id"}},
		"list_tags":                   {models.ToolsetRepository, models.EditionCE, true, nil, nil},
		"add_branch":                  {models.ToolsetRepository, models.EditionCE, false, []string{"create_branch"}, []string{"branch", "ref"}},
		"add_commit":                  {models.ToolsetRepository, models.EditionCE, false, []string{"create_commit"}, []string{"branch", "commit_message", "actions"}},
		"fork_repository":             {models.ToolsetRepository, models.EditionCE, false, nil, []string{"id"}},
		"semantic_search":             {models.ToolsetCore, models.EditionEE, true, []string{"semantic_code_search"}, []string{"scope", "q", "project_id"}},
	}
	defs := gitlab.Tools(gitlab.Deps{})
	if len(defs) != len(wants) {
		t.Errorf("catalog has %d tools, want %d", len(defs), len(wants))
	}
	seen := map[string]bool{}
	for _, d := range defs {
		t.Run(d.Name, func(t *testing.T) {
			w, ok := wants[d.Name]
			if !ok {
				t.Fatalf("unexpected tool %q", d.Name)
			}
			seen[d.Name] = true
			if d.Description == "" || d.Title == "" {
				t.Errorf("title %q / description %q must not be empty", d.Title, d.Description)
			}
			if d.Run == nil {
				t.Error("no executor")
			}
			if d.Toolset != w.toolset || d.Edition != w.edition {
				t.Errorf("toolset/edition = %s/%s, want %s/%s", d.Toolset, d.Edition, w.toolset, w.edition)
			}
			if !slices.Equal(d.Aliases, w.aliases) {
				t.Errorf("aliases = %v, want %v", d.Aliases, w.aliases)
			}
			a := d.Annotations
			// GitLab marks add_commit, save_pipeline, manage_pipeline,
			// accept_merge_request and start_duo_session destructive.
			destructive := d.Name == "add_commit" || d.Name == "save_pipeline" || d.Name == "manage_pipeline" ||
				d.Name == "accept_merge_request" || d.Name == "start_duo_session"
			if a.ReadOnlyHint != w.readOnly || a.DestructiveHint == nil || *a.DestructiveHint != destructive {
				t.Errorf("annotations = readOnly %v destructive %v, want readOnly %v destructive %v",
					a.ReadOnlyHint, a.DestructiveHint, w.readOnly, destructive)
			}

			var schema map[string]any
			if err := json.Unmarshal(d.InputSchema, &schema); err != nil {
				t.Fatalf("input schema: %v", err)
			}
			if schema["type"] != "object" || schema["additionalProperties"] != false {
				t.Errorf("schema type %v, additionalProperties %v: want a closed object", schema["type"], schema["additionalProperties"])
			}
			var required []string
			if r, ok := schema["required"].([]any); ok {
				for _, x := range r {
					required = append(required, x.(string))
				}
			}
			if !slices.Equal(required, w.required) {
				t.Errorf("required = %v, want %v", required, w.required)
			}
			// A non-nil empty want is GitLab's explicit "required": [].
			if _, has := schema["required"]; has != (w.required != nil) {
				t.Errorf("schema has required: %v, want %v (%v)", has, w.required != nil, w.required)
			}
			props, _ := schema["properties"].(map[string]any)
			for name, p := range props {
				if desc, _ := p.(map[string]any)["description"].(string); desc == "" {
					t.Errorf("property %q has no description", name)
				}
			}
			for _, r := range required {
				if _, ok := props[r]; !ok {
					t.Errorf("required %q is not a property", r)
				}
			}
			c := jsonschema.NewCompiler()
			c.DefaultDraft(jsonschema.Draft2020)
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(d.InputSchema))
			if err != nil {
				t.Fatal(err)
			}
			if err := c.AddResource("mem:///"+d.Name+".json", doc); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Compile("mem:///" + d.Name + ".json"); err != nil {
				t.Errorf("schema does not compile: %v", err)
			}
		})
	}
	for name := range wants {
		if !seen[name] {
			t.Errorf("tool %q missing from the catalog", name)
		}
	}
}

// TestAliasesResolve calls tools by their GitLab aliases.
func TestAliasesResolve(t *testing.T) {
	w := newWorld(t)
	m := w.ok(t, w.Alice, "gitlab_search", `{"scope":"projects","search":"orbit"}`)
	jsonEq(t, "gitlab_search projects", field(t, items(t, m), "path_with_namespace"), []string{"gitlab-org/orbit"})
	m = w.ok(t, w.Alice, "get_work_item_notes", `{"project_id":"gitlab-org/gitlab-mcp","work_item_iid":4}`)
	if n := len(items(t, m)); n != 1 {
		t.Errorf("get_work_item_notes returned %d notes, want 1", n)
	}
}

// TestValidationErrors: arguments are checked against the schema before
// anything runs; failures are isError results starting "Validation error:".
func TestValidationErrors(t *testing.T) {
	w := newWorld(t)
	cases := []struct {
		tool, args, want string
	}{
		{"get_issue", `{"id":"gitlab-org/gitlab-mcp"}`, "Validation error: missing property 'issue_iid'"},
		{"get_issue", `{"id":"gitlab-org/gitlab-mcp","issue_iid":0}`, "Validation error: /issue_iid: minimum: got 0, want 1"},
		{"get_issue", `{"id":"gitlab-org/gitlab-mcp","issue_iid":"1"}`, "Validation error: /issue_iid: got string, want integer"},
		{"get_issue", `{"id":true,"issue_iid":1}`, "Validation error: /id: got boolean, want integer or string"},
		{"get_issue", `{"id":"","issue_iid":1}`, "Validation error: /id: minLength: got 0, want 1"},
		{"get_issue", `{"id":"g/p","issue_iid":1,"extra":1}`, "Validation error: additional properties 'extra' not allowed"},
		{"create_issue", `{"id":1}`, "Validation error: missing property 'title'"},
		{"create_merge_request", `{"project_id":1,"id":1,"title":"x","source_branch":"a","target_branch":"b"}`, "Validation error: additional properties 'id' not allowed"},
		{"get_merge_request_commits", `{"id":1,"merge_request_iid":1,"per_page":101}`, "Validation error: /per_page: maximum: got 101, want 100"},
		{"get_pipeline_jobs", `{"id":1,"pipeline_id":-3}`, "Validation error: /pipeline_id: minimum: got -3, want 1"},
		{"create_workitem_note", `{"project_id":1,"work_item_iid":1,"body":""}`, "Validation error: /body: minLength: got 0, want 1"},
		{"create_workitem_note", `{"project_id":1,"work_item_iid":1,"body":"x","discussion_id":""}`, "Validation error: /discussion_id: minLength: got 0, want 1"},
		{"get_workitem_notes", `{"project_id":1,"work_item_iid":1,"first":0}`, "Validation error: /first: minimum: got 0, want 1"},
		{"search", `{"scope":"wikis","search":"x"}`, "Validation error: /scope: value must be one of"},
		{"search", `{"scope":"issues"}`, "Validation error: missing property 'search'"},
		{"search", `{"scope":"issues","search":"x","sort":"up"}`, "Validation error: /sort: value must be one of 'asc', 'desc'"},
		{"search_labels", `{"full_path":"gitlab-org"}`, "Validation error: missing property 'is_project'"},
		{"search_labels", `{"full_path":"gitlab-org","is_project":false,"search":[]}`, "Validation error:"},
		{"semantic_code_search", `{"project_id":1,"scope":"code"}`, "Validation error: missing property 'q'"},
	}
	for _, c := range cases {
		t.Run(c.tool+" "+c.args, func(t *testing.T) {
			w.fails(t, w.Alice, c.tool, c.args, c.want)
		})
	}
}
