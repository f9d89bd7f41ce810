package secrets

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

var (
	scannerOnce sync.Once
	testScanner *Scanner
	sharedErr   error
)

func scanner(t testing.TB) *Scanner {
	t.Helper()
	scannerOnce.Do(func() { testScanner, sharedErr = New("glpat-", "acme-glpat-", "xyzpat-") })
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return testScanner
}

// Test values are built at run time so this file holds no token a
// scanner of this repository would flag.
func tok(prefix, body string) string { return prefix + body }

const privateKey = "-----BEGIN " + "RSA PRIVATE KEY-----\n" +
	"MIIEpAIBAAKCAQEA7bq98Sd8zN1lW2y0Z4a7pQv8g6x0JtKkQW3n9rC2fZ1a5v0H\n" +
	"y3Qz9Xx0sV1rT4mJ8dP2eL6kN0bW7cU5aF3hG9iR2tY6oE1qS4uZ8vX3wK7nM0pB\n" +
	"-----END " + "RSA PRIVATE KEY-----\n"

func TestText(t *testing.T) {
	s := scanner(t)
	tests := []struct {
		name, text, rule string
	}{
		{"legacy PAT", "token: " + tok("glpat-", "Xy7Qw2Rt9Lm4Np8Zk3Vb"), "gitlab-pat"},
		{"versioned routable PAT, as glmcp mints", tok("glpat-", "AbCdEfGhIjKlMnOpQrStUvWxYz012345") + ".01.0w1k2j3h4", ""},
		{"OAuth application secret", tok("gloas-", strings.Repeat("a1B2c3D4", 8)), "gitlab-oauth-app-secret"},
		{"runner token", tok("glrt-", "Qm9Xa7Lp2Rv8Tz4Wn6Ky"), ""},
		{"runner token from a registration token", tok("glrtr-", "Qm9Xa7Lp2Rv8Tz4Wn6Ky"), ""},
		{"instance prefix", tok("acme-glpat-", "Xy7Qw2Rt9Lm4Np8Zk3Vb"), ""},
		{"custom prefix", tok("xyzpat-", "Xy7Qw2Rt9Lm4Np8Zk3Vb"), "gitlab-instance-token-2"},
		{"private key", privateKey, "private-key"},
		{"AWS access key", "aws_access_key_id = " + tok("AKIA", "Z7QW3RTXLM4NPQZK"), "aws-access-token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := s.Text(tt.text, "")
			if len(hits) == 0 {
				t.Fatalf("no finding in %q", tt.text)
			}
			if tt.rule != "" {
				found := false
				for _, h := range hits {
					found = found || h.Rule == tt.rule
				}
				if !found {
					t.Errorf("hits %v, want rule %s", hits, tt.rule)
				}
			}
		})
	}
	for _, clean := range []string{"Fix the parser: the token is read from $GITLAB_TOKEN", "glpat-", "password: <your password>", ""} {
		if hits := s.Text(clean, ""); len(hits) != 0 {
			t.Errorf("%q: false positive %v", clean, hits)
		}
	}
}

// TestArguments: findings say the rule and where — the file and line of a
// commit action, the argument path otherwise — and never the secret.
func TestArguments(t *testing.T) {
	s := scanner(t)
	secret := tok("glpat-", "Xy7Qw2Rt9Lm4Np8Zk3Vb")
	args, _ := json.Marshal(map[string]any{
		"commit_message": "Add config",
		"actions": []any{
			map[string]any{"action": "create", "file_path": "README.md", "content": "# hello\n"},
			map[string]any{"action": "create", "file_path": "config/app.env", "content": "A=1\nB=2\nTOKEN=" + secret + "\n"},
			map[string]any{"action": "create", "file_path": "key.b64", "encoding": "base64", "content": base64.StdEncoding.EncodeToString([]byte(privateKey))},
		},
		"description": "see " + secret,
		"variables":   []any{map[string]any{"key": "T", "value": secret}},
	})
	got := s.Arguments(args)
	var where []string
	for _, f := range got {
		where = append(where, f.String())
		if strings.Contains(f.String(), secret) || strings.Contains(f.String(), "Xy7Qw") {
			t.Errorf("finding echoes the secret: %s", f)
		}
	}
	want := []string{
		"gitlab-pat in actions[1].content (file config/app.env, line 3)",
		"private-key in actions[2].content (file key.b64, line 1)",
		"gitlab-pat in description",
	}
	if strings.Join(where, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant\n%s", strings.Join(where, "\n"), strings.Join(want, "\n"))
	}
	if got := s.Arguments(json.RawMessage(`{"title":"clean","description":"nothing here"}`)); len(got) != 0 {
		t.Errorf("clean arguments: %v", got)
	}
}

// TestConcurrent: one Scanner serves concurrent calls (go test -race).
func TestConcurrent(t *testing.T) {
	s := scanner(t)
	text := "x " + tok("glpat-", "Xy7Qw2Rt9Lm4Np8Zk3Vb")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				if len(s.Text(text, "")) == 0 {
					t.Error("missed")
				}
			}
		})
	}
	wg.Wait()
}

func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		if _, err := New("glpat-"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkArguments(b *testing.B) {
	s := scanner(b)
	args, _ := json.Marshal(map[string]any{"body": strings.Repeat("A comment about the parser, with `code` and a link https://example.com/x.\n", 20)})
	b.SetBytes(int64(len(args)))
	for b.Loop() {
		s.Arguments(args)
	}
}
