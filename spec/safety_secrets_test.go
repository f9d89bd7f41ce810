package spec

import (
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/app"
)

// Secret push protection (doc/security.md, "Secret push protection"): a
// write whose arguments hold a secret is refused with a tool error naming
// the rule and where, never the secret, and nothing is written: neither
// the store nor the repository changes.

func withSecretDetection(on bool) option { return func(c *app.Config) { c.SecretDetection = on } }

// safetyRepoDigest is everything git holds for the project at path: every
// ref and every object.
func safetyRepoDigest(t *testing.T, h *harness, path string) string {
	t.Helper()
	bare := h.Env.Repositories.Path(toolsProject(t, h, path).ID)
	return gitRun(t, "", bare, "", "for-each-ref", "--format=%(refname) %(objectname)") +
		gitRun(t, "", bare, "", "cat-file", "--batch-all-objects", "--batch-check")
}

const safetyKey = "-----BEGIN " + "OPENSSH PRIVATE KEY-----\n" +
	"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n" +
	"QyNTUxOQAAACDh9a7Jx0wE2hQ1zV3pXkq9nB5cR8tL4mY6sD0fG2jK1wAAAJiY8uJ6mPLi\n" +
	"-----END " + "OPENSSH PRIVATE KEY-----\n"

func TestSafety_secretPushProtection(t *testing.T) {
	h := startServer(t)
	g := h.groups()[0]
	const project = "gitlab-org/gitlab-mcp"
	token := h.Tokens["alice"] // a real token of this instance, in glmcp's (GitLab's) routable format
	if !strings.HasPrefix(token, "glpat-") {
		t.Fatalf("demo token %q is not a glpat- token", token)
	}
	commit := func(path, content string) map[string]any {
		return map[string]any{"project_id": project, "branch": "main", "commit_message": "Add " + path,
			"actions": []any{
				map[string]any{"action": "create", "file_path": "docs/ok.md", "content": "# fine\n"},
				map[string]any{"action": "create", "file_path": path, "content": content},
			}}
	}
	tests := []struct {
		name, tool string
		args       map[string]any
		want       []string // fragments of the refusal
	}{
		{"a glpat- token in a committed file", "add_commit", commit("deploy/.env", "HOST=gitlab.example.com\nTOKEN="+token+"\n"),
			[]string{"gitlab-", "actions[1].content (file deploy/.env, line 2)"}},
		{"a private key in a committed file", "add_commit", commit("id_ed25519", safetyKey),
			[]string{"private-key in actions[1].content (file id_ed25519, line 1)"}},
		{"a token in a comment", "save_note", map[string]any{"project_id": project, "work_item_iid": 1, "body": "Use " + token + " to try it"},
			[]string{"gitlab-", " in body"}},
		{"a token in a work item description", "save_work_item", map[string]any{"project_id": project, "work_item_iid": 1, "description": "token: " + token},
			[]string{"gitlab-", " in description"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := safetyRepoDigest(t, h, project)
			text := h.toolsFail(t, g, "root", tt.tool, tt.args) // both eras; the store unchanged
			if !strings.HasPrefix(text, "Secret push protection: "+tt.tool+" was refused and nothing was written") {
				t.Errorf("refusal = %q", text)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("refusal %q does not name %q", text, w)
				}
			}
			if strings.Contains(text, token) || strings.Contains(text, token[6:20]) || strings.Contains(text, "b3BlbnNz") {
				t.Errorf("the refusal echoes the secret: %q", text)
			}
			if after := safetyRepoDigest(t, h, project); after != repo {
				t.Errorf("the repository changed:\nbefore %s\nafter  %s", repo, after)
			}
		})
	}

	// Clean writes go through.
	h.toolsWrite(t, g, "legacy", "root", "add_commit", commit("docs/howto.md", "Set TOKEN from a CI/CD variable.\n"))

	// GLMCP_SECRET_DETECTION=false turns it off.
	off := startServer(t, withSecretDetection(false))
	offG := off.groups()[0]
	off.toolsWrite(t, offG, "legacy", "root", "save_note", map[string]any{"project_id": project, "work_item_iid": 1, "body": "Use " + token})
}
