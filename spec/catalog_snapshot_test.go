package spec

import (
	"encoding/json"
	"os"
	"slices"
	"sync"
	"testing"
)

// The catalog snapshot services/tools/gitlab/testdata/catalog.json,
// written by `go test ./services/tools/gitlab -run TestCatalog -update`
// from the tools' Definitions and reviewed as a diff: GitLab 19.5's catalog
// as glmcp serves it. The catalog specs compare what both groups list
// against it, so no spec keeps a table of its own.

const catalogSnapshotFile = "../services/tools/gitlab/testdata/catalog.json"

// snapshotTool is one tool of the snapshot.
type snapshotTool struct {
	Name    string `json:"name"`
	Title   string `json:"title"`
	Toolset string `json:"toolset"`
	Edition string `json:"edition"`
	// Status is listed, unlisted (GitLab's unlisted: true) or
	// unavailable (never listed, a call answers isError).
	Status      string   `json:"status"`
	Aliases     []string `json:"aliases"`
	Annotations struct {
		ReadOnlyHint    bool  `json:"readOnlyHint"`
		DestructiveHint *bool `json:"destructiveHint"`
	} `json:"annotations"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
}

func (s snapshotTool) ee() bool { return s.Edition == "ee" }

func (s snapshotTool) destructive() bool {
	return s.Annotations.DestructiveHint != nil && *s.Annotations.DestructiveHint
}

var (
	snapshotOnce  sync.Once
	snapshotTools []snapshotTool
	snapshotErr   error
)

// catalogSnapshot returns the snapshot's tools in name order.
func catalogSnapshot() []snapshotTool {
	snapshotOnce.Do(func() {
		var b []byte
		if b, snapshotErr = os.ReadFile(catalogSnapshotFile); snapshotErr == nil {
			snapshotErr = json.Unmarshal(b, &snapshotTools)
		}
	})
	if snapshotErr != nil {
		panic("catalog snapshot: " + snapshotErr.Error())
	}
	return snapshotTools
}

// snapshotNames returns, in byte order, the names of the snapshot's tools
// keep admits.
func snapshotNames(keep func(snapshotTool) bool) []string {
	var out []string
	for _, s := range catalogSnapshot() {
		if keep(s) {
			out = append(out, s.Name)
		}
	}
	slices.Sort(out)
	return out
}

// snapshotToolset returns the listed CE tools of toolset ts (the EE ones
// too with ee).
func snapshotToolset(ts string, ee bool) []string {
	return snapshotNames(func(s snapshotTool) bool {
		return s.Status == "listed" && s.Toolset == ts && (ee || !s.ee())
	})
}

// Ensure the snapshot reads and names each tool once.
func TestCatalog_snapshotReads(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range catalogSnapshot() {
		if seen[s.Name] || s.Name == "" || s.Toolset == "" || len(s.InputSchema) == 0 {
			t.Errorf("snapshot tool %+v: a duplicate, or without name, toolset or input schema", s.Name)
		}
		seen[s.Name] = true
	}
	if len(seen) < 50 {
		t.Errorf("the snapshot has %d tools", len(seen))
	}
}
