package mcp

import (
	"context"
	"slices"
	"testing"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// noTools is a ToolService the table tests never call.
type noTools struct{ ToolService }

func (noTools) List(context.Context, tools.ListQuery) (tools.Page, error) { return tools.Page{}, nil }

func newTableServer(t *testing.T, logging bool) *Server {
	t.Helper()
	s, err := New(Config{Edition: models.EditionCE, Logging: logging}, Deps{Tools: noTools{}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Ensure that the method table decides what each era serves: the
// lifecycle methods of one era are missing from the other, a method whose
// capability the server does not declare does not exist, and
// notifications are never served.
func TestMethodTable_served(t *testing.T) {
	for _, tc := range []struct {
		method         string
		logging        bool
		legacy, modern bool
	}{
		{MethodInitialize, false, true, false},
		{MethodPing, false, true, false},
		{MethodDiscover, false, false, true},
		{MethodListen, false, false, true},
		{MethodListTools, false, true, true},
		{MethodCallTool, false, true, true},
		{MethodListPrompts, false, true, true},
		{MethodGetPrompt, false, true, true},
		{MethodListResources, false, true, true},
		{MethodListTemplates, false, true, true},
		{MethodReadResource, false, true, true},
		{MethodComplete, false, true, true},
		{MethodSubscribeResource, false, true, false},
		{MethodUnsubscribe, false, true, false},
		{MethodSetLogLevel, false, false, false},
		{MethodSetLogLevel, true, true, false},
		{"notifications/initialized", false, false, false},
		{"no/such", false, false, false},
	} {
		s := newTableServer(t, tc.logging)
		if got := s.served[jsonrpc.EraLegacy][tc.method] != nil; got != tc.legacy {
			t.Errorf("%s (logging %v): served in Legacy = %v, want %v", tc.method, tc.logging, got, tc.legacy)
		}
		if got := s.served[jsonrpc.EraModern][tc.method] != nil; got != tc.modern {
			t.Errorf("%s (logging %v): served in Modern = %v, want %v", tc.method, tc.logging, got, tc.modern)
		}
	}
}

// Ensure that every row is whole, that each capability a row names is one
// the server can declare, and that the names the decoder and the metrics
// take are the table's.
func TestMethodTable_rows(t *testing.T) {
	caps := newTableServer(t, true).capabilities(false, false)
	for name, m := range methods {
		if (m.newParams == nil) != (m.serve == nil) || (m.serve == nil) != (m.flags&notification != 0) {
			t.Errorf("%s: newParams, serve and the notification flag disagree", name)
		}
		if m.eras == 0 {
			t.Errorf("%s: served in no era", name)
		}
		if _, ok := caps[m.capability]; m.capability != "" && !ok {
			t.Errorf("%s: capability %q is never declared", name, m.capability)
		}
		if m.mirror != "" {
			if _, ok := m.newParams().(named); !ok {
				t.Errorf("%s: mirrors %q but its params do not say what", name, m.mirror)
			}
		}
	}
	names := MethodNames()
	if len(names) != len(methods) || !slices.IsSorted(names) || !slices.Contains(names, "notifications/cancelled") {
		t.Errorf("MethodNames() = %v", names)
	}
}
