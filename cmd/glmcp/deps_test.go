package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestDeps_noConformanceFixtures keeps the conformance suite's fixtures
// out of the product: glmcp links no package named conformance (the
// fixture tools, resources and prompts, and app/conformance, which
// gathers them); only cmd/glmcp-conformance does.
func TestDeps_noConformanceFixtures(t *testing.T) {
	const module = "gitlab.com/glmcp/glmcp/"
	deps := goListDeps(t, module+"cmd/glmcp")
	if !slices.Contains(deps, module+"cmd/glmcp/cli") {
		t.Fatalf("go list -deps found no %scmd/glmcp/cli: %v", module, deps)
	}
	for _, p := range deps {
		if strings.HasPrefix(p, module) && slices.Contains(strings.Split(p, "/"), "conformance") {
			t.Errorf("glmcp links %s: the conformance fixtures belong to cmd/glmcp-conformance only", p)
		}
	}
	// The rule has teeth: the conformance binary does link them.
	conf := goListDeps(t, module+"cmd/glmcp-conformance")
	for _, p := range []string{"app/conformance", "services/tools/conformance", "services/resources/conformance"} {
		if !slices.Contains(conf, module+p) {
			t.Errorf("glmcp-conformance does not link %s%s", module, p)
		}
	}
}

// goListDeps returns the import paths pkg depends on, itself included.
func goListDeps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	if err != nil {
		msg := err.Error()
		if ee, ok := err.(*exec.ExitError); ok {
			msg += ": " + string(ee.Stderr)
		}
		t.Fatalf("go list -deps %s: %s", pkg, msg)
	}
	return strings.Fields(string(out))
}
