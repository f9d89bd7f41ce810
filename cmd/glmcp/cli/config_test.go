package cli

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Ensure invalid settings are refused before anything is opened: the
// error names the variable, the command fails and no file is created.
func TestConfigValidation(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"pool size negative", map[string]string{"GLMCP_DB_MAX_CONNS": "-2"}, nil, "GLMCP_DB_MAX_CONNS: -2 is not within 0..1000"},
		{"pool size not a number", map[string]string{"GLMCP_DB_MAX_CONNS": "lots"}, nil, "GLMCP_DB_MAX_CONNS"},
		{"pool size flag too big", nil, []string{"--db-max-conns", "5000"}, "--db-max-conns: 5000 is not within"},
		{"page size zero", map[string]string{"GLMCP_PAGE_SIZE": "0"}, nil, "GLMCP_PAGE_SIZE: 0 is not within 1..1000"},
		{"page size not a number", map[string]string{"GLMCP_PAGE_SIZE": "many"}, nil, "GLMCP_PAGE_SIZE"},
		{"page size flag too big", nil, []string{"--page-size", "1001"}, "--page-size: 1001 is not within 1..1000"},
		{"unknown edition", map[string]string{"GLMCP_EDITION": "xx"}, nil, `GLMCP_EDITION: "xx" is not ce or ee`},
		{"short secret", map[string]string{"GLMCP_SECRET": "too-short"}, nil, "GLMCP_SECRET: must be at least 32 characters"},
		{"mysql database", map[string]string{"GLMCP_DATABASE_URL": "mysql://root@localhost/glmcp"}, nil, "GLMCP_DATABASE_URL: must start with postgres://"},
		{"postgres without a repositories path", map[string]string{"GLMCP_DATABASE_URL": "postgres://nobody@127.0.0.1:1/x"}, nil, "GLMCP_REPOSITORIES_PATH: required with PostgreSQL"},
		{"listen without port", map[string]string{"GLMCP_LISTEN": "localhost"}, nil, `GLMCP_LISTEN: "localhost" is not host:port`},
		{"public url not http", map[string]string{"GLMCP_PUBLIC_URL": "ftp://example.com"}, nil, "GLMCP_PUBLIC_URL"},
		{"log level", map[string]string{"GLMCP_LOG_LEVEL": "verbose"}, nil, "GLMCP_LOG_LEVEL"},
		{"log format", map[string]string{"GLMCP_LOG_FORMAT": "xml"}, nil, "GLMCP_LOG_FORMAT"},
		{"rate limit", map[string]string{"GLMCP_RATE_LIMIT": "fast"}, nil, "GLMCP_RATE_LIMIT"},
		{"redis url scheme", map[string]string{"GLMCP_REDIS_URL": "http://127.0.0.1:6379"}, nil, "GLMCP_REDIS_URL: must start with redis:// or rediss://"},
		{"redis timeout", map[string]string{"GLMCP_REDIS_TIMEOUT": "0s"}, nil, "GLMCP_REDIS_TIMEOUT: 0s is not within 1ms..10s"},
		{"redis timeout not a duration", map[string]string{"GLMCP_REDIS_TIMEOUT": "fast"}, nil, "GLMCP_REDIS_TIMEOUT"},
		{"redis stream lease", nil, []string{"--redis-stream-lease", "500ms"}, "--redis-stream-lease: 500ms is not within 1s..1h"},
		{"body limit", map[string]string{"GLMCP_MAX_BODY_BYTES": "10"}, nil, "GLMCP_MAX_BODY_BYTES: 10 is below 1024"},
		{"keepalive", map[string]string{"GLMCP_KEEPALIVE": "10ms"}, nil, "GLMCP_KEEPALIVE"},
		{"negative ttl", map[string]string{"GLMCP_LIST_TTL_MS": "-5"}, nil, "GLMCP_LIST_TTL_MS"},
		{"trusted proxy", map[string]string{"GLMCP_TRUSTED_PROXIES": "10.0.0.0/8, not-an-ip"}, nil, `GLMCP_TRUSTED_PROXIES: "not-an-ip"`},
		{"oauth without keys", map[string]string{"GLMCP_OAUTH_ISSUER": "https://id.example.com"}, nil, "GLMCP_OAUTH_JWKS"},
		{"gitlab url not http", map[string]string{"GLMCP_GITLAB_URL": "gitlab.example.com"}, nil, `GLMCP_GITLAB_URL: "gitlab.example.com"`},
		{"token prefix with a dot", map[string]string{"GLMCP_TOKEN_PREFIX": "gl.pat-"}, nil, "GLMCP_TOKEN_PREFIX"},
		{"instance prefix too long", map[string]string{"GLMCP_INSTANCE_TOKEN_PREFIX": "a-very-long-instance"}, nil, "at most 20 characters"},
		{"default write rule", map[string]string{"GLMCP_DEFAULT_WRITE_RULE": "maybe"}, nil, `GLMCP_DEFAULT_WRITE_RULE: "maybe" is not allow, ask or deny`},
		{"request state ttl", map[string]string{"GLMCP_REQUEST_STATE_TTL": "10ms"}, nil, "GLMCP_REQUEST_STATE_TTL"},
		{"git processes negative", map[string]string{"GLMCP_GIT_MAX_PROCESSES": "-1"}, nil, "GLMCP_GIT_MAX_PROCESSES: -1 is not within 2..1024, or 0"},
		{"git processes one", map[string]string{"GLMCP_GIT_MAX_PROCESSES": "1"}, nil, "GLMCP_GIT_MAX_PROCESSES: 1 is not within 2..1024, or 0"},
		{"conformance fixtures", map[string]string{"GLMCP_CONFORMANCE_FIXTURES": "true"}, nil, "GLMCP_CONFORMANCE_FIXTURES: glmcp has no conformance fixtures"},
		{"conformance fixtures flag", nil, []string{"--conformance-fixtures"}, "--conformance-fixtures: glmcp has no conformance fixtures"},
		{"conformance fixtures not a boolean", map[string]string{"GLMCP_CONFORMANCE_FIXTURES": "yes"}, nil, `GLMCP_CONFORMANCE_FIXTURES: "yes" is not a boolean`},
		{"read-only not a boolean", map[string]string{"GLMCP_READ_ONLY": "sure"}, nil, `GLMCP_READ_ONLY: "sure" is not a boolean`},
		{"sanitize not a boolean", map[string]string{"GLMCP_SANITIZE": "off"}, nil, `GLMCP_SANITIZE: "off" is not a boolean`},
		{"secret detection not a boolean", map[string]string{"GLMCP_SECRET_DETECTION": "on"}, nil, `GLMCP_SECRET_DETECTION: "on" is not a boolean`},
		{"audit retention", map[string]string{"GLMCP_AUDIT_RETENTION": "3 months"}, nil, `GLMCP_AUDIT_RETENTION: "3 months" is not`},
		{"audit retention too short", map[string]string{"GLMCP_AUDIT_RETENTION": "10m"}, nil, `GLMCP_AUDIT_RETENTION: "10m" is not`},
		{"cell id not a number", map[string]string{"GLMCP_CELL_ID": "eu-1"}, nil, `GLMCP_CELL_ID: "eu-1"`},
	}
	commands := [][]string{{"serve"}, {}, {"migrate"}, {"users", "list"}, {"tokens", "create", "--user", "root", "--scopes", "mcp"}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, cmd := range commands {
				dataDir := filepath.Join(t.TempDir(), "data")
				env := map[string]string{"GLMCP_DATA_DIR": dataDir, "GLMCP_LISTEN": "127.0.0.1:0"}
				for k, v := range tt.env {
					env[k] = v
				}
				var out, errOut bytes.Buffer
				args := append(append([]string{}, cmd...), tt.args...)
				err := run(context.Background(), args, func(k string) string { return env[k] }, &out, &errOut)
				if err == nil {
					t.Fatalf("glmcp %v: succeeded, want a validation error", args)
				}
				if !strings.Contains(err.Error(), tt.want) {
					t.Errorf("glmcp %v: error %q does not contain %q", args, err, tt.want)
				}
				if out.Len() != 0 {
					t.Errorf("glmcp %v: printed %q on stdout", args, out.String())
				}
				if _, err := os.Stat(dataDir); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("glmcp %v: created %s although the configuration is invalid", args, dataDir)
				}
			}
		})
	}
}

// Without git on PATH no command that opens the store starts, and the
// error says what to install; nothing is created.
func TestStart_needsGit(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, cmd := range [][]string{{"serve"}, {"migrate"}, {"users", "list"}} {
		dataDir := filepath.Join(t.TempDir(), "data")
		env := map[string]string{"GLMCP_DATA_DIR": dataDir, "GLMCP_LISTEN": "127.0.0.1:0"}
		err := run(context.Background(), cmd, func(k string) string { return env[k] }, &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil || !strings.HasPrefix(err.Error(), "glmcp needs git ≥ 2.39.0 on PATH: ") {
			t.Errorf("glmcp %v without git: err = %v", cmd, err)
		}
		if _, err := os.Stat(dataDir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("glmcp %v without git created %s", cmd, dataDir)
		}
	}
}

// Ensure every invalid setting is reported at once, not one per attempt.
func TestConfigValidation_allErrors(t *testing.T) {
	env := map[string]string{"GLMCP_DATA_DIR": t.TempDir(), "GLMCP_PAGE_SIZE": "0", "GLMCP_EDITION": "xx", "GLMCP_SECRET": "short"}
	err := run(context.Background(), []string{"migrate"}, func(k string) string { return env[k] }, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil {
		t.Fatal("migrate succeeded, want a validation error")
	}
	for _, v := range []string{"GLMCP_PAGE_SIZE", "GLMCP_EDITION", "GLMCP_SECRET"} {
		if !strings.Contains(err.Error(), v) {
			t.Errorf("error %q does not name %s", err, v)
		}
	}
}

// Without GLMCP_SECRET every command on the same database uses the one
// secret generated on first start (kept in glmcp_settings): a token minted
// by one process verifies in another.
func TestConfigGeneratedSecretIsShared(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		noSecret := map[string]string{"GLMCP_SECRET": ""}
		_, _, err := b.runEnv(t, noSecret, "users", "create", "--username", "gen", "--email", "gen@example.com")
		if err != nil {
			t.Fatalf("users create without a secret: %v", err)
		}
		raw, _, err := b.runEnv(t, noSecret, "tokens", "create", "--user", "gen", "--scopes", "mcp")
		if err != nil {
			t.Fatalf("tokens create without a secret: %v", err)
		}
		raw = strings.TrimSpace(raw)
		// A second process revoking by the clear token must find its digest.
		if _, _, err := b.runEnv(t, noSecret, "tokens", "revoke", "--token", raw); err != nil {
			t.Fatalf("revoke by token in another process: %v (the generated secret differs)", err)
		}
		var stored string
		if err := b.store(t).DB().Raw(`SELECT value FROM glmcp_settings WHERE key = 'instance_secret'`).Scan(&stored).Error; err != nil || len(stored) < 32 {
			t.Fatalf("generated secret not kept: %q, %v", stored, err)
		}
	})
}

// Ensure a flag overrides the environment.
func TestConfigFlagOverridesEnv(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"GLMCP_DATA_DIR": filepath.Join(dir, "from-env")}
	var out bytes.Buffer
	err := run(context.Background(), []string{"migrate", "--data-dir", filepath.Join(dir, "from-flag"), "--log-level", "error"},
		func(k string) string { return env[k] }, &out, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "from-flag", "glmcp.db")); err != nil {
		t.Errorf("the --data-dir flag was not used: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "from-env")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("GLMCP_DATA_DIR was used although --data-dir was given")
	}
}
