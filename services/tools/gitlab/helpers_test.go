package gitlab_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/demo"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
	"gitlab.com/glmcp/glmcp/services/tools"
	"gitlab.com/glmcp/glmcp/services/tools/gitlab"
)

// publicURL is the instance URL the tests configure.
const publicURL = "https://gitlab.example.com"

// world is the demo world behind a tools service: the spec runs every tool
// through Service.Call, against a real store (PostgreSQL
// with GLMCP_TEST_DATABASE_URL, SQLite otherwise).
type world struct {
	*demo.World
	st   *store.Store
	svc  *tools.Service
	snap *tools.Snapshot
	// Stranger is an active user who is a member of nothing.
	Stranger *models.User
}

func newWorld(tb testing.TB) *world {
	tb.Helper()
	return newWorldWith(tb, storetest.Open(tb), nil)
}

// newWorldWith builds the world on st; wrap, when set, wraps the store the
// tools see, outside transactions and in them (for fault injection: it
// replaces a family with one that fails or waits).
func newWorldWith(tb testing.TB, st *store.Store, wrap func(gitlab.Families) gitlab.Families) *world {
	tb.Helper()
	ctx := context.Background()
	dw, err := demo.Seed(ctx, st)
	if err != nil {
		tb.Fatalf("seed demo: %v", err)
	}
	stranger := &models.User{Username: "stranger", Name: "Sam Stranger", Email: "sam@example.com"}
	if err := st.Users.CreateUser(ctx, stranger); err != nil {
		tb.Fatalf("create stranger: %v", err)
	}
	ds := gitlab.FamiliesOf(st)
	inTx := gitlab.Transactions(st)
	if wrap != nil {
		ds = wrap(ds)
		inner := inTx
		inTx = func(ctx context.Context, fn func(tx gitlab.Families) error) error {
			return inner(ctx, func(tx gitlab.Families) error { return fn(wrap(tx)) })
		}
	}
	repos, _ := st.Projects.Repositories().(gitlab.Repositories) // the demo's history is in them
	svc, err := tools.NewService(st.Tools, gitlab.Tools(gitlab.Deps{Store: ds, InTx: inTx, PublicURL: publicURL,
		Version: gitlab.ServerVersion{Version: "18.8.0"}, Repositories: repos}), tools.Options{})
	if err != nil {
		tb.Fatalf("new service: %v", err)
	}
	if err := svc.Sync(ctx); err != nil {
		tb.Fatalf("sync tools: %v", err)
	}
	snap, err := svc.Snapshot(ctx)
	if err != nil {
		tb.Fatalf("snapshot: %v", err)
	}
	return &world{World: dw, st: st, svc: svc, snap: snap, Stranger: stranger}
}

// callOpts tune one call.
type callOpts struct {
	edition  models.Edition
	readOnly bool
	progress func(p, total float64, msg string)
}

// call runs tool name (or alias) as u with args (a JSON object literal or
// any value marshalled to one) and fails on a server error.
func (w *world) call(tb testing.TB, u *models.User, name string, args any, opts ...callOpts) *tools.Result {
	tb.Helper()
	res, err := w.try(u, name, args, opts...)
	if err != nil {
		tb.Fatalf("%s: server error: %v", name, err)
	}
	return res
}

func (w *world) try(u *models.User, name string, args any, opts ...callOpts) (res *tools.Result, err error) {
	defer func() { // a panicking tool fails its test, not the whole package
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	var o callOpts
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.edition == "" { // the EE group serves every tool
		o.edition = models.EditionEE
	}
	var raw json.RawMessage
	switch a := args.(type) {
	case string:
		raw = json.RawMessage(a)
	default:
		b, err := json.Marshal(a)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	id := &models.Identity{User: u, Method: models.MethodPAT, Scopes: []string{models.ScopeAPI}, ReadOnly: o.readOnly}
	return w.svc.Call(context.Background(), tools.CallRequest{Scope: models.Scope{Edition: o.edition, Identity: id},
		Name: name, Arguments: raw, Progress: o.progress})
}

// ok runs a call that must succeed and decodes its structured content.
func (w *world) ok(tb testing.TB, u *models.User, name string, args any, opts ...callOpts) map[string]any {
	tb.Helper()
	res := w.call(tb, u, name, args, opts...)
	if res.IsError {
		tb.Fatalf("%s(%v): isError: %s", name, args, res.Text)
	}
	m := structured(tb, res)
	var fromText map[string]any
	if err := json.Unmarshal([]byte(res.Text), &fromText); err != nil {
		tb.Fatalf("%s: text content is not the JSON document: %v", name, err)
	}
	return m
}

// fails runs a call that must be an isError result whose text starts with
// prefix, and returns the text.
func (w *world) fails(tb testing.TB, u *models.User, name string, args any, prefix string, opts ...callOpts) string {
	tb.Helper()
	res := w.call(tb, u, name, args, opts...)
	if !res.IsError {
		tb.Fatalf("%s(%v): succeeded, want an error starting %q; got %s", name, args, prefix, res.Text)
	}
	if !strings.HasPrefix(res.Text, prefix) {
		tb.Fatalf("%s(%v): error %q, want prefix %q", name, args, res.Text, prefix)
	}
	if res.Structured != nil {
		tb.Errorf("%s: error result carries structured content %v", name, res.Structured)
	}
	return res.Text
}

// structured decodes a result's structured content (which must be a JSON
// object, as MCP requires).
func structured(tb testing.TB, res *tools.Result) map[string]any {
	tb.Helper()
	b, err := json.Marshal(res.Structured)
	if err != nil {
		tb.Fatalf("marshal structured content: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		tb.Fatalf("structured content is not a JSON object: %s", b)
	}
	return m
}

func (w *world) project(path string) *models.Project { return w.Projects[path] }

// state counts the rows the write tools touch, and the iid counters.
func (w *world) state(tb testing.TB) map[string]int64 {
	tb.Helper()
	out := map[string]int64{}
	for _, table := range []string{"issues", "issue_assignees", "labels", "notes", "merge_requests",
		"merge_request_assignees", "merge_request_reviewers",
		"ci_pipelines", "internal_ids"} {
		var n int64
		if err := w.st.DB().Table(table).Count(&n).Error; err != nil {
			tb.Fatalf("count %s: %v", table, err)
		}
		out[table] = n
	}
	for _, q := range []struct{ name, sql string }{
		{"max issue iid", "SELECT coalesce(max(iid), 0) FROM issues"},
		{"max merge request iid", "SELECT coalesce(max(iid), 0) FROM merge_requests"},
		{"sum internal_ids", "SELECT coalesce(sum(last_value), 0) FROM internal_ids"},
		{"max note id", "SELECT coalesce(max(id), 0) FROM notes"},
	} {
		var n int64
		if err := w.st.DB().Raw(q.sql).Scan(&n).Error; err != nil {
			tb.Fatalf("%s: %v", q.name, err)
		}
		out[q.name] = n
	}
	return out
}

// unchanged fails tb when the store's state differs from before.
func (w *world) unchanged(tb testing.TB, before map[string]int64) {
	tb.Helper()
	after := w.state(tb)
	for k, v := range before {
		if after[k] != v {
			tb.Errorf("store changed: %s was %d, now %d", k, v, after[k])
		}
	}
}

// get walks a decoded JSON document: get(m, "author", "username").
func get(tb testing.TB, v any, path ...any) any {
	tb.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				tb.Fatalf("get %v: %v is not an object", path, v)
			}
			if v, ok = m[k]; !ok {
				tb.Fatalf("get %v: no key %q in %v", path, k, m)
			}
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				tb.Fatalf("get %v: %v has no index %d", path, v, k)
			}
			v = a[k]
		}
	}
	return v
}

// items returns the "items" array of a list result.
func items(tb testing.TB, m map[string]any) []any {
	tb.Helper()
	a, ok := m["items"].([]any)
	if !ok {
		tb.Fatalf("no items array in %v", m)
	}
	return a
}

// wantFields fails unless m has exactly the given values at those keys.
func wantFields(tb testing.TB, what string, m any, want map[string]any) {
	tb.Helper()
	obj, ok := m.(map[string]any)
	if !ok {
		tb.Fatalf("%s: %v is not an object", what, m)
	}
	for k, v := range want {
		got, ok := obj[k]
		if !ok {
			tb.Errorf("%s: missing %q", what, k)
			continue
		}
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(v)
		if string(gb) != string(wb) {
			tb.Errorf("%s.%s = %s, want %s", what, k, gb, wb)
		}
	}
}

// titles returns field key of every item.
func field(tb testing.TB, list []any, key string) []any {
	tb.Helper()
	out := make([]any, len(list))
	for k, it := range list {
		out[k] = get(tb, it, key)
	}
	return out
}

func jsonEq(tb testing.TB, what string, got, want any) {
	tb.Helper()
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	if string(gb) != string(wb) {
		tb.Errorf("%s = %s, want %s", what, gb, wb)
	}
}

func itoa(n int64) string { return fmt.Sprint(n) }

// nextIID is the iid the next issue or merge request (table) of project
// projectID gets.
func (w *world) nextIID(tb testing.TB, table string, projectID int64) int64 {
	tb.Helper()
	var n int64
	if err := w.st.DB().Raw("SELECT coalesce(max(iid), 0) + 1 FROM "+table+" WHERE project_id = ?", projectID).Scan(&n).Error; err != nil {
		tb.Fatalf("next iid: %v", err)
	}
	return n
}

// newRulesService is a tools service over w's store with the tool rules
// on (instance default Allow) and the instance at base.
func newRulesService(tb testing.TB, w *world, base string) *tools.Service {
	tb.Helper()
	svc, err := tools.NewService(w.st.Tools, gitlab.Tools(gitlab.Deps{Store: gitlab.FamiliesOf(w.st), InTx: gitlab.Transactions(w.st),
		PublicURL: base, Version: gitlab.ServerVersion{Version: "18.8.0"}}),
		tools.Options{Rules: w.st.Tools, DefaultWriteRule: models.RuleAllow})
	if err != nil {
		tb.Fatal(err)
	}
	if err := svc.Sync(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return svc
}

// callRules calls tool on svc as u (a PAT with the api scope) with args
// and the client capabilities caps; a server error fails the test.
func callRules(tb testing.TB, svc *tools.Service, u *models.User, tool string, args map[string]any,
	caps map[string]json.RawMessage) *tools.Result {
	tb.Helper()
	raw, _ := json.Marshal(args)
	res, err := svc.Call(context.Background(), tools.CallRequest{Scope: models.Scope{Edition: models.EditionCE,
		Identity: &models.Identity{User: u, Method: models.MethodPAT, Scopes: []string{models.ScopeAPI}}},
		Name: tool, Arguments: raw, Capabilities: caps})
	if err != nil {
		tb.Fatalf("server error: %v", err)
	}
	return res
}

// wantDenied checks that res is the Deny of the rule for tool set on
// where.
func wantDenied(tb testing.TB, res *tools.Result, tool, where string) {
	tb.Helper()
	if !res.IsError || !res.Refused || res.ErrorClass != "rule_denied" {
		tb.Fatalf("result %+v, want a rule_denied refusal", res)
	}
	if want := `the "deny" rule for ` + tool + " on " + where + " forbids it"; !strings.Contains(res.Text, want) {
		tb.Errorf("text %q does not say %q", res.Text, want)
	}
}
