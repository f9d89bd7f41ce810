package importexport_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/importexport"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// entry is one member of a tar archive a test writes.
type entry struct {
	name, body string
	typ        byte
	link       string
}

// readEntries reads a .tar.gz written by Export.
func readEntries(t *testing.T, file string) []entry {
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
	tr := tar.NewReader(zr)
	var out []entry
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, entry{name: h.Name, body: string(b), typ: h.Typeflag, link: h.Linkname})
	}
}

// writeEntries writes entries as a .tar.gz file of the test's.
func writeEntries(t *testing.T, entries []entry) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		h := &tar.Header{Name: e.name, Mode: 0o644, Typeflag: typ, Linkname: e.link}
		if typ == tar.TypeReg {
			h.Size = int64(len(e.body))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if typ == tar.TypeReg {
			if _, err := tw.Write([]byte(e.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, buf.Bytes())
}

func writeFile(t *testing.T, b []byte) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "archive.tar.gz")
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// edit returns entries with the named entry's body changed by fn (or
// dropped when fn returns "\x00").
func edit(entries []entry, name string, fn func(string) string) []entry {
	var out []entry
	for _, e := range entries {
		if e.name == name {
			e.body = fn(e.body)
			if e.body == "\x00" {
				continue
			}
		}
		out = append(out, e)
	}
	return out
}

func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// Ensure every bad archive is refused with an error that names the entry,
// the line and the cause, and that the store and the repositories
// directory are exactly as they were afterwards.
func TestImport_badArchives(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		x := seed(t, s)
		good := readEntries(t, x.export(t, x.p))
		issues := "tree/project/issues.ndjson"
		firstIssue := func(body string) string { l, _, _ := strings.Cut(body, "\n"); return l }
		zeros := strings.Repeat("\x00", 4<<20)
		bomb := []entry{{name: "VERSION", body: "0.2.4\n"}, {name: "tree/project.json", body: "{}"}, {name: "tree/project/big.ndjson", body: zeros}}

		cases := []struct {
			name  string
			file  func() string
			lim   importexport.Limits
			wants []string
		}{
			{"not gzip", func() string { return writeFile(t, []byte("PK\x03\x04 a zip file, not a tar.gz")) }, zeroLimits,
				[]string{"archive: not a gzip file"}},
			{"not tar", func() string { return writeFile(t, gz(t, []byte("just text, no tar headers here at all"))) }, zeroLimits,
				[]string{"archive: not a tar archive inside the gzip"}},
			{"dot-dot entry", func() string { return writeEntries(t, append(good, entry{name: "tree/../../evil", body: "x"})) }, zeroLimits,
				[]string{"archive entry tree/../../evil:", `".."`}},
			{"absolute entry", func() string { return writeEntries(t, append(good, entry{name: "/etc/evil", body: "x"})) }, zeroLimits,
				[]string{"archive entry /etc/evil: an absolute path"}},
			{"symlink out", func() string {
				return writeEntries(t, append(good, entry{name: "uploads/link", typ: tar.TypeSymlink, link: "/etc/passwd"}))
			}, zeroLimits, []string{"archive entry uploads/link: a link", "/etc/passwd"}},
			{"hard link", func() string {
				return writeEntries(t, append(good, entry{name: "uploads/hard", typ: tar.TypeLink, link: "../../VERSION"}))
			}, zeroLimits, []string{"archive entry uploads/hard: a link"}},
			{"missing version", func() string { return writeEntries(t, edit(good, "VERSION", func(string) string { return "\x00" })) }, zeroLimits,
				[]string{"archive entry VERSION: missing"}},
			{"unknown version", func() string { return writeEntries(t, edit(good, "VERSION", func(string) string { return "0.2.3\n" })) }, zeroLimits,
				[]string{"archive entry VERSION line 1:", `unknown export format version "0.2.3"`, "0.2.4"}},
			{"relation line not JSON", func() string {
				return writeEntries(t, edit(good, issues, func(b string) string { return firstIssue(b) + "\n{\"iid\": 7, \"title\": oops}\n" }))
			}, zeroLimits, []string{"archive entry tree/project/issues.ndjson line 2: not JSON"}},
			{"bundle not a bundle", func() string {
				return writeEntries(t, edit(good, "project.bundle", func(string) string { return "this is not a git bundle\n" }))
			}, zeroLimits, []string{"archive entry project.bundle: not a git bundle"}},
			{"wiki bundle not a bundle", func() string {
				return writeEntries(t, edit(good, "project.wiki.bundle", func(string) string { return "# v2 git bundle\nnonsense\n" }))
			}, zeroLimits, []string{"archive entry project.wiki.bundle: not a git bundle"}},
			{"decompression ratio", func() string { return writeEntries(t, bomb) },
				importexport.Limits{MaxRatio: 50, RatioFloor: 1 << 20},
				[]string{"archive entry tree/project/big.ndjson:", "more than 50 times its compressed size"}},
			{"decompressed size", func() string { return writeEntries(t, bomb) },
				importexport.Limits{MaxSize: 1 << 20},
				[]string{"archive entry tree/project/big.ndjson:", "unpacks to more than 1048576 bytes"}},
			{"file inside a file", func() string {
				return writeEntries(t, append(append([]entry{}, good...), entry{name: "VERSION/inner", body: "x"}))
			}, zeroLimits, []string{"archive entry VERSION/inner: inside what the archive has as a file"}},
			{"entry twice", func() string { return writeEntries(t, append(good, entry{name: "./VERSION", body: "0.2.4\n"})) }, zeroLimits,
				[]string{"archive entry ./VERSION: the archive has this entry twice"}},
		}
		before := storetest.State(t, s, stateTables...)
		dir := listing(t, x.repos.Root())
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				file := c.file()
				_, err := x.importFile(t, file, "copies/bad", c.lim, nil)
				if err == nil {
					t.Fatal("import succeeded, want a refusal")
				}
				var ae *importexport.Error
				if !errors.As(err, &ae) || !errors.Is(err, models.ErrInvalidInput) {
					t.Errorf("error %v (%T) is not an *importexport.Error / ErrInvalidInput", err, err)
				}
				for _, w := range c.wants {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error = %q, want it to contain %q", err, w)
					}
				}
				if after := storetest.State(t, s, stateTables...); !equalMaps(before, after) {
					t.Errorf("store changed: %v, was %v", after, before)
				}
				if got := listing(t, x.repos.Root()); got != dir {
					t.Errorf("repositories directory changed:\n%s", diffLines(dir, got))
				}
			})
		}
	})
}

// Ensure an import that fails inside its transaction (a row the database
// refuses, after the project, its repository and placeholder users were
// written) leaves nothing: no project, no user, no repository, no import
// failure.
func TestImport_failureLeavesNothing(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		x := seed(t, s)
		good := readEntries(t, x.export(t, x.p))
		// A release the database refuses (a trigger of the test's), after
		// a record the checks leave out (so an import failure would be
		// written too).
		refuseRelease(t, s, "refused-by-db")
		bad := edit(good, "tree/project/releases.ndjson", func(b string) string {
			return b + `{"tag":"refused-by-db","name":"x","created_at":"2026-01-01T00:00:00Z"}` + "\n"
		})
		bad = edit(bad, "tree/project/milestones.ndjson", func(b string) string {
			return b + `{"id":1,"iid":99,"title":"backwards","state":"active","start_date":"2026-12-31","due_date":"2026-01-01"}` + "\n"
		})
		// A member nobody knows: a placeholder user is made first.
		bad = edit(bad, "tree/project/project_members.ndjson", func(b string) string {
			return b + `{"access_level":30,"source_type":"Project","user_id":777,"user":{"id":777,"username":"stranger"}}` + "\n"
		})
		file := writeEntries(t, bad)
		tables := append(stateTables, "import_failures")
		before := storetest.State(t, s, tables...)
		dir := listing(t, x.repos.Root())
		_, err := x.importFile(t, file, "copies/failing", zeroLimits, nil)
		if err == nil {
			t.Fatal("import succeeded, want the database's refusal")
		}
		if !strings.Contains(err.Error(), "release refused-by-db") {
			t.Errorf("error = %v, want it to name the release", err)
		}
		if after := storetest.State(t, s, tables...); !equalMaps(before, after) {
			t.Errorf("store changed: %v, was %v", after, before)
		}
		if got := listing(t, x.repos.Root()); got != dir {
			t.Errorf("repositories directory changed:\n%s", diffLines(dir, got))
		}
		if _, err := s.Projects.FindProjectByPath(t.Context(), "copies/failing"); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("project after a failed import: %v, want not found", err)
		}
		// And an import into an existing path is refused before anything.
		_, err = x.importFile(t, x.export(t, x.p), demo_MCP, zeroLimits, nil)
		if !errors.Is(err, models.ErrConflict) || !strings.Contains(err.Error(), "already exists") {
			t.Errorf("import onto an existing project: %v, want a conflict", err)
		}
		if after := storetest.State(t, s, tables...); !equalMaps(before, after) {
			t.Errorf("store changed: %v, was %v", after, before)
		}
	})
}

// refuseRelease makes the database refuse a release of tag: a trigger,
// for the tests of a failure inside the import's transaction.
func refuseRelease(t *testing.T, s *store.Store, tag string) {
	t.Helper()
	stmts := []string{`CREATE TRIGGER test_refuse_release BEFORE INSERT ON releases
WHEN NEW.tag = '` + tag + `' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`}
	if s.Dialect() == "postgres" {
		stmts = []string{`CREATE FUNCTION test_refuse_release() RETURNS trigger AS $$
BEGIN IF NEW.tag = '` + tag + `' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
			`CREATE TRIGGER test_refuse_release BEFORE INSERT ON releases FOR EACH ROW EXECUTE FUNCTION test_refuse_release()`}
	}
	for _, q := range stmts {
		if err := s.DB().Exec(q).Error; err != nil {
			t.Fatal(err)
		}
	}
}

const demo_MCP = "gitlab-org/gitlab-mcp"

func equalMaps(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// Ensure an import interrupted at any point (its context cancelled while
// it unpacks, copies the repository, or writes) leaves nothing: each
// attempt either completes or leaves the store and the repositories as
// they were.
func TestImport_interrupted(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		x := seed(t, s)
		file := x.export(t, x.p)
		interrupted := 0
		for k, after := range []time.Duration{time.Millisecond, 20 * time.Millisecond, 80 * time.Millisecond,
			200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, 1500 * time.Millisecond} {
			before := storetest.State(t, s, stateTables...)
			dir := listing(t, x.repos.Root())
			ctx, cancel := context.WithTimeout(context.Background(), after)
			tmp := t.TempDir()
			a, err := importexport.Read(ctx, x.repos.Git(), file, tmp, zeroLimits)
			if err == nil {
				_, err = importexport.Import(ctx, x.s, x.repos, a, importexport.ImportOptions{GroupPath: "copies",
					ProjectPath: "cut-" + strconv.Itoa(k), CreateProject: createProject})
				a.Close()
			}
			cancel()
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("after %v: the archive's work directory is left: %v", after, left)
			}
			if err == nil {
				continue // finished in time
			}
			interrupted++
			var ae *importexport.Error
			if errors.As(err, &ae) {
				t.Errorf("interrupted after %v: reported as a bad archive: %v", after, err)
			}
			if after := storetest.State(t, s, stateTables...); !equalMaps(before, after) {
				t.Errorf("interrupted after %v (%v): the store changed", after, err)
			}
			if got := listing(t, x.repos.Root()); got != dir {
				t.Errorf("interrupted after %v (%v): repositories changed:\n%s", after, err, diffLines(dir, got))
			}
		}
		if interrupted == 0 {
			t.Error("no attempt was interrupted")
		}
	})
}
