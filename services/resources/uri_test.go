package resources

import (
	"strings"
	"testing"
)

func TestParseTarget(t *testing.T) {
	base := "https://gitlab.example"
	for _, c := range []struct {
		uri  string
		ok   bool
		want target
	}{
		{base + "/g/p", true, target{kind: kindProject, project: "g/p"}},
		{base + "/g/sub/p/-/issues/12", true, target{kind: kindIssue, project: "g/sub/p", iid: 12}},
		{base + "/g/p/-/work_items/3", true, target{kind: kindIssue, project: "g/p", iid: 3}},
		{base + "/g/p/-/merge_requests/4", true, target{kind: kindMergeRequest, project: "g/p", iid: 4}},
		{base + "/g/p/-/jobs/99", true, target{kind: kindJob, project: "g/p", iid: 99}},
		{base + "/g/p/-/blob/main/src/a%20b.go", true, target{kind: kindBlob, project: "g/p", ref: "main", path: "src/a b.go"}},
		{base + "/g/p/-/blob/feature%2Fx/README.md", true, target{kind: kindBlob, project: "g/p", ref: "feature/x", path: "README.md"}},
		{base + "/p", false, target{}},
		{base + "/g/p/-/issues/0", false, target{}},
		{base + "/g/p/-/issues/01", false, target{}},
		{base + "/g/p/-/issues/-1", false, target{}},
		{base + "/g/p/-/issues/99999999999999999999", false, target{}},
		{base + "/g/p/-/issues/1?x", false, target{}},
		{base + "/g/p/-/issues/1#n", false, target{}},
		{base + "/g/../p/-/issues/1", false, target{}},
		{base + "/g/p/-/blob/main/../x", false, target{}},
		{base + "/g/p/-/blob/main/%2e%2e/x", false, target{}},
		{base + "/g/p/-/blob/main", false, target{}},
		{base + "/g/p/-/blob/main/a%00b", false, target{}},
		{base + "/g/p/-/tree/main", false, target{}},
		{"https://other.example/g/p", false, target{}},
		{base + "/" + strings.Repeat("a/", 3000) + "p", false, target{}},
	} {
		got, ok := parseTarget(base, c.uri)
		if ok != c.ok || got != c.want {
			t.Errorf("parseTarget(%q) = %+v, %v; want %+v, %v", c.uri, got, ok, c.want, c.ok)
		}
	}
}

func TestCursor(t *testing.T) {
	s := newCursorSigner([]byte(strings.Repeat("k", 32)))
	c := s.seal(7, 42)
	if last, err := s.open(c, 7); err != nil || last != 42 {
		t.Fatalf("open = %d, %v", last, err)
	}
	if _, err := s.open(c, 8); !IsInvalid(err) {
		t.Errorf("another user: %v", err)
	}
	other := newCursorSigner([]byte(strings.Repeat("x", 32)))
	if _, err := other.open(c, 7); !IsInvalid(err) {
		t.Errorf("another secret: %v", err)
	}
	for i := range c {
		b := []byte(c)
		b[i] ^= 1
		if _, err := s.open(string(b), 7); err == nil {
			t.Errorf("flipped byte %d accepted", i)
		}
	}
}
