package gitcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]Version{
		"git version 2.39.5\n":           {2, 39, 5},
		"git version 2.45.1.windows.1":   {2, 45, 1},
		"git version 3.0":                {3, 0, 0},
		"git version 2.39.5 (Apple Git)": {2, 39, 5},
	} {
		got, err := ParseVersion(in)
		if err != nil || got != want {
			t.Errorf("ParseVersion(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseVersion("hub version 2.14"); err == nil {
		t.Error("ParseVersion accepted a non-git version line")
	}
	if !(Version{2, 38, 9}).Less(MinVersion) || MinVersion.Less(Version{2, 38, 9}) || MinVersion.Less(MinVersion) {
		t.Error("Version.Less orders wrongly")
	}
}

// fakeGit writes an executable that prints out as `git version` would.
func fakeGit(t *testing.T, out string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "git")
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho '"+out+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestNew_refusesOldOrMissingGit(t *testing.T) {
	_, err := New(Options{Path: fakeGit(t, "git version 2.30.2")})
	if err == nil || !strings.HasPrefix(err.Error(), "glmcp needs git ≥ 2.39.0 on PATH: ") || !strings.Contains(err.Error(), "is git 2.30.2") {
		t.Errorf("old git: err = %v", err)
	}
	_, err = New(Options{Path: filepath.Join(t.TempDir(), "no-such-git")})
	if err == nil || !strings.HasPrefix(err.Error(), "glmcp needs git ≥ 2.39.0 on PATH: ") {
		t.Errorf("missing git: err = %v", err)
	}
	t.Setenv("PATH", t.TempDir())
	_, err = New(Options{})
	if err == nil || !strings.Contains(err.Error(), "executable file not found") {
		t.Errorf("no git on PATH: err = %v", err)
	}
	r := newRunner(t, Options{Path: fakeGit(t, "git version 2.39.0")})
	if r.Version() != MinVersion {
		t.Errorf("Version = %v", r.Version())
	}
}
