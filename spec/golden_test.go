package spec

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"gitlab.com/glmcp/glmcp/app"
)

// Golden transcripts: the wire rules of both eras as request/response
// pairs in testdata/*.txtar. Each archive holds
//
//	-- options --   optional: "ee", "fixtures" (one per line)
//	-- request --   the HTTP request as sent: "VERB /path", headers, a
//	                blank line, the body; {{token alice}} is alice's demo
//	                token
//	-- response --  the answer, normalised: "HTTP <status>", the headers
//	                (except Date, Content-Length, X-Request-Id), a blank
//	                line, the body (JSON re-indented, SSE events one per
//	                data line; volatile values replaced, see normalise)
//
// and its comment says what the exchange shows. TestGolden replays every
// request against a fresh server, validates each JSON-RPC message of the
// answer against its revision's schema, and compares the normalised answer
// with the response section. To add a case, write an archive with its
// comment, options and request and run
//
//	go test ./spec -run TestGolden -update
//
// which (re)writes every response section; review the diff before
// committing it.

var update = flag.Bool("update", false, "rewrite the response sections of spec/testdata/*.txtar")

func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden transcripts in testdata (%v)", err)
	}
	archives := make([]*txtar.Archive, len(files))
	servers := map[string]*harness{} // by options section
	for i, file := range files {
		if archives[i], err = txtar.ParseFile(file); err != nil {
			t.Fatal(err)
		}
		opts := strings.Join(strings.Fields(section(archives[i], "options")), " ")
		if servers[opts] == nil {
			servers[opts] = startServer(t, goldenOptions(t, opts)...)
		}
	}
	for i, file := range files {
		ar := archives[i]
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			h := servers[strings.Join(strings.Fields(section(ar, "options")), " ")]
			c := goldenCall(t, h, section(ar, "request"))
			r := h.send(t, c)
			got := normalise(t, r)
			if *update {
				setSection(ar, "response", got)
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want := section(ar, "response"); got != want {
				t.Errorf("answer differs from %s (go test ./spec -run TestGolden -update rewrites it):\n--- got\n%s--- want\n%s", file, got, want)
			}
		})
	}
}

// goldenCall parses a request section into a call on h: nothing is
// defaulted, every header sent is the section's.
func goldenCall(t *testing.T, h *harness, req string) call {
	t.Helper()
	head, body, _ := strings.Cut(req, "\n\n")
	lines := strings.Split(head, "\n")
	verb, path, ok := strings.Cut(lines[0], " ")
	if !ok || !strings.HasPrefix(path, "/") {
		t.Fatalf("request line %q, want VERB /path", lines[0])
	}
	c := call{Verb: verb, URL: h.URL + path, Header: http.Header{}, Drop: []string{"Accept", "Content-Type"},
		Body: strings.TrimSuffix(body, "\n")}
	for _, l := range lines[1:] {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			t.Fatalf("header line %q", l)
		}
		v = tokenRef.ReplaceAllStringFunc(strings.TrimSpace(v), func(m string) string {
			user := tokenRef.FindStringSubmatch(m)[1]
			if h.Tokens[user] == "" {
				t.Fatalf("no demo user %q", user)
			}
			return h.Tokens[user]
		})
		c.Header[http.CanonicalHeaderKey(k)] = append(c.Header[http.CanonicalHeaderKey(k)], v)
	}
	return c
}

var tokenRef = regexp.MustCompile(`\{\{token (\w+)\}\}`)

// volatileHeaders change from run to run or carry nothing of the rules.
var volatileHeaders = []string{"Content-Length", "Date", "X-Request-Id"}

// normalise renders an answer for comparison: status, the stable headers
// sorted, and the body with JSON re-indented and volatile values replaced.
func normalise(t *testing.T, r *response) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP %d\n", r.Status)
	var names []string
	for k := range r.Header {
		if !slices.Contains(volatileHeaders, k) {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		for _, v := range r.Header[k] {
			fmt.Fprintf(&b, "%s: %s\n", k, v)
		}
	}
	b.WriteString("\n")
	switch {
	case len(r.Body) == 0:
	case r.isStream():
		sc := bufio.NewScanner(bytes.NewReader(r.Body))
		for sc.Scan() {
			line := sc.Text()
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				line = "data: " + normaliseJSON(t, []byte(data), false)
			}
			b.WriteString(line + "\n")
		}
	case json.Valid(r.Body):
		b.WriteString(normaliseJSON(t, r.Body, true) + "\n")
	default:
		b.Write(r.Body)
		if !bytes.HasSuffix(r.Body, []byte("\n")) {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// normaliseJSON re-encodes a JSON document (indented, or compact) with
// object members sorted and volatile values replaced: the server version
// (wherever it appears in a string) by "<version>", cursors by "<cursor>".
func normaliseJSON(t *testing.T, doc []byte, indent bool) string {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, doc)
	}
	v = scrub(v, "")
	var out bytes.Buffer
	e := json.NewEncoder(&out)
	e.SetEscapeHTML(false)
	if indent {
		e.SetIndent("", "  ")
	}
	if err := e.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(out.String(), "\n")
}

// scrub replaces the volatile values in v; key is v's member name.
func scrub(v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = scrub(e, k)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = scrub(e, "")
		}
		return x
	case string:
		if key == "nextCursor" || key == "cursor" {
			return "<cursor>"
		}
		return strings.ReplaceAll(x, app.Version, "<version>")
	}
	return v
}

// setSection replaces (or appends) the archive's file name.
func setSection(ar *txtar.Archive, name, content string) {
	for i := range ar.Files {
		if ar.Files[i].Name == name {
			ar.Files[i].Data = []byte(content)
			return
		}
	}
	ar.Files = append(ar.Files, txtar.File{Name: name, Data: []byte(content)})
}

// goldenOptions are the server options an options section names.
func goldenOptions(t *testing.T, opts string) []option {
	t.Helper()
	var out []option
	for _, o := range strings.Fields(opts) {
		switch o {
		case "ee":
			out = append(out, withEE())
		case "fixtures":
			out = append(out, withConformanceFixtures())
		default:
			t.Fatalf("unknown option %q (want ee, fixtures)", o)
		}
	}
	return out
}

// section returns the content of the archive's file name ("" if absent).
func section(ar *txtar.Archive, name string) string {
	for _, f := range ar.Files {
		if f.Name == name {
			return string(f.Data)
		}
	}
	return ""
}
