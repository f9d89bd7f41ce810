package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// appendToEntry rewrites the .tar.gz at file with text added to the
// entry name.
func appendToEntry(t *testing.T, file, name, text string) string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	tr := tar.NewReader(zr)
	found := false
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if h.Name == name {
			found = true
			body = append(body, text...)
			h.Size = int64(len(body))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(body); err != nil {
			t.Fatal(err)
		}
	}
	if !found {
		t.Fatalf("no entry %s in %s", name, file)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "edited.tar.gz")
	if err := os.WriteFile(out, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return out
}

// Ensure the records an import leaves out are counted and shown in the
// summary, and listed afterwards by `projects import-failures`, one a
// line with the relation and line; a clean import has none.
func TestProjects_importFailures(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		b.mustRun(t, "seed", "--demo")
		file := filepath.Join(t.TempDir(), "mcp.tar.gz")
		b.mustRun(t, "projects", "export", "--path", "gitlab-org/gitlab-mcp", "--file", file)
		_, errOut, err := b.run(t, "projects", "import", "--path", "copies/clean", "--file", file)
		if err != nil {
			t.Fatalf("import: %v\n%s", err, errOut)
		}
		if !strings.Contains(errOut, "  failed: nothing\n") {
			t.Errorf("clean import stderr = %q, want failed: nothing", errOut)
		}
		out, errOut := b.mustRun(t, "projects", "import-failures", "--path", "copies/clean"), ""
		if out != "" {
			t.Errorf("import-failures of a clean import = %q, want nothing", out)
		}

		bad := appendToEntry(t, file, "tree/project/issues.ndjson",
			`{"iid":9001,"title":"","state":"opened","author_id":1}`+"\n"+`{"iid":9002,"title":"kept","state":"reopened","author_id":1}`+"\n")
		_, errOut, err = b.run(t, "projects", "import", "--path", "copies/failed", "--file", bad)
		if err != nil {
			t.Fatalf("import: %v\n%s", err, errOut)
		}
		for _, want := range []string{"  failed: issues 2\n", "issue #9001 has no title\n", `issue #9002: state "reopened" is not opened or closed`} {
			if !strings.Contains(errOut, want) {
				t.Errorf("import stderr = %q, want %q", errOut, want)
			}
		}
		out = b.mustRun(t, "projects", "import-failures", "--path", "copies/failed")
		got := lines(out)
		if len(got) != 2 || !strings.HasPrefix(got[0], "issues line ") || !strings.HasSuffix(got[0], ": issue #9001 has no title") ||
			!strings.HasSuffix(got[1], `: issue #9002: state "reopened" is not opened or closed`) {
			t.Errorf("import-failures = %q", out)
		}
		b.wantErr(t, []string{`no project "copies/none"`}, "projects", "import-failures", "--path", "copies/none")
	})
}
