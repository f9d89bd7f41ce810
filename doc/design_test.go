// Package doc_test checks the repository's own documentation rules.
package doc_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// outsideDesign names the design notes the team once kept beside the
// repository. Built from parts so that this file does not match itself.
var outsideDesign = []byte("DESIGN" + ".md")

// Ensure no file of the repository points at the design notes outside it:
// the design lives in doc/ (doc/architecture.md says which page holds
// what), and a comment or page sends its reader there, or says it itself.
func TestDesign_inTheRepository(t *testing.T) {
	root := ".."
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod above doc/: %v", err)
	}
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == ".git" || name == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		for i, line := range bytes.Split(b, []byte("\n")) {
			if bytes.Contains(line, outsideDesign) {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s:%d points at %s, which is not in the repository; point at the doc/ page that says it, or say it here: %s",
					filepath.ToSlash(rel), i+1, outsideDesign, bytes.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d files: not run from doc/?", files)
	}
}
