package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"gitlab.com/glmcp/glmcp/app"
)

// bindConfig registers the flags of cfg, and --conformance-fixtures into
// fixtures, on fs, with defaults taken from the environment through
// getenv. It returns the environment values it could not parse
// (booleans), each naming its variable.
func bindConfig(fs *pflag.FlagSet, cfg *app.Config, fixtures *bool, getenv func(string) string) []error {
	d := app.Defaults()
	var errs []error
	env := func(k, def string) string {
		if v := strings.TrimSpace(getenv(k)); v != "" {
			return v
		}
		return def
	}
	// envBool accepts what strconv.ParseBool does (1, t, true, 0, f, false…).
	envBool := func(k string, def bool) bool {
		v := strings.TrimSpace(getenv(k))
		if v == "" {
			return def
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %q is not a boolean (true or false)", k, v))
			return def
		}
		return b
	}
	// envDuration accepts Go durations (25s, 1m30s).
	envDuration := func(k string, def time.Duration) time.Duration {
		v := strings.TrimSpace(getenv(k))
		if v == "" {
			return def
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %q is not a duration (write it like 30s, 1m or 1m30s)", k, v))
			return def
		}
		return d
	}
	fs.StringVar(&cfg.DatabaseURL, "database-url", env("GLMCP_DATABASE_URL", ""), "PostgreSQL URL (postgres://…); empty: embedded SQLite under --data-dir [GLMCP_DATABASE_URL]")
	fs.IntVar(&cfg.DBMaxConns, "db-max-conns", envInt(env("GLMCP_DB_MAX_CONNS", "0")), "database connections, all kept open while in use (0: 10 on PostgreSQL, 4 embedded) [GLMCP_DB_MAX_CONNS]")
	fs.StringVar(&cfg.DataDir, "data-dir", env("GLMCP_DATA_DIR", d.DataDir), "directory of the embedded store and its generated secret [GLMCP_DATA_DIR]")
	fs.IntVar(&cfg.GitMaxProcesses, "git-max-processes", envInt(env("GLMCP_GIT_MAX_PROCESSES", "0")), "git processes run at once by this instance; more wait for a slot within their request's deadline (0: four per CPU, at least 8) [GLMCP_GIT_MAX_PROCESSES]")
	fs.StringVar(&cfg.RepositoriesPath, "repositories-path", env("GLMCP_REPOSITORIES_PATH", ""), "directory of the projects' git repositories; empty: DATA_DIR/repositories on the embedded store, required with PostgreSQL [GLMCP_REPOSITORIES_PATH]")
	fs.StringVar(&cfg.Listen, "listen", env("GLMCP_LISTEN", d.Listen), "address to listen on [GLMCP_LISTEN]")
	fs.StringVar(&cfg.Secret, "secret", env("GLMCP_SECRET", ""), "instance secret, ≥ 32 characters; token digests and cursors depend on it [GLMCP_SECRET]")
	fs.StringVar((*string)(&cfg.Edition), "edition", env("GLMCP_EDITION", string(d.Edition)), "ce or ee (ee also serves /api/v4/orbit/mcp) [GLMCP_EDITION]")
	fs.StringVar(&cfg.PublicURL, "public-url", env("GLMCP_PUBLIC_URL", ""), "external base URL (default http://LISTEN) [GLMCP_PUBLIC_URL]")
	fs.StringSliceVar(&cfg.AllowedOrigins, "allowed-origins", splitList(env("GLMCP_ALLOWED_ORIGINS", "")), "extra allowed Origin values; loopback origins are always allowed [GLMCP_ALLOWED_ORIGINS]")
	fs.StringSliceVar(&cfg.AllowedHosts, "allowed-hosts", splitList(env("GLMCP_ALLOWED_HOSTS", "")), "Host values accepted besides loopback names when listening on loopback [GLMCP_ALLOWED_HOSTS]")
	fs.IntVar(&cfg.PageSize, "page-size", envInt(env("GLMCP_PAGE_SIZE", strconv.Itoa(d.PageSize))), "tools/list page size, 1..1000 [GLMCP_PAGE_SIZE]")
	fs.DurationVar(&cfg.ListTTL, "list-ttl", envMs(env("GLMCP_LIST_TTL_MS", ms(d.ListTTL))), "ttlMs hint on tools/list [GLMCP_LIST_TTL_MS, in ms]")
	fs.DurationVar(&cfg.DiscoverTTL, "discover-ttl", envMs(env("GLMCP_DISCOVER_TTL_MS", ms(d.DiscoverTTL))), "ttlMs hint on server/discover [GLMCP_DISCOVER_TTL_MS, in ms]")
	fs.Int64Var(&cfg.MaxBodyBytes, "max-body-bytes", int64(envInt(env("GLMCP_MAX_BODY_BYTES", strconv.FormatInt(d.MaxBodyBytes, 10)))), "request body limit [GLMCP_MAX_BODY_BYTES]")
	fs.DurationVar(&cfg.KeepAlive, "keepalive", envDuration("GLMCP_KEEPALIVE", d.KeepAlive), "SSE keep-alive interval on listen streams [GLMCP_KEEPALIVE]")
	fs.DurationVar(&cfg.BodyTimeout, "body-timeout", envDuration("GLMCP_BODY_TIMEOUT", d.BodyTimeout), "time a client has to send a request body before 408 [GLMCP_BODY_TIMEOUT]")
	fs.IntVar(&cfg.MaxUserRequests, "max-user-requests", envInt(env("GLMCP_MAX_USER_REQUESTS", strconv.Itoa(d.MaxUserRequests))), "requests per user whose body is still arriving, before 429 [GLMCP_MAX_USER_REQUESTS]")
	fs.IntVar(&cfg.MaxAddressRequests, "max-address-requests", envInt(env("GLMCP_MAX_ADDRESS_REQUESTS", strconv.Itoa(d.MaxAddressRequests))), "requests per client address whose body is still arriving, before 429 [GLMCP_MAX_ADDRESS_REQUESTS]")
	fs.DurationVar(&cfg.DBStatementTimeout, "db-statement-timeout", envDuration("GLMCP_DB_STATEMENT_TIMEOUT", d.DBStatementTimeout), "deadline of one database statement; past it the request gets 503 [GLMCP_DB_STATEMENT_TIMEOUT]")
	fs.DurationVar(&cfg.DBAcquireTimeout, "db-acquire-timeout", envDuration("GLMCP_DB_ACQUIRE_TIMEOUT", d.DBAcquireTimeout), "deadline for taking a database connection for a transaction [GLMCP_DB_ACQUIRE_TIMEOUT]")
	fs.StringSliceVar(&cfg.MonitoringAllowlist, "monitoring-allowlist", splitList(env("GLMCP_MONITORING_ALLOWLIST", strings.Join(d.MonitoringAllowlist, ","))), "IPs or CIDRs allowed to read /metrics (GitLab's monitoring allowlist) [GLMCP_MONITORING_ALLOWLIST]")
	fs.IntVar(&cfg.MaxStreams, "max-streams", envInt(env("GLMCP_MAX_STREAMS", strconv.Itoa(d.MaxStreams))), "open subscriptions/listen streams per instance [GLMCP_MAX_STREAMS]")
	fs.IntVar(&cfg.MaxUserStreams, "max-user-streams", envInt(env("GLMCP_MAX_USER_STREAMS", strconv.Itoa(d.MaxUserStreams))), "open listen streams per user [GLMCP_MAX_USER_STREAMS]")
	fs.StringVar(&cfg.AuthFailureLimit, "auth-failure-limit", env("GLMCP_AUTH_FAILURE_LIMIT", d.AuthFailureLimit), "failed authentications per client address and window before 429, e.g. 30/60s; 0 = off [GLMCP_AUTH_FAILURE_LIMIT]")
	fs.StringVar(&cfg.RateLimit, "rate-limit", env("GLMCP_RATE_LIMIT", d.RateLimit), "requests per window per user and group, e.g. 600/60s, or a list of windows all enforced, e.g. 600/60s,5000/1h; 0 = off [GLMCP_RATE_LIMIT]")
	fs.StringVar(&cfg.RedisURL, "redis-url", env("GLMCP_REDIS_URL", ""), "Redis (redis:// or rediss://) where every instance counts the rate limits, the failed-authentication ban and the per-user stream cap; empty: each instance counts its own [GLMCP_REDIS_URL]")
	fs.StringVar(&cfg.RedisPasswordFile, "redis-password-file", env("GLMCP_REDIS_PASSWORD_FILE", ""), "file holding the Redis password (instead of one in the URL) [GLMCP_REDIS_PASSWORD_FILE]")
	fs.StringVar(&cfg.RedisPrefix, "redis-prefix", env("GLMCP_REDIS_PREFIX", ""), "prefix of glmcp's Redis keys; instances with one prefix share their limits (default: derived from the secret) [GLMCP_REDIS_PREFIX]")
	fs.DurationVar(&cfg.RedisTimeout, "redis-timeout", envDuration("GLMCP_REDIS_TIMEOUT", d.RedisTimeout), "deadline of one limit check in Redis; past it limits are counted in process until Redis answers again [GLMCP_REDIS_TIMEOUT]")
	fs.DurationVar(&cfg.RedisStreamLease, "redis-stream-lease", envDuration("GLMCP_REDIS_STREAM_LEASE", d.RedisStreamLease), "lease of a listen stream's slot in Redis, renewed every third of it; a stopped instance's slots free themselves within it [GLMCP_REDIS_STREAM_LEASE]")
	fs.StringSliceVar(&cfg.TrustedProxies, "trusted-proxies", splitList(env("GLMCP_TRUSTED_PROXIES", "")), "proxy IPs or CIDRs whose X-Forwarded-For names the client (rate limits per address); empty: trust none [GLMCP_TRUSTED_PROXIES]")
	fs.StringVar(&cfg.LogLevel, "log-level", env("GLMCP_LOG_LEVEL", d.LogLevel), "debug, info, warn or error [GLMCP_LOG_LEVEL]")
	fs.StringVar(&cfg.LogFormat, "log-format", env("GLMCP_LOG_FORMAT", d.LogFormat), "json or text [GLMCP_LOG_FORMAT]")
	fs.BoolVar(&cfg.Demo, "demo", envBool("GLMCP_DEMO", d.Demo), "seed demo data on first start of the embedded store [GLMCP_DEMO]")
	fs.BoolVar(fixtures, "conformance-fixtures", envBool("GLMCP_CONFORMANCE_FIXTURES", false), "serve the MCP conformance suite's diagnostic tools (toolset conformance), test:// resources, test_* prompts and the logging capability to every user; test use only, glmcp-conformance only [GLMCP_CONFORMANCE_FIXTURES]")

	fs.StringVar(&cfg.DefaultWriteRule, "default-write-rule", env("GLMCP_DEFAULT_WRITE_RULE", d.DefaultWriteRule), "rule of write tools where no project or group rule applies: allow, ask or deny [GLMCP_DEFAULT_WRITE_RULE]")
	fs.DurationVar(&cfg.RequestStateTTL, "request-state-ttl", envDuration("GLMCP_REQUEST_STATE_TTL", d.RequestStateTTL), "how long a requestState (an approval of an Ask rule) stays valid [GLMCP_REQUEST_STATE_TTL]")
	fs.BoolVar(&cfg.ReadOnly, "read-only", envBool("GLMCP_READ_ONLY", false), "read-only mode for every client: write tools are neither listed nor callable; off, a client can turn it on with X-Gitlab-Mcp-Read-Only: true [GLMCP_READ_ONLY]")
	fs.BoolVar(&cfg.Lockdown, "lockdown", envBool("GLMCP_LOCKDOWN", false), "lockdown for every client: on projects that are not private, descriptions and notes by users below Developer are withheld and searches do not match them; off, a client can turn it on with X-Gitlab-Mcp-Lockdown: true [GLMCP_LOCKDOWN]")
	fs.BoolVar(&cfg.Sanitize, "sanitize", envBool("GLMCP_SANITIZE", d.Sanitize), "remove hidden characters (Unicode tags, zero-width, bidi controls) and HTML comments from user-written text in tool results, counted in _meta; false turns it off [GLMCP_SANITIZE]")
	fs.BoolVar(&cfg.SecretDetection, "secret-detection", envBool("GLMCP_SECRET_DETECTION", d.SecretDetection), "secret push protection: refuse a write tool whose arguments (commit contents, descriptions, notes, comments) hold a secret, before anything is written; false turns it off [GLMCP_SECRET_DETECTION]")
	fs.BoolVar(&cfg.Audit, "audit", envBool("GLMCP_AUDIT", d.Audit), "record an audit event of every tools/call in the store; false records none (to measure what the trail costs) [GLMCP_AUDIT]")
	fs.StringVar(&cfg.AuditRetention, "audit-retention", env("GLMCP_AUDIT_RETENTION", d.AuditRetention), "how long audit events of tool calls are kept: days (90d), a duration (720h) or 0 (for ever) [GLMCP_AUDIT_RETENTION]")
	fs.StringVar(&cfg.TokenPrefix, "token-prefix", env("GLMCP_TOKEN_PREFIX", d.TokenPrefix), "personal access token prefix, as GitLab's personal_access_token_prefix [GLMCP_TOKEN_PREFIX]")
	fs.StringVar(&cfg.InstanceTokenPrefix, "instance-token-prefix", env("GLMCP_INSTANCE_TOKEN_PREFIX", ""), "GitLab's instance token prefix: tokens are minted as <instance>-<prefix> [GLMCP_INSTANCE_TOKEN_PREFIX]")
	fs.StringVar(&cfg.CellID, "cell-id", env("GLMCP_CELL_ID", ""), "cell id minted into tokens' routing payload (c) [GLMCP_CELL_ID]")
	fs.StringVar(&cfg.GitLabURL, "gitlab-url", env("GLMCP_GITLAB_URL", ""), "GitLab instance whose OAuth tokens are read from oauth_access_tokens; advertised as the authorization server when no issuer is set [GLMCP_GITLAB_URL]")
	fs.StringVar(&cfg.OAuthIssuer, "oauth-issuer", env("GLMCP_OAUTH_ISSUER", ""), "OAuth issuer; enables JWT access tokens [GLMCP_OAUTH_ISSUER]")
	fs.StringSliceVar(&cfg.OAuthAuthorizationServers, "oauth-authorization-servers", splitList(env("GLMCP_OAUTH_AUTHORIZATION_SERVERS", "")), "authorization servers in the resource metadata (default: the issuer) [GLMCP_OAUTH_AUTHORIZATION_SERVERS]")
	fs.StringVar(&cfg.OAuthJWKS, "oauth-jwks", env("GLMCP_OAUTH_JWKS", ""), "JWKS file path or URL [GLMCP_OAUTH_JWKS]")
	fs.StringVar(&cfg.OAuthPublicKeyFile, "oauth-public-key", env("GLMCP_OAUTH_PUBLIC_KEY", ""), "PEM public key file (instead of a JWKS) [GLMCP_OAUTH_PUBLIC_KEY]")
	fs.StringVar(&cfg.OAuthHS256Secret, "oauth-hs256-secret", env("GLMCP_OAUTH_HS256_SECRET", ""), "shared secret enabling HS256 tokens (discouraged) [GLMCP_OAUTH_HS256_SECRET]")
	fs.StringVar(&cfg.OAuthUserClaim, "oauth-user-claim", env("GLMCP_OAUTH_USER_CLAIM", d.OAuthUserClaim), "claim naming the user: sub (= user id) or a username claim [GLMCP_OAUTH_USER_CLAIM]")
	fs.BoolVar(&cfg.OAuthAllowPrivateJWKS, "oauth-allow-private-jwks", envBool("GLMCP_OAUTH_ALLOW_PRIVATE_JWKS", false), "allow a JWKS URL on a loopback or private address [GLMCP_OAUTH_ALLOW_PRIVATE_JWKS]")
	return errs
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// envInt and friends turn malformed values into -1 (or 0), which validate
// then reports by name.
func envInt(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}

func envMs(s string) time.Duration {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return -1
	}
	return time.Duration(n) * time.Millisecond
}

func ms(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }
