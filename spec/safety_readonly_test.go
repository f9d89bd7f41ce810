package spec

import (
	"bytes"
	"net/http"
	"slices"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/app"
)

// Read-only mode (doc/security.md, "Read-only"): GLMCP_READ_ONLY=true for
// the instance, or X-Gitlab-Mcp-Read-Only: true per client, an upper
// bound. Write tools are neither listed nor callable (GitLab's unknown-tool
// answer); prompts and resources are unchanged.

const hdrReadOnly = "X-Gitlab-Mcp-Read-Only"

func withReadOnly() option { return func(c *app.Config) { c.ReadOnly = true } }

// safetyListed returns the tools of the default listing as name →
// readOnlyHint, walking every page.
func safetyListed(t testing.TB, h *harness, g group, era string, hdr http.Header) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	cursor := ""
	for {
		p := h.catalogList(t, g, era, "alice", hdr, cursor)
		for _, tool := range toolsArray(t, p.Raw.result(t)["tools"]) {
			m := tool.(map[string]any)
			out[m["name"].(string)] = toolsDig(m, "annotations", "readOnlyHint") == true
		}
		if p.NextCursor == "" {
			return out
		}
		cursor = p.NextCursor
	}
}

// TestSafety_readOnlyHeader: the header hides every write tool of the
// listing and keeps every read tool; a write tool called by name answers
// exactly what a tool that does not exist answers, and writes nothing;
// a read tool still works; header false, or absent, changes nothing.
func TestSafety_readOnlyHeader(t *testing.T) {
	h := startServer(t)
	g := h.groups()[0]
	on := catalogHeaders(hdrReadOnly, "true")
	for _, era := range eras {
		all := safetyListed(t, h, g, era, nil)
		ro := safetyListed(t, h, g, era, on)
		var writes int
		for name, readOnly := range all {
			_, listed := ro[name]
			if readOnly != listed {
				t.Errorf("%s: %s (readOnlyHint %v) listed in read-only mode: %v", era, name, readOnly, listed)
			}
			if !readOnly {
				writes++
			}
		}
		if writes == 0 || len(ro) == 0 {
			t.Fatalf("%s: %d write tools in the full listing, %d tools read-only: the test proves nothing", era, writes, len(ro))
		}
		if off := safetyListed(t, h, g, era, catalogHeaders(hdrReadOnly, "false")); len(off) != len(all) {
			t.Errorf("%s: header false lists %d tools, want all %d", era, len(off), len(all))
		}
	}

	before := toolsState(t, h)
	args := map[string]any{"project_id": "gitlab-org/gitlab-mcp", "noteable_type": "issue", "noteable_iid": 1, "body": "read-only?"}
	for _, era := range eras {
		missing := h.send(t, call{Era: era, User: "alice", Method: "tools/call", Header: on,
			Params: map[string]any{"name": "no_such_tool", "arguments": args}})
		r := h.send(t, call{Era: era, User: "alice", Method: "tools/call", Header: on,
			Params: map[string]any{"name": "save_note", "arguments": args}})
		msg, _ := r.expectError(t, rpcStatus(era, http.StatusBadRequest), -32602)
		if want := "Tool 'save_note' not found."; msg != want {
			t.Errorf("%s: save_note in read-only mode: %q, want %q", era, msg, want)
		}
		missing.expectError(t, rpcStatus(era, http.StatusBadRequest), -32602)
		if !bytes.Equal(bytes.ReplaceAll(r.Body, []byte("save_note"), []byte("no_such_tool")), missing.Body) {
			t.Errorf("%s: a write tool in read-only mode answers differently from an unknown tool:\n%s\n%s", era, r.Body, missing.Body)
		}
		// A read tool still runs.
		res := h.send(t, call{Era: era, User: "alice", Method: "tools/call", Header: on,
			Params: map[string]any{"name": "get_project", "arguments": map[string]any{"project_id": "gitlab-org/gitlab-mcp"}}})
		toolsSucceeded(t, toolsResult(t, g, era, res))
	}
	toolsExpectState(t, h, before)
}

// TestSafety_readOnlyInstance: GLMCP_READ_ONLY=true is an upper bound: a
// client's header false does not turn it off. Prompts and resources list
// as they do without read-only mode.
func TestSafety_readOnlyInstance(t *testing.T) {
	plain := startServer(t)
	h := startServer(t, withReadOnly())
	g := h.groups()[0]
	for _, era := range eras {
		for _, hdr := range []http.Header{nil, catalogHeaders(hdrReadOnly, "false"), catalogHeaders(hdrReadOnly, "0")} {
			for name, readOnly := range safetyListed(t, h, g, era, hdr) {
				if !readOnly {
					t.Errorf("%s %v: write tool %s listed on a read-only instance", era, hdr, name)
				}
			}
			r := h.send(t, call{Era: era, User: "alice", Method: "tools/call", Header: hdr,
				Params: map[string]any{"name": "add_branch", "arguments": map[string]any{"project_id": "gitlab-org/gitlab-mcp", "branch": "ro", "ref": "main"}}})
			if msg, _ := r.expectError(t, rpcStatus(era, http.StatusBadRequest), -32602); msg != "Tool 'add_branch' not found." {
				t.Errorf("%s %v: add_branch: %q", era, hdr, msg)
			}
		}
		for _, method := range []string{"prompts/list", "resources/list", "resources/templates/list"} {
			a := plain.send(t, call{Era: era, User: "alice", Method: method})
			b := h.send(t, call{Era: era, User: "alice", Method: method})
			a.expectStatus(t, http.StatusOK)
			b.expectStatus(t, http.StatusOK)
			an, bn := safetyNames(t, plain.URL, a.result(t)), safetyNames(t, h.URL, b.result(t))
			if !slices.Equal(an, bn) {
				t.Errorf("%s %s: read-only lists %v, without %v", era, method, bn, an)
			}
		}
	}
}

// safetyNames lists the names (and URIs, base URL cut) of a prompts or
// resources listing.
func safetyNames(t testing.TB, base string, res map[string]any) []string {
	t.Helper()
	var out []string
	for _, k := range []string{"prompts", "resources", "resourceTemplates"} {
		items, ok := res[k].([]any)
		if !ok {
			continue
		}
		for _, it := range items {
			m := it.(map[string]any)
			for _, f := range []string{"name", "uri", "uriTemplate"} {
				if s, ok := m[f].(string); ok {
					out = append(out, f+"="+strings.TrimPrefix(s, base))
				}
			}
		}
	}
	return out
}
