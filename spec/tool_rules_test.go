package spec

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"gitlab.com/glmcp/glmcp/app"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

const rulesProject = "gitlab-org/gitlab-mcp"

// setRule sets a tool rule (tool "" = every write tool) on the project or
// group at path.
func setRule(t testing.TB, h *harness, path, tool string, rule models.ToolRuleKind) {
	t.Helper()
	ctx := context.Background()
	r := &models.ToolRule{Tool: tool, Rule: rule}
	if p, err := h.Env.Store.Projects.FindProjectByPath(ctx, path); err == nil {
		r.ProjectID = &p.ID
	} else if g, err := h.Env.Store.Groups.FindGroupByFullPath(ctx, path); err == nil {
		r.NamespaceID = &g.ID
	} else {
		t.Fatalf("no project or group %s", path)
	}
	if err := h.Env.Store.Tools.SetToolRule(ctx, r); err != nil {
		t.Fatalf("set rule: %v", err)
	}
}

// issueArgs are create_issue arguments on the rules project.
func issueArgs(title string) map[string]any {
	return map[string]any{"id": rulesProject, "title": title, "description": "written after approval"}
}

// callText returns the text of a tools/call result and whether it is an
// error result.
func callText(t testing.TB, r *response) (string, bool) {
	t.Helper()
	res := r.ok(t)
	isErr, _ := res["isError"].(bool)
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		t.Fatalf("result without content: %s", r.Body)
	}
	text, _ := content[0].(map[string]any)["text"].(string)
	return text, isErr
}

// askFor sends a Modern create_issue as alice with caps and returns the
// approval question's requestState, after checking it shows what will be
// written.
func askFor(t testing.TB, h *harness, title string) string {
	t.Helper()
	res := confInputRequired(t, confRetry(t, h, "alice", "create_issue", issueArgs(title), confAllCaps, nil, ""))
	req := res["inputRequests"].(map[string]any)["approval"].(map[string]any)
	if req["method"] != "elicitation/create" {
		t.Fatalf("input request %v, want elicitation/create", req)
	}
	msg := req["params"].(map[string]any)["message"].(string)
	for _, want := range []string{"create_issue", rulesProject, "title: " + title, "description: written after approval", `"ask"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("elicitation message does not show %q:\n%s", want, msg)
		}
	}
	state, _ := res["requestState"].(string)
	if state == "" {
		t.Fatalf("no requestState: %v", res)
	}
	return state
}

// TestToolRules: every rule and every way an approval can go, each checked
// against the store (an issue written exactly when it should be).
func TestToolRules(t *testing.T) {
	h := startServer(t, func(c *app.Config) { c.RequestStateTTL = time.Second })
	count := func() int { return authIssueCount(t, h, rulesProject) }
	legacyCall := func(user string, args map[string]any) *response {
		return h.send(t, call{User: user, Method: "tools/call", Params: map[string]any{"name": "create_issue", "arguments": args}})
	}
	accept := map[string]any{"approval": map[string]any{"action": "accept", "content": map[string]any{}}}

	t.Run("allow by default", func(t *testing.T) {
		before := count()
		if text, isErr := callText(t, legacyCall("alice", issueArgs("allowed"))); isErr {
			t.Fatalf("default rule refused: %s", text)
		}
		if count() != before+1 {
			t.Fatal("no issue written")
		}
	})

	setRule(t, h, "gitlab-org", "", models.RuleAsk)

	t.Run("read tools are never asked", func(t *testing.T) {
		r := h.send(t, call{User: "alice", Method: "tools/call", Params: map[string]any{"name": "get_issue",
			"arguments": map[string]any{"id": rulesProject, "issue_iid": 1}}})
		if text, isErr := callText(t, r); isErr {
			t.Fatalf("get_issue under an ask rule: %s", text)
		}
	})

	t.Run("ask, accepted: written once; replay refused", func(t *testing.T) {
		before := count()
		state := askFor(t, h, "approved issue")
		if count() != before {
			t.Fatal("written before approval")
		}
		r := confRetry(t, h, "alice", "create_issue", issueArgs("approved issue"), confAllCaps, accept, state)
		if text, isErr := callText(t, r); isErr || r.result(t)["resultType"] != "complete" {
			t.Fatalf("accepted call: %s", text)
		}
		if count() != before+1 {
			t.Fatalf("issues %d → %d, want one written", before, count())
		}
		// The same state again, even with the same answer: refused.
		r = confRetry(t, h, "alice", "create_issue", issueArgs("approved issue"), confAllCaps, accept, state)
		msg, _ := r.expectError(t, http.StatusBadRequest, -32602)
		if !strings.Contains(msg, "already used") {
			t.Errorf("replay message %q", msg)
		}
		if count() != before+1 {
			t.Fatal("replay wrote again")
		}
	})

	for _, action := range []string{"decline", "cancel"} {
		t.Run("ask, "+action+": nothing written", func(t *testing.T) {
			before := count()
			state := askFor(t, h, action+"d issue")
			r := confRetry(t, h, "alice", "create_issue", issueArgs(action+"d issue"), confAllCaps,
				map[string]any{"approval": map[string]any{"action": action}}, state)
			text, isErr := callText(t, r)
			if !isErr || !strings.Contains(text, "not approved ("+action+")") {
				t.Fatalf("%s answer = %s", action, r.Body)
			}
			if count() != before {
				t.Fatal("written though " + action + "d")
			}
			// A declined state cannot be turned into an accept.
			r = confRetry(t, h, "alice", "create_issue", issueArgs(action+"d issue"), confAllCaps, accept, state)
			r.expectError(t, http.StatusBadRequest, -32602)
			if count() != before {
				t.Fatal("written by re-answering a used state")
			}
		})
	}

	t.Run("another user's state, other arguments, expired state", func(t *testing.T) {
		before := count()
		state := askFor(t, h, "guarded issue")
		confRetry(t, h, "bob", "create_issue", issueArgs("guarded issue"), confAllCaps, accept, state).expectError(t, http.StatusBadRequest, -32602)
		confRetry(t, h, "alice", "create_issue", issueArgs("other title"), confAllCaps, accept, state).expectError(t, http.StatusBadRequest, -32602)
		time.Sleep(2100 * time.Millisecond) // the state's lifetime is 1s here
		confRetry(t, h, "alice", "create_issue", issueArgs("guarded issue"), confAllCaps, accept, state).expectError(t, http.StatusBadRequest, -32602)
		if count() != before {
			t.Fatal("written with a refused state")
		}
	})

	t.Run("ask without elicitation or in the legacy era: explained, nothing written", func(t *testing.T) {
		before := count()
		text, isErr := callText(t, legacyCall("alice", issueArgs("legacy")))
		if !isErr || !strings.Contains(text, "approval") || !strings.Contains(text, "tool-rules set") {
			t.Fatalf("legacy ask = %q", text)
		}
		r := confRetry(t, h, "alice", "create_issue", issueArgs("no elicitation"), map[string]any{"sampling": map[string]any{}}, nil, "")
		text, isErr = callText(t, r)
		if !isErr || !strings.Contains(text, "did not declare the elicitation capability") {
			t.Fatalf("modern without elicitation = %q", text)
		}
		if count() != before {
			t.Fatal("written without approval")
		}
	})

	t.Run("deny names the rule; a project rule overrides the group's", func(t *testing.T) {
		setRule(t, h, rulesProject, "create_issue", models.RuleDeny)
		before := count()
		text, isErr := callText(t, legacyCall("alice", issueArgs("denied")))
		if !isErr || !strings.Contains(text, `the "deny" rule for create_issue on `+rulesProject) {
			t.Fatalf("deny = %q", text)
		}
		setRule(t, h, rulesProject, "", models.RuleAllow) // every write tool: less specific than the deny
		if text, isErr := callText(t, legacyCall("alice", issueArgs("still denied"))); !isErr {
			t.Fatalf("the tool's own rule lost to the every-write-tool rule: %s", text)
		}
		setRule(t, h, rulesProject, "create_issue", models.RuleAllow)
		if text, isErr := callText(t, legacyCall("alice", issueArgs("project allows"))); isErr {
			t.Fatalf("project allow under a group ask: %s", text)
		}
		if count() != before+1 {
			t.Fatalf("issues %d → %d, want one", before, count())
		}
	})
}

// TestToolRules_goSDKAsk: the go-sdk client, with an elicitation handler,
// completes an Ask flow in the 2026-07-28 era: the handler sees what will
// be written, its accept writes once; its decline writes nothing.
func TestToolRules_goSDKAsk(t *testing.T) {
	h := startServer(t)
	setRule(t, h, rulesProject, "create_issue", models.RuleAsk)
	var asked atomic.Int32
	var answer atomic.Value
	answer.Store("accept")
	client := mcp.NewClient(&mcp.Implementation{Name: "spec-go-sdk-ask", Version: "1.8.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Add(1)
			if !strings.Contains(req.Params.Message, "title: sdk issue") {
				t.Errorf("elicitation message %q", req.Params.Message)
			}
			return &mcp.ElicitResult{Action: answer.Load().(string), Content: map[string]any{}}, nil
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: h.CE, HTTPClient: &http.Client{Transport: bearerTransport{token: h.Tokens["alice"], base: http.DefaultTransport}}, MaxRetries: -1,
	}, &mcp.ClientSessionOptions{ProtocolVersion: revModern})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	before := authIssueCount(t, h, rulesProject)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_issue", Arguments: map[string]any{"id": rulesProject, "title": "sdk issue"}})
	if err != nil || res.IsError {
		t.Fatalf("CallTool = %+v, %v", res, err)
	}
	if asked.Load() != 1 || authIssueCount(t, h, rulesProject) != before+1 {
		t.Fatalf("asked %d times, issues %d → %d; want one question and one issue", asked.Load(), before, authIssueCount(t, h, rulesProject))
	}
	answer.Store("decline")
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_issue", Arguments: map[string]any{"id": rulesProject, "title": "sdk issue"}})
	if err != nil || !res.IsError {
		t.Fatalf("declined CallTool = %+v, %v; want an error result", res, err)
	}
	if asked.Load() != 2 || authIssueCount(t, h, rulesProject) != before+1 {
		t.Fatalf("declined call wrote or was not asked: asked %d", asked.Load())
	}
}

// TestToolRules_replayOnAnotherInstance: an approval answered on one
// instance cannot be answered again on another sharing the database.
func TestToolRules_replayOnAnotherInstance(t *testing.T) {
	dsn := testDSN(t)
	if dsn == "" {
		t.Skip("two instances need PostgreSQL (GLMCP_TEST_DATABASE_URL)")
	}
	h1 := startServer(t, withDSN(dsn))
	h2 := startServer(t, withDSN(dsn))
	setRule(t, h1, rulesProject, "create_issue", models.RuleAsk)
	accept := map[string]any{"approval": map[string]any{"action": "accept", "content": map[string]any{}}}
	state := askFor(t, h1, "once only")
	before := authIssueCount(t, h1, rulesProject)
	r := confRetry(t, h1, "alice", "create_issue", issueArgs("once only"), confAllCaps, accept, state)
	if text, isErr := callText(t, r); isErr {
		t.Fatalf("accepted on instance 1: %s", text)
	}
	confRetry(t, h2, "alice", "create_issue", issueArgs("once only"), confAllCaps, accept, state).expectError(t, http.StatusBadRequest, -32602)
	if after := authIssueCount(t, h2, rulesProject); after != before+1 {
		t.Fatalf("issues %d → %d, want exactly one", before, after)
	}
}

// TestToolRules_fork: fork_repository writes into its target group, so the
// target group's rules govern it (the rule of the place written to), not
// the source project's: a deny on the target refuses the fork, an ask
// asks, and a deny on the source's group does not stop a fork elsewhere.
func TestToolRules_fork(t *testing.T) {
	h := startServer(t)
	ce := h.groups()[0]
	repoSetUp(t, h, forkSource)
	forkGroup(t, h)
	args := func(path string) map[string]any {
		return map[string]any{"id": forkSource, "namespace_path": "forks", "path": path, "name": path}
	}

	t.Run("deny on the target group: refused, nothing written", func(t *testing.T) {
		setRule(t, h, "forks", "fork_repository", models.RuleDeny)
		repos := len(forkRepos(t, h))
		h.toolsFailWith(t, ce, "alice", "fork_repository", args("denied"),
			`The tool fork_repository is not allowed here: the "deny" rule for fork_repository on forks forbids it. `+
				"An administrator can change the rule with `glmcp tool-rules set`.")
		g, err := h.Env.Store.Groups.FindGroupByFullPath(context.Background(), "forks")
		if err != nil {
			t.Fatal(err)
		}
		byID := overrideArgs(args("denied"), "namespace_path", nil, "namespace_id", g.ID)
		if text := h.toolsFail(t, ce, "alice", "fork_repository", byID); !strings.Contains(text, `"deny" rule for fork_repository on forks`) {
			t.Errorf("deny by namespace_id = %q", text)
		}
		if n := len(forkRepos(t, h)); n != repos {
			t.Errorf("a denied fork left %d repositories, were %d", n, repos)
		}
	})

	t.Run("ask on the target group: asks, shows the target", func(t *testing.T) {
		setRule(t, h, "forks", "fork_repository", models.RuleAsk)
		before := toolsState(t, h)
		res := confInputRequired(t, confRetry(t, h, "alice", "fork_repository", args("asked"), confAllCaps, nil, ""))
		msg := res["inputRequests"].(map[string]any)["approval"].(map[string]any)["params"].(map[string]any)["message"].(string)
		if !strings.Contains(msg, "fork_repository on forks?") || !strings.Contains(msg, `the "ask" rule for fork_repository on forks`) {
			t.Errorf("approval message:\n%s", msg)
		}
		toolsExpectState(t, h, before)
		accept := map[string]any{"approval": map[string]any{"action": "accept", "content": map[string]any{}}}
		r := confRetry(t, h, "alice", "fork_repository", args("asked"), confAllCaps, accept, res["requestState"].(string))
		if text, isErr := callText(t, r); isErr {
			t.Fatalf("approved fork: %s", text)
		}
		toolsProject(t, h, "forks/asked")
	})

	t.Run("deny on the source's group does not stop a fork elsewhere", func(t *testing.T) {
		setRule(t, h, "forks", "fork_repository", models.RuleAllow)
		setRule(t, h, "gitlab-org", "", models.RuleDeny)
		sc := h.toolsWrite(t, ce, "legacy", "alice", "fork_repository", args("read-not-written"))
		toolsExpectField(t, sc, "forks/read-not-written", "path_with_namespace")
		// The deny still holds for writes into the source's group.
		text := h.toolsFail(t, ce, "alice", "fork_repository", overrideArgs(args("back-home"), "namespace_path", "gitlab-org"))
		if !strings.Contains(text, `"deny" rule for every write tool on gitlab-org`) {
			t.Errorf("fork into the denied source group = %q", text)
		}
	})
}

// TestToolRules_vulnerability: save_vulnerability names only its
// vulnerability, so the rules of the vulnerability's project govern it
// (looked up from vulnerability_id); a caller who cannot see the
// vulnerability still gets the tool's own not found.
func TestToolRules_vulnerability(t *testing.T) {
	h := startServer(t, withEE())
	ee := h.groups()[1]
	vid := toolsVulnerabilityID(t, h)
	toolsAddUser(t, h, "erin") // EE seat, member of nothing
	save := func(action string) map[string]any { return map[string]any{"vulnerability_id": vid, "action": action} }
	eeRetry := func(args map[string]any, responses any, state string) *response {
		params := map[string]any{"name": "save_vulnerability", "arguments": args, "_meta": metaWith(confAllCaps, nil)}
		if responses != nil {
			params["inputResponses"], params["requestState"] = responses, state
		}
		return h.send(t, call{Era: modern, URL: ee.URL, User: "root", ID: 32, Method: "tools/call", Params: params})
	}

	t.Run("no rule: allowed", func(t *testing.T) {
		toolsExpectField(t, h.toolsWrite(t, ee, modern, "root", "save_vulnerability", save("confirm")), "CONFIRMED", "vulnerability", "state")
		toolsExpectField(t, h.toolsWrite(t, ee, legacy, "root", "save_vulnerability", save("revert_to_detected")), "DETECTED", "vulnerability", "state")
	})

	t.Run("deny on the vulnerability's project: refused, nothing written", func(t *testing.T) {
		setRule(t, h, "gitlab-org/orbit", "save_vulnerability", models.RuleDeny)
		h.toolsFailWith(t, ee, "root", "save_vulnerability", save("confirm"),
			`The tool save_vulnerability is not allowed here: the "deny" rule for save_vulnerability on gitlab-org/orbit forbids it. `+
				"An administrator can change the rule with `glmcp tool-rules set`.")
		byGID := overrideArgs(save("confirm"), "vulnerability_id", "gid://gitlab/Vulnerability/"+vid)
		if text := h.toolsFail(t, ee, "root", "save_vulnerability", byGID); !strings.Contains(text, `"deny" rule for save_vulnerability on gitlab-org/orbit`) {
			t.Errorf("deny by global id = %q", text)
		}
		// A caller who cannot see the vulnerability gets the tool's not
		// found, as for a missing one: the deny does not reveal it.
		text := h.toolsSameAsMissing(t, ee, "erin", "save_vulnerability", save("confirm"), overrideArgs(save("confirm"), "vulnerability_id", "99999"))
		if strings.Contains(text, "orbit") || strings.Contains(text, "rule") {
			t.Errorf("hidden vulnerability answer = %q", text)
		}
	})

	t.Run("ask on the vulnerability's project: asks, then writes once approved", func(t *testing.T) {
		setRule(t, h, "gitlab-org/orbit", "save_vulnerability", models.RuleAsk)
		before := toolsState(t, h)
		res := confInputRequired(t, eeRetry(save("confirm"), nil, ""))
		msg := res["inputRequests"].(map[string]any)["approval"].(map[string]any)["params"].(map[string]any)["message"].(string)
		if !strings.Contains(msg, "save_vulnerability on gitlab-org/orbit?") || !strings.Contains(msg, `the "ask" rule for save_vulnerability on gitlab-org/orbit`) {
			t.Errorf("approval message:\n%s", msg)
		}
		toolsExpectState(t, h, before)
		accept := map[string]any{"approval": map[string]any{"action": "accept", "content": map[string]any{}}}
		text, isErr := callText(t, eeRetry(save("confirm"), accept, res["requestState"].(string)))
		if isErr || !strings.Contains(text, `"CONFIRMED"`) {
			t.Fatalf("approved save_vulnerability: %s", text)
		}
	})
}

// TestToolRules_linkWorkItems: link_work_items writes the link into the
// source work item's project and into every linked item's (GitLab shows
// it on both sides), so the strictest rule of the projects the caller can
// read governs it; an Ask names them all. A linked item the caller cannot
// read answers as a missing one, whatever the rule of its project.
func TestToolRules_linkWorkItems(t *testing.T) {
	h := startServer(t)
	ce := h.groups()[0]
	mcp, orbit, secret := toolsProject(t, h, rulesProject), toolsProject(t, h, "gitlab-org/orbit"), toolsProject(t, h, "acme/secret-plans")
	link := func(source int, targets ...string) map[string]any {
		ids := []any{}
		for _, t := range targets {
			ids = append(ids, t)
		}
		return map[string]any{"project_id": rulesProject, "work_item_iid": source, "work_items_ids": ids}
	}
	links := func() int64 { return storetest.Int(t, h.Env.Store, "SELECT COUNT(*) FROM issue_links") }
	six, orbitOne, secretOne := wiGID(t, h, mcp.ID, 6), wiGID(t, h, orbit.ID, 1), wiGID(t, h, secret.ID, 1)

	t.Run("deny on a linked item's project: refused, nothing written", func(t *testing.T) {
		setRule(t, h, "gitlab-org/orbit", "link_work_items", models.RuleDeny)
		before := links()
		h.toolsFailWith(t, ce, "bob", "link_work_items", link(5, six, orbitOne),
			`The tool link_work_items is not allowed here: the "deny" rule for link_work_items on gitlab-org/orbit forbids it. `+
				"An administrator can change the rule with `glmcp tool-rules set`.")
		if n := links(); n != before {
			t.Fatalf("issue_links %d → %d, want nothing written", before, n)
		}
	})

	t.Run("ask on a linked item's project: asks naming both projects, then links once approved", func(t *testing.T) {
		setRule(t, h, "gitlab-org/orbit", "link_work_items", models.RuleAsk)
		before := links()
		res := confInputRequired(t, confRetry(t, h, "bob", "link_work_items", link(5, six, orbitOne), confAllCaps, nil, ""))
		msg := res["inputRequests"].(map[string]any)["approval"].(map[string]any)["params"].(map[string]any)["message"].(string)
		want := "Approve a write by link_work_items on gitlab-org/gitlab-mcp and gitlab-org/orbit? " +
			`(the "ask" rule for link_work_items on gitlab-org/orbit asks for approval.)`
		if !strings.HasPrefix(msg, want) || !strings.Contains(msg, orbitOne) {
			t.Errorf("approval message:\n%s\nwant it to start %q and show the linked ids", msg, want)
		}
		if n := links(); n != before {
			t.Fatalf("issue_links %d → %d before approval", before, n)
		}
		accept := map[string]any{"approval": map[string]any{"action": "accept", "content": map[string]any{}}}
		r := confRetry(t, h, "bob", "link_work_items", link(5, six, orbitOne), confAllCaps, accept, res["requestState"].(string))
		if text, isErr := callText(t, r); isErr {
			t.Fatalf("approved link: %s", text)
		}
		if n := links(); n != before+2 {
			t.Fatalf("issue_links %d → %d, want 2 written", before, n)
		}
	})

	t.Run("a linked item the caller cannot read reveals no rule", func(t *testing.T) {
		setRule(t, h, "acme/secret-plans", "link_work_items", models.RuleDeny)
		before := links()
		text := h.toolsSameAsMissing(t, ce, "bob", "link_work_items", link(7, secretOne), link(7, "gid://gitlab/WorkItem/99999"))
		if text != "No matching work item found. Make sure you are adding a valid ID and you have access to the item." {
			t.Errorf("hidden linked item: %q", text)
		}
		// alice reads acme/secret-plans: its deny holds for her.
		if text := h.toolsFail(t, ce, "alice", "link_work_items", link(7, secretOne)); !strings.Contains(text, `"deny" rule for link_work_items on acme/secret-plans`) {
			t.Errorf("alice, deny on the linked item's project = %q", text)
		}
		if n := links(); n != before {
			t.Fatalf("issue_links %d → %d, want nothing written", before, n)
		}
	})

	t.Run("allow everywhere: linked", func(t *testing.T) {
		setRule(t, h, "gitlab-org/orbit", "link_work_items", models.RuleAllow)
		before := links()
		h.toolsWrite(t, ce, "legacy", "bob", "link_work_items", link(7, orbitOne))
		if n := links(); n != before+1 {
			t.Fatalf("issue_links %d → %d, want 1 written", before, n)
		}
	})
}
