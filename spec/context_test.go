package spec

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
)

// Resources, prompts and completions over GitLab data (issue #14): every
// resource URI is the object's GitLab web URL; reads are permission-checked
// exactly like the tools (a private object reads like a missing one);
// resources/list pages the caller's projects with signed cursors.

// ctxErrStatus is the HTTP status of a JSON-RPC error about a parsed
// request in era (doc/errors.md, "JSON-RPC errors").
func ctxErrStatus(era string) int { return rpcStatus(era, http.StatusBadRequest) }

func (h *harness) ctxSend(t testing.TB, g group, era, user, method string, params map[string]any) *response {
	t.Helper()
	return h.send(t, call{Era: era, URL: g.URL, User: user, ID: 7, Method: method, Params: params})
}

// ctxRead reads uri and returns the contents items.
func (h *harness) ctxRead(t testing.TB, g group, era, user, uri string) []map[string]any {
	t.Helper()
	r := h.ctxSend(t, g, era, user, "resources/read", map[string]any{"uri": uri})
	r.expectStatus(t, http.StatusOK)
	validateResult(t, eraRev(era), "ReadResourceResult", r.Body)
	res := r.result(t)
	if era == "modern" {
		expectModernResult(t, res, g.ServerName)
		if res["cacheScope"] != "private" {
			t.Errorf("cacheScope = %v, want private", res["cacheScope"])
		}
	}
	var out []map[string]any
	for _, c := range toolsArray(t, res["contents"]) {
		out = append(out, c.(map[string]any))
	}
	return out
}

// ctxMissing asserts uri reads as "Resource not found" (-32602, data.uri)
// and returns the message.
func (h *harness) ctxMissing(t testing.TB, g group, era, user, uri string) string {
	t.Helper()
	r := h.ctxSend(t, g, era, user, "resources/read", map[string]any{"uri": uri})
	msg, data := r.expectError(t, ctxErrStatus(era), -32602)
	if d, _ := data.(map[string]any); d["uri"] != uri {
		t.Errorf("data = %v, want uri %q", data, uri)
	}
	if !strings.HasPrefix(msg, "Resource not found: ") {
		t.Errorf("message %q", msg)
	}
	return strings.Replace(msg, uri, "<uri>", 1)
}

func TestContext_resourceTemplatesAndReads(t *testing.T) {
	h := startServer(t, withEE())
	toolsAddUser(t, h, "outsider")
	base := h.Cfg.PublicURL
	for _, g := range h.groups() {
		for _, era := range eras {
			t.Run(g.Name+"/"+era+"/templates", func(t *testing.T) {
				r := h.ctxSend(t, g, era, "alice", "resources/templates/list", nil)
				r.expectStatus(t, http.StatusOK)
				validateResult(t, eraRev(era), "ListResourceTemplatesResult", r.Body)
				var got []string
				for _, tm := range toolsArray(t, r.result(t)["resourceTemplates"]) {
					got = append(got, tm.(map[string]any)["uriTemplate"].(string))
				}
				for _, want := range []string{base + "/{+project}/-/issues/{iid}", base + "/{+project}/-/merge_requests/{iid}",
					base + "/{+project}/-/blob/{ref}/{+path}", base + "/{+project}/-/jobs/{id}", base + "/{+project}"} {
					if !slices.Contains(got, want) {
						t.Errorf("templates %v lack %s", got, want)
					}
				}
			})
			t.Run(g.Name+"/"+era+"/issue", func(t *testing.T) {
				uri := base + "/gitlab-org/gitlab-mcp/-/issues/2"
				c := h.ctxRead(t, g, era, "alice", uri)
				if len(c) != 1 || c[0]["uri"] != uri || c[0]["mimeType"] != "application/json" {
					t.Fatalf("contents = %v", c)
				}
				want := h.toolsRead(t, g, "alice", "get_issue", map[string]any{"id": "gitlab-org/gitlab-mcp", "issue_iid": 2})
				doc := decodeObject(t, []byte(c[0]["text"].(string)))
				if fmt.Sprint(doc) != fmt.Sprint(want) {
					t.Errorf("issue resource differs from get_issue:\n%v\n%v", doc, want)
				}
				// The work item URL is the same object.
				w := h.ctxRead(t, g, era, "alice", base+"/gitlab-org/gitlab-mcp/-/work_items/2")
				if w[0]["text"] != c[0]["text"] {
					t.Errorf("work item URL reads differently")
				}
			})
			t.Run(g.Name+"/"+era+"/merge request with its diff", func(t *testing.T) {
				uri := base + "/gitlab-org/gitlab-mcp/-/merge_requests/1"
				c := h.ctxRead(t, g, era, "alice", uri)
				if len(c) != 2 {
					t.Fatalf("contents = %v, want the merge request and its diff", c)
				}
				mr := decodeObject(t, []byte(c[0]["text"].(string)))
				toolsExpectField(t, mr, 1, "iid")
				if c[1]["mimeType"] != "text/x-diff" || !strings.Contains(c[1]["text"].(string), "+++ b/") {
					t.Errorf("diff item = %v", c[1])
				}
			})
			t.Run(g.Name+"/"+era+"/private reads like missing", func(t *testing.T) {
				if a, b := h.ctxMissing(t, g, era, "outsider", base+"/acme/secret-plans"), h.ctxMissing(t, g, era, "outsider", base+"/acme/nope"); a != b {
					t.Errorf("private project %q, missing %q", a, b)
				}
				p := h.ctxRead(t, g, era, "alice", base+"/acme/secret-plans")
				toolsExpectField(t, decodeObject(t, []byte(p[0]["text"].(string))), "acme/secret-plans", "path_with_namespace")
				private := h.ctxMissing(t, g, era, "outsider", base+"/acme/secret-plans/-/issues/1")
				missing := h.ctxMissing(t, g, era, "outsider", base+"/acme/no-such-project/-/issues/1")
				if private != missing {
					t.Errorf("private %q, missing %q", private, missing)
				}
				// The member reads it.
				h.ctxRead(t, g, era, "alice", base+"/acme/secret-plans/-/issues/1")
			})
			t.Run(g.Name+"/"+era+"/not ours", func(t *testing.T) {
				for _, uri := range []string{
					"https://elsewhere.example/gitlab-org/gitlab-mcp/-/issues/1",
					base + "/gitlab-org/gitlab-mcp/-/issues/0",
					base + "/gitlab-org/gitlab-mcp/-/issues/abc",
					base + "/gitlab-org/gitlab-mcp/-/issues/1?x=1",
					base + "/gitlab-org/../etc/-/issues/1",
					base + "/gitlab-org/gitlab-mcp/-/pipelines/1",
					base + "/gitlab-org/gitlab-mcp/-/blob/main/../../etc/passwd",
					base + "/gitlab-org/gitlab-mcp/-/blob/main//x",
					base + "/solo",
				} {
					h.ctxMissing(t, g, era, "alice", uri)
				}
				r := h.ctxSend(t, g, era, "alice", "resources/read", map[string]any{"uri": ""})
				r.expectError(t, ctxErrStatus(era), -32602)
			})
		}
	}
}

func TestContext_resourcesListPaging(t *testing.T) {
	h := startServer(t)
	ctx := context.Background()
	ce := h.groups()[0]
	u := toolsAddUser(t, h, "pager")
	grp, err := h.Env.Store.Groups.FindGroupByFullPath(ctx, "gitlab-org")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range 123 {
		p := &models.Project{Name: fmt.Sprintf("Paged %03d", i), Path: fmt.Sprintf("paged-%03d", i), NamespaceID: grp.ID,
			Visibility: models.VisibilityPrivate, DefaultBranch: "main"}
		if err := h.Env.Store.Projects.CreateProject(ctx, p); err != nil {
			t.Fatal(err)
		}
		if i%41 == 7 {
			continue // not a member: never listed
		}
		now := time.Now().UTC()
		if err := h.Env.Store.Groups.AddProjectMember(ctx, &models.ProjectMember{ProjectID: p.ID, UserID: u.ID, AccessLevel: models.Developer, CreatedAt: now, UpdatedAt: now}); err != nil {
			t.Fatal(err)
		}
		want = append(want, h.Cfg.PublicURL+"/"+p.PathWithNamespace)
	}
	for _, era := range eras {
		var got []string
		var cursor any
		pages := 0
		for {
			params := map[string]any{}
			if cursor != nil {
				params["cursor"] = cursor
			}
			r := h.ctxSend(t, ce, era, "pager", "resources/list", params)
			r.expectStatus(t, http.StatusOK)
			validateResult(t, eraRev(era), "ListResourcesResult", r.Body)
			res := r.result(t)
			for _, it := range toolsArray(t, res["resources"]) {
				got = append(got, it.(map[string]any)["uri"].(string))
			}
			pages++
			next, ok := res["nextCursor"]
			if !ok {
				break
			}
			if next == "" {
				t.Fatal("empty nextCursor")
			}
			// Another user cannot resume this listing; a tampered cursor is refused.
			s := next.(string)
			h.ctxSend(t, ce, era, "alice", "resources/list", map[string]any{"cursor": s}).expectError(t, ctxErrStatus(era), -32602)
			h.ctxSend(t, ce, era, "pager", "resources/list", map[string]any{"cursor": s[:len(s)-2] + "AA"}).expectError(t, ctxErrStatus(era), -32602)
			cursor = s
		}
		if !slices.Equal(got, want) || pages != 3 {
			t.Errorf("%s: %d pages, %d resources, want 3 pages of %d", era, pages, len(got), len(want))
		}
		for _, bad := range []any{"", "garbage", strings.Repeat("A", 500), 7} {
			h.ctxSend(t, ce, era, "pager", "resources/list", map[string]any{"cursor": bad}).expectError(t, ctxErrStatus(era), -32602)
		}
		// prompts/list and resources/templates/list fit on one page: any cursor is invalid.
		for _, m := range []string{"prompts/list", "resources/templates/list"} {
			h.ctxSend(t, ce, era, "pager", m, map[string]any{"cursor": "x"}).expectError(t, ctxErrStatus(era), -32602)
		}
	}
}

func TestContext_prompts(t *testing.T) {
	h := startServer(t, withEE())
	toolsAddUser(t, h, "outsider")
	for _, g := range h.groups() {
		for _, era := range eras {
			t.Run(g.Name+"/"+era+"/list", func(t *testing.T) {
				r := h.ctxSend(t, g, era, "alice", "prompts/list", nil)
				r.expectStatus(t, http.StatusOK)
				validateResult(t, eraRev(era), "ListPromptsResult", r.Body)
				var names []string
				for _, p := range toolsArray(t, r.result(t)["prompts"]) {
					names = append(names, p.(map[string]any)["name"].(string))
				}
				want := []string{"explain_failed_pipeline", "review_merge_request", "summarize_changes", "triage_issue"}
				if !slices.Equal(names, want) {
					t.Errorf("prompts = %v, want %v", names, want)
				}
			})
			get := func(user, name string, args map[string]any) *response {
				return h.ctxSend(t, g, era, user, "prompts/get", map[string]any{"name": name, "arguments": args})
			}
			t.Run(g.Name+"/"+era+"/triage_issue", func(t *testing.T) {
				r := get("alice", "triage_issue", map[string]any{"project": "gitlab-org/gitlab-mcp", "iid": "2"})
				r.expectStatus(t, http.StatusOK)
				validateResult(t, eraRev(era), "GetPromptResult", r.Body)
				body := string(r.Body)
				if !strings.Contains(body, `"type":"resource"`) || !strings.Contains(body, "Support the 2026-07-28 stateless protocol revision") {
					t.Errorf("prompt lacks the embedded issue: %.300s", body)
				}
			})
			t.Run(g.Name+"/"+era+"/review_merge_request", func(t *testing.T) {
				r := get("alice", "review_merge_request", map[string]any{"project": "gitlab-org/gitlab-mcp", "iid": "1"})
				r.expectStatus(t, http.StatusOK)
				validateResult(t, eraRev(era), "GetPromptResult", r.Body)
				if !strings.Contains(string(r.Body), "text/x-diff") {
					t.Errorf("no diff embedded")
				}
			})
			t.Run(g.Name+"/"+era+"/outsider reads like missing", func(t *testing.T) {
				a, _ := get("outsider", "triage_issue", map[string]any{"project": "acme/secret-plans", "iid": "1"}).expectError(t, ctxErrStatus(era), -32602)
				b, _ := get("outsider", "triage_issue", map[string]any{"project": "acme/nothing-here", "iid": "1"}).expectError(t, ctxErrStatus(era), -32602)
				if strings.ReplaceAll(a, "secret-plans", "X") != strings.ReplaceAll(b, "nothing-here", "X") {
					t.Errorf("private %q, missing %q", a, b)
				}
			})
			t.Run(g.Name+"/"+era+"/bad arguments", func(t *testing.T) {
				for _, c := range []struct {
					name string
					args map[string]any
					frag string
				}{
					{"triage_issue", map[string]any{"project": "gitlab-org/gitlab-mcp"}, `missing required argument "iid"`},
					{"triage_issue", map[string]any{"project": "gitlab-org/gitlab-mcp", "iid": "abc"}, "iid must be a positive integer"},
					{"triage_issue", map[string]any{"project": "gitlab-org/gitlab-mcp", "iid": "1", "extra": "x"}, `unknown argument "extra"`},
					{"triage_issue", map[string]any{"project": "gitlab-org/gitlab-mcp", "iid": 1}, "Invalid params"},
					{"no_such_prompt", nil, `Prompt not found: "no_such_prompt"`},
				} {
					msg, _ := get("alice", c.name, c.args).expectError(t, ctxErrStatus(era), -32602)
					if !strings.Contains(msg, c.frag) {
						t.Errorf("%s %v: message %q lacks %q", c.name, c.args, msg, c.frag)
					}
				}
			})
		}
	}
}

func TestContext_completions(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	complete := func(era, user string, ref map[string]any, arg, value string, ctxArgs map[string]any) []string {
		t.Helper()
		params := map[string]any{"ref": ref, "argument": map[string]any{"name": arg, "value": value}}
		if ctxArgs != nil {
			params["context"] = map[string]any{"arguments": ctxArgs}
		}
		r := h.ctxSend(t, ce, era, user, "completion/complete", params)
		r.expectStatus(t, http.StatusOK)
		validateResult(t, eraRev(era), "CompleteResult", r.Body)
		var out []string
		for _, v := range toolsArray(t, toolsDig(r.result(t), "completion", "values")) {
			out = append(out, v.(string))
		}
		return out
	}
	prompt := map[string]any{"type": "ref/prompt", "name": "triage_issue"}
	for _, era := range eras {
		all := complete(era, "alice", prompt, "project", "", nil)
		if !slices.Contains(all, "acme/secret-plans") || !slices.Contains(all, "gitlab-org/gitlab-mcp") {
			t.Errorf("%s alice: %v", era, all)
		}
		if got := complete(era, "carol", prompt, "project", "acme/", nil); slices.Contains(got, "acme/secret-plans") {
			t.Errorf("%s carol sees a private project: %v", era, got)
		}
		if got := complete(era, "alice", prompt, "project", "GITLAB-ORG/GITLAB-M", nil); !slices.Equal(got, []string{"gitlab-org/gitlab-mcp"}) {
			t.Errorf("%s prefix: %v", era, got)
		}
		iids := complete(era, "alice", prompt, "iid", "", map[string]any{"project": "gitlab-org/gitlab-mcp"})
		if len(iids) == 0 || !slices.Contains(iids, "2") {
			t.Errorf("%s iids: %v", era, iids)
		}
		if got := complete(era, "carol", prompt, "iid", "", map[string]any{"project": "acme/secret-plans"}); len(got) != 0 {
			t.Errorf("%s carol gets iids of a private project: %v", era, got)
		}
		tmpl := map[string]any{"type": "ref/resource", "uri": h.Cfg.PublicURL + "/{+project}/-/merge_requests/{iid}"}
		if got := complete(era, "alice", tmpl, "iid", "", map[string]any{"project": "gitlab-org/gitlab-mcp"}); !slices.Contains(got, "1") {
			t.Errorf("%s merge request iids: %v", era, got)
		}
		r := h.ctxSend(t, ce, era, "alice", "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "nope"}, "argument": map[string]any{"name": "x", "value": ""}})
		r.expectError(t, ctxErrStatus(era), -32602)
	}
}

// TestContext_legacySubscribe: resources/subscribe and unsubscribe are
// accepted on the 2025 revisions (declared in capabilities) and unknown on
// 2026-07-28, where subscriptions ride on subscriptions/listen.
func TestContext_legacySubscribe(t *testing.T) {
	h := startServer(t)
	ce := h.groups()[0]
	for _, m := range []string{"resources/subscribe", "resources/unsubscribe"} {
		r := h.ctxSend(t, ce, "legacy", "alice", m, map[string]any{"uri": h.Cfg.PublicURL + "/gitlab-org/gitlab-mcp"})
		r.expectStatus(t, http.StatusOK)
		if res := r.result(t); len(res) != 0 {
			t.Errorf("%s result = %v, want {}", m, res)
		}
		h.ctxSend(t, ce, "modern", "alice", m, map[string]any{"uri": h.Cfg.PublicURL + "/gitlab-org/gitlab-mcp"}).expectError(t, http.StatusNotFound, -32601)
	}
}

// TestContext_jobLogAndFailedPipeline: a job's log reads as a resource (its
// tail), and explain_failed_pipeline embeds each failed job's log tail.
func TestContext_jobLogAndFailedPipeline(t *testing.T) {
	h := startServer(t)
	ce := h.groups()[0]
	pipes := h.toolsRead(t, ce, "alice", "list_pipelines", map[string]any{"id": "gitlab-org/orbit", "status": "failed"})
	items := toolsItems(t, pipes)
	if len(items) == 0 {
		t.Fatal("the demo has no failed pipeline in gitlab-org/orbit")
	}
	pipeline := toolsInt(t, toolsDig(items[0], "id"))
	jobs := h.toolsRead(t, ce, "alice", "get_pipeline_jobs", map[string]any{"id": "gitlab-org/orbit", "pipeline_id": pipeline})
	var failed int64
	for _, j := range toolsItems(t, jobs) {
		if toolsDig(j, "status") == "failed" {
			failed = toolsInt(t, toolsDig(j, "id"))
		}
	}
	if failed == 0 {
		t.Fatal("no failed job")
	}
	uri := fmt.Sprintf("%s/gitlab-org/orbit/-/jobs/%d", h.Cfg.PublicURL, failed)
	for _, era := range eras {
		c := h.ctxRead(t, ce, era, "alice", uri)
		if len(c) != 1 || c[0]["mimeType"] != "text/plain" || !strings.Contains(c[0]["text"].(string), "gitlab-runner") {
			t.Errorf("%s: job log resource = %v", era, c)
		}
		h.ctxMissing(t, ce, era, "alice", fmt.Sprintf("%s/gitlab-org/orbit/-/jobs/%d", h.Cfg.PublicURL, failed+100000))
		r := h.ctxSend(t, ce, era, "alice", "prompts/get", map[string]any{"name": "explain_failed_pipeline",
			"arguments": map[string]any{"project": "gitlab-org/orbit", "pipeline_id": fmt.Sprint(pipeline)}})
		r.expectStatus(t, http.StatusOK)
		validateResult(t, eraRev(era), "GetPromptResult", r.Body)
		if body := string(r.Body); !strings.Contains(body, uri) || !strings.Contains(body, "gitlab-runner") {
			t.Errorf("%s: prompt lacks the failed job's log: %.300s", era, body)
		}
	}
}
