package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/app"
)

// fixtureBuild is a build with fixtures, as glmcp-conformance is, whose
// fixtures declare only the logging capability; calls counts how often
// they were asked for.
func fixtureBuild(calls *int) Build {
	return Build{Name: "glmcp-fixtures", Fixtures: func() *app.Fixtures {
		*calls++
		return &app.Fixtures{Logging: true}
	}}
}

// Ensure only a build with fixtures lists --conformance-fixtures: glmcp
// hides it (and refuses it: TestConfigValidation).
func TestFixtures_flagListedOnlyWithFixtures(t *testing.T) {
	var calls int
	for _, tt := range []struct {
		build  Build
		listed bool
	}{{Build{}, false}, {fixtureBuild(&calls), true}} {
		var out bytes.Buffer
		if err := Run(context.Background(), tt.build, []string{"--help"}, func(string) string { return "" }, &out, &bytes.Buffer{}); err != nil {
			t.Fatalf("%s --help: %v", tt.build.name(), err)
		}
		if got := strings.Contains(out.String(), "--conformance-fixtures"); got != tt.listed {
			t.Errorf("%s --help lists --conformance-fixtures: %v, want %v", tt.build.name(), got, tt.listed)
		}
	}
	if calls != 0 {
		t.Errorf("--help asked for the fixtures %d times", calls)
	}
}

// Ensure GLMCP_CONFORMANCE_FIXTURES=false, which asks for what glmcp does
// anyway, is accepted.
func TestFixtures_falseAccepted(t *testing.T) {
	env := map[string]string{"GLMCP_DATA_DIR": t.TempDir(), "GLMCP_CONFORMANCE_FIXTURES": "false", "GLMCP_LOG_LEVEL": "error"}
	if err := run(context.Background(), []string{"migrate"}, func(k string) string { return env[k] }, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatalf("migrate with GLMCP_CONFORMANCE_FIXTURES=false: %v", err)
	}
}

// Ensure serve of a build with fixtures serves them only when
// --conformance-fixtures is on: the logging capability is the fixtures'.
func TestFixtures_servedWithTheFlag(t *testing.T) {
	for _, on := range []bool{false, true} {
		var calls int
		env := map[string]string{"GLMCP_DATA_DIR": t.TempDir(), "GLMCP_LISTEN": "127.0.0.1:0", "GLMCP_LOG_LEVEL": "info"}
		var args []string
		if on {
			args = []string{"--conformance-fixtures"}
		}
		s := startServeBuild(t, fixtureBuild(&calls), env, args...)
		m := bannerCurl.FindStringSubmatch(s.banner)
		if m == nil {
			t.Fatalf("banner has no curl example:\n%s", s.banner)
		}
		status, body := post(t, s.base+"/api/v4/mcp", m[2],
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		var res struct {
			Result struct {
				Capabilities map[string]json.RawMessage `json:"capabilities"`
			} `json:"result"`
		}
		if status != http.StatusOK || json.Unmarshal(body, &res) != nil {
			t.Fatalf("initialize: HTTP %d %s", status, body)
		}
		if _, logging := res.Result.Capabilities["logging"]; logging != on {
			t.Errorf("--conformance-fixtures=%v: logging capability declared: %v (%s)", on, logging, body)
		}
		if want := map[bool]int{false: 0, true: 1}[on]; calls != want {
			t.Errorf("--conformance-fixtures=%v: fixtures asked for %d times, want %d", on, calls, want)
		}
		if err := s.stop(); err != nil {
			t.Errorf("serve: %v", err)
		}
	}
}
