package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/audit"
	"gitlab.com/glmcp/glmcp/services/safety/sanitize"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// baseChain is the tools/call chain without Options.Outer and Wrappers.
var baseChain = []string{"tool", "transport", "capabilities", "state", "arguments", "secrets", "target", "rules", "input", "plumbing", "handler"}

// TestCallChain_shape: the tools/call chain is the named links in their
// order, Options.Outer first and Options.Wrappers right after the rules;
// doc/architecture.md lists the same links in the same order.
func TestCallChain_shape(t *testing.T) {
	if got := newSvc(t, 100).Chain(); !slices.Equal(got, baseChain) {
		t.Errorf("chain = %v\nwant %v", got, baseChain)
	}
	pass := func(ctx context.Context, inv *tools.Invocation) (*tools.Result, error) { return inv.Next(ctx) }
	svc, err := tools.NewService(&memStore{}, svcDefs(), tools.Options{
		Outer:    []tools.Link{{Name: "audit", Run: pass}},
		Wrappers: []tools.Link{{Name: "sanitise", Run: pass}, {Name: "scan", Run: pass}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"audit", "tool", "transport", "capabilities", "state", "arguments", "secrets", "target", "rules", "sanitise", "scan", "input", "plumbing", "handler"}
	if got := svc.Chain(); !slices.Equal(got, want) {
		t.Errorf("chain with wrappers = %v\nwant %v", got, want)
	}

	// The server's chain (app/helpers.go newToolService): the audit link
	// outermost, the sanitiser around the handler; that is the list
	// doc/architecture.md gives.
	served, err := tools.NewService(&memStore{}, svcDefs(), tools.Options{
		Outer: []tools.Link{audit.Link(func(models.AuditEvent) {})}, Wrappers: []tools.Link{sanitize.Link()}})
	if err != nil {
		t.Fatal(err)
	}
	servedChain := served.Chain()
	if want := []string{"audit", "tool", "transport", "capabilities", "state", "arguments", "secrets", "target", "rules", "sanitize", "input", "plumbing", "handler"}; !slices.Equal(servedChain, want) {
		t.Errorf("served chain = %v\nwant %v", servedChain, want)
	}

	doc, err := os.ReadFile("../../doc/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n**The tools/call chain**")
	section, _, _ = strings.Cut(section, "\n\n**")
	var listed []string
	for _, m := range regexp.MustCompile("(?m)^\\d+\\. `([a-z]+)`").FindAllStringSubmatch(section, -1) {
		listed = append(listed, m[1])
	}
	if !ok || !slices.Equal(listed, servedChain) {
		t.Errorf("doc/architecture.md's \"The tools/call chain\" lists %v, want %v", listed, servedChain)
	}
}

// Ensure the wrappers sit where the chain says: an Outer link sees every
// call, a refusal included, and how it ended; a Wrappers link sees the
// validated arguments before the handler and its result after, and can
// end the call without it.
func TestCallChain_wrappers(t *testing.T) {
	var seen []string
	outer := func(ctx context.Context, inv *tools.Invocation) (*tools.Result, error) {
		res, err := inv.Next(ctx)
		seen = append(seen, "outer "+inv.Request.Name+": "+outcome(res, err))
		return res, err
	}
	wrap := func(ctx context.Context, inv *tools.Invocation) (*tools.Result, error) {
		if strings.Contains(string(inv.Call.Arguments), "secret") {
			return &tools.Result{IsError: true, Text: "refused by the wrapper"}, nil
		}
		res, err := inv.Next(ctx)
		if res != nil {
			res.Text = strings.ToUpper(res.Text)
		}
		return res, err
	}
	svc, err := tools.NewService(&memStore{}, svcDefs(), tools.Options{
		Outer: []tools.Link{{Name: "audit", Run: outer}}, Wrappers: []tools.Link{{Name: "sanitise", Run: wrap}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	call := func(name, args string) (*tools.Result, error) {
		return svc.Call(context.Background(), tools.CallRequest{Scope: scope(models.EditionCE, false, models.Headers{}),
			Name: name, Arguments: json.RawMessage(args)})
	}
	if res, err := call("reader", `{"text":"hi"}`); err != nil || res.Text != "ECHO:HI" {
		t.Errorf("reader = %+v, %v; want the handler's text through the wrapper", res, err)
	}
	if res, err := call("reader", `{"text":"secret"}`); err != nil || res.Text != "refused by the wrapper" {
		t.Errorf("reader with a secret = %+v, %v; want the wrapper's refusal", res, err)
	}
	if res, err := call("reader", `{"text":1}`); err != nil || !strings.HasPrefix(res.Text, "Validation error: ") {
		t.Errorf("invalid arguments = %+v, %v; want the validation error, before the wrapper", res, err)
	}
	var unknown *tools.UnknownToolError
	if _, err := call("no_such_tool", `{}`); !errors.As(err, &unknown) {
		t.Errorf("unknown tool: %v", err)
	}
	want := []string{"outer reader: ECHO:HI", "outer reader: refused by the wrapper",
		"outer reader: Validation error: /text: got number, want string", "outer no_such_tool: error"}
	if !slices.Equal(seen, want) {
		t.Errorf("the outer link saw\n%q\nwant\n%q", seen, want)
	}
}

func outcome(res *tools.Result, err error) string {
	if err != nil {
		return "error"
	}
	return res.Text
}
