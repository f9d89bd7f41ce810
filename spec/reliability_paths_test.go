package spec

import (
	"strings"
	"testing"
)

// A long path of multi-byte characters (issue #21, item 7): file_path's
// maxLength counts characters, the repository's limit bytes; 4,096 × "é"
// (8,192 bytes) was refused as a "path traversal". It is refused as too
// long, and 2,048 × "é" (4,096 bytes) is a path like any other.
func TestReliability_longMultibytePath(t *testing.T) {
	h := startServer(t)
	ce := h.groups()[0]
	read := func(path string) (bool, string) {
		res := toolsResult(t, ce, "legacy", h.toolsCall(t, ce, "legacy", "alice", "get_repository_file",
			map[string]any{"project_id": "gitlab-org/gitlab-mcp", "file_path": path, "ref": "main"}))
		return res["isError"] == true, toolsText(t, res)
	}
	isErr, text := read(strings.Repeat("é", 4096))
	if !isErr || !strings.HasPrefix(text, "Validation error: file_path is too long: 8192 bytes") {
		t.Errorf("4096 × é: %q, want a validation error saying it is too long", text)
	}
	isErr, text = read(strings.Repeat("é", 2048))
	if !isErr || strings.Contains(text, "Validation error") {
		t.Errorf("2048 × é: %q, want the not-found answer of a file that is not there", text)
	}
}
