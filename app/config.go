package app

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gitlab.com/glmcp/glmcp/middleware/ratelimit"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/auth"
)

// Config is every setting of the server. cmd/glmcp/cli fills it from flags and
// GLMCP_* environment variables; nothing in the app reads the environment.
// Call Validate before use.
type Config struct {
	DatabaseURL string
	// DBMaxConns caps the store's connection pool, idle connections
	// included (0: 10 on PostgreSQL, 4 on the embedded store).
	DBMaxConns int
	DataDir    string
	// RepositoriesPath is the directory of the projects' git repositories
	// (GitLab's hashed layout). Empty: DataDir/repositories on the embedded
	// store; required with PostgreSQL.
	RepositoriesPath string
	// GitMaxProcesses bounds the git processes one instance runs at once
	// (0: four per CPU, at least 8).
	GitMaxProcesses int
	Listen          string
	Secret          string
	Edition         models.Edition
	PublicURL       string
	AllowedOrigins  []string
	AllowedHosts    []string
	PageSize        int
	ListTTL         time.Duration
	DiscoverTTL     time.Duration
	MaxBodyBytes    int64
	KeepAlive       time.Duration
	// BodyTimeout is how long a client has to send its request body (from
	// the start of the request); a slower one gets 408.
	BodyTimeout time.Duration
	// MaxUserRequests caps one user's requests whose body is still
	// arriving (a slow client cannot hold more); the next gets 429.
	MaxUserRequests int
	// MaxAddressRequests caps one client address's requests whose body is
	// still arriving, whoever sends them; the next gets 429.
	MaxAddressRequests int
	// DBStatementTimeout bounds each database statement and DBAcquireTimeout
	// taking a connection for a transaction: a stalled database answers
	// 503 instead of holding requests.
	DBStatementTimeout time.Duration
	DBAcquireTimeout   time.Duration
	// MonitoringAllowlist are the IPs and CIDRs that may read /metrics
	// (GitLab's monitoring allowlist); default loopback.
	MonitoringAllowlist []string
	MaxStreams          int
	MaxUserStreams      int
	RateLimit           string
	// AuthFailureLimit budgets failed authentications per client address
	// ("30/60s"; "0" = off).
	AuthFailureLimit string
	// RedisURL, when set, is where every instance counts the rate limits,
	// the failed-authentication ban and the per-user listen stream cap
	// (services/redislimit); RedisPasswordFile holds its password;
	// RedisPrefix starts every key (empty: derived from the secret, so the
	// instances of one deployment share it and other deployments do not).
	// RedisTimeout bounds each check; RedisStreamLease is a stream slot's
	// lease.
	RedisURL          string
	RedisPasswordFile string
	RedisPrefix       string
	RedisTimeout      time.Duration
	RedisStreamLease  time.Duration
	// TrustedProxies are the proxy addresses (IPs or CIDRs) whose
	// X-Forwarded-For / X-Real-IP headers name the client; empty trusts
	// none, so the per-address rate limit keys on the peer address.
	TrustedProxies []string
	LogLevel       string
	LogFormat      string
	Demo           bool
	// Fixtures are test-only additions a build serves (nil: none). Not a
	// setting of glmcp: only the glmcp-conformance binary (behind
	// --conformance-fixtures) and the specs set it, with app/conformance's.
	Fixtures *Fixtures

	// TokenPrefix is the personal access token prefix (GitLab's
	// personal_access_token_prefix, default "glpat-"); InstanceTokenPrefix,
	// when set, makes minted tokens "<instance>-<prefix>" (GitLab's
	// instance_token_prefix). CellID, when set, is minted as the `c`
	// routing key.
	// DefaultWriteRule is the tool rule (allow, ask, deny) of write tools
	// where no project or group rule applies; RequestStateTTL is how long
	// an approval (a sealed requestState) stays valid.
	DefaultWriteRule string
	RequestStateTTL  time.Duration

	// ReadOnly turns read-only mode on for every client (GLMCP_READ_ONLY):
	// write tools are neither listed nor callable. Off, a client can still
	// turn it on for itself with X-Gitlab-Mcp-Read-Only: true
	// (doc/security.md).
	ReadOnly bool
	// Lockdown turns lockdown on for every client (GLMCP_LOCKDOWN): on
	// projects that are not private, text by users below Developer is
	// withheld from tool results and searches. Off, a client can still
	// turn it on with X-Gitlab-Mcp-Lockdown: true (doc/security.md).
	Lockdown bool
	// Sanitize cleans user-written text in tool results of hidden
	// characters and HTML comments (GLMCP_SANITIZE, default on).
	Sanitize bool
	// SecretDetection refuses writes whose arguments hold a secret
	// (GLMCP_SECRET_DETECTION, default on).
	SecretDetection bool
	// Audit records an audit event for every tools/call (GLMCP_AUDIT,
	// default on); off is for measuring what the trail costs.
	Audit bool
	// AuditRetention is how long audit events are kept
	// (GLMCP_AUDIT_RETENTION: a Go duration or N days as "90d"; "0" keeps
	// them for ever).
	AuditRetention string

	TokenPrefix         string
	InstanceTokenPrefix string
	CellID              string

	// GitLabURL is the GitLab instance whose OAuth server issues the
	// tokens glmcp reads from oauth_access_tokens; without an issuer it is
	// the authorization server advertised in the metadata.
	GitLabURL string

	OAuthIssuer               string
	OAuthAuthorizationServers []string
	OAuthJWKS                 string
	OAuthPublicKeyFile        string
	OAuthHS256Secret          string
	OAuthUserClaim            string
	OAuthAllowPrivateJWKS     bool

	tokenFormat *auth.TokenFormat
	// publicURLGuessed: PublicURL was not configured but derived from
	// Listen (see FollowListener).
	publicURLGuessed bool

	rateLimit        ratelimit.Limits
	rateLimitEnabled bool
	failLimit        ratelimit.Limit
	failLimitEnabled bool
	auditRetention   time.Duration
}

// Defaults returns the default configuration (what glmcp serve uses with
// no flags and no environment).
func Defaults() Config {
	return Config{
		DataDir:         "glmcp-data",
		Listen:          "127.0.0.1:8080",
		Edition:         models.EditionCE,
		PageSize:        100,
		ListTTL:         time.Minute,
		DiscoverTTL:     time.Hour,
		MaxBodyBytes:    1 << 20,
		KeepAlive:       25 * time.Second,
		BodyTimeout:     30 * time.Second,
		MaxUserRequests: 32,
		// Bodies arrive in milliseconds: 64 still arriving from one
		// address is a slow-body attack, not a busy NAT.
		MaxAddressRequests: 64,
		// A few seconds: long enough for any statement glmcp runs, short
		// enough that a stalled database answers before clients give up.
		DBStatementTimeout:  5 * time.Second,
		DBAcquireTimeout:    5 * time.Second,
		MonitoringAllowlist: []string{"127.0.0.0/8", "::1/128"},
		MaxStreams:          10000,
		MaxUserStreams:      10,
		RateLimit:           "600/60s",
		AuthFailureLimit:    "30/60s",
		RedisTimeout:        100 * time.Millisecond,
		RedisStreamLease:    30 * time.Second,
		LogLevel:            "info",
		LogFormat:           "json",
		Demo:                true,
		OAuthUserClaim:      "sub",
		TokenPrefix:         auth.TokenPrefix,
		DefaultWriteRule:    string(models.RuleAllow),
		RequestStateTTL:     15 * time.Minute,
		Sanitize:            true,
		SecretDetection:     true,
		AuditRetention:      "90d",
		Audit:               true,
	}
}

// Validate checks cfg and fills derived values. Errors name the setting
// by its environment variable.
func (cfg *Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if cfg.Edition != models.EditionCE && cfg.Edition != models.EditionEE {
		bad("GLMCP_EDITION: %q is not ce or ee", cfg.Edition)
	}
	if _, _, err := net.SplitHostPort(cfg.Listen); err != nil {
		bad("GLMCP_LISTEN: %q is not host:port", cfg.Listen)
	}
	if cfg.DatabaseURL != "" && !strings.HasPrefix(cfg.DatabaseURL, "postgres://") && !strings.HasPrefix(cfg.DatabaseURL, "postgresql://") {
		bad("GLMCP_DATABASE_URL: must start with postgres:// (leave it empty for the embedded store)")
	}
	if cfg.GitMaxProcesses < 0 || cfg.GitMaxProcesses == 1 || cfg.GitMaxProcesses > 1024 {
		// At least 2: a copy (import, fork) and a blob search each run two
		// git processes that feed each other.
		bad("GLMCP_GIT_MAX_PROCESSES: %d is not within 2..1024, or 0 (four per CPU, at least 8)", cfg.GitMaxProcesses)
	}
	if cfg.DBMaxConns < 0 || cfg.DBMaxConns > 1000 {
		bad("GLMCP_DB_MAX_CONNS: %d is not within 0..1000 (0: the store's default)", cfg.DBMaxConns)
	}
	if cfg.Secret != "" && len(cfg.Secret) < 32 {
		bad("GLMCP_SECRET: must be at least 32 characters")
	}
	if cfg.PageSize < 1 || cfg.PageSize > 1000 {
		bad("GLMCP_PAGE_SIZE: %d is not within 1..1000", cfg.PageSize)
	}
	if cfg.ListTTL < 0 || cfg.DiscoverTTL < 0 {
		bad("GLMCP_LIST_TTL_MS / GLMCP_DISCOVER_TTL_MS: must be ≥ 0")
	}
	if cfg.MaxBodyBytes < 1024 {
		bad("GLMCP_MAX_BODY_BYTES: %d is below 1024", cfg.MaxBodyBytes)
	}
	if cfg.KeepAlive < time.Second {
		bad("GLMCP_KEEPALIVE: %s is below 1s", cfg.KeepAlive)
	}
	if cfg.BodyTimeout < time.Second {
		bad("GLMCP_BODY_TIMEOUT: %s is below 1s", cfg.BodyTimeout)
	}
	if cfg.MaxUserRequests < 1 {
		bad("GLMCP_MAX_USER_REQUESTS: must be ≥ 1")
	}
	if cfg.MaxAddressRequests < 1 {
		bad("GLMCP_MAX_ADDRESS_REQUESTS: must be ≥ 1")
	}
	if cfg.DBStatementTimeout < 10*time.Millisecond || cfg.DBAcquireTimeout < 10*time.Millisecond {
		bad("GLMCP_DB_STATEMENT_TIMEOUT / GLMCP_DB_ACQUIRE_TIMEOUT: must be ≥ 10ms")
	}
	for _, p := range cfg.MonitoringAllowlist {
		if !validProxy(p) {
			bad("GLMCP_MONITORING_ALLOWLIST: %q is not an IP address or CIDR", p)
		}
	}
	if cfg.MaxStreams < 1 || cfg.MaxUserStreams < 1 {
		bad("GLMCP_MAX_STREAMS / GLMCP_MAX_USER_STREAMS: must be ≥ 1")
	}
	l, on, err := ratelimit.ParseLimits(cfg.RateLimit)
	if err != nil {
		bad("GLMCP_RATE_LIMIT: %v", err)
	}
	cfg.rateLimit, cfg.rateLimitEnabled = l, on
	if cfg.failLimit, cfg.failLimitEnabled, err = ratelimit.ParseLimit(cfg.AuthFailureLimit); err != nil {
		bad("GLMCP_AUTH_FAILURE_LIMIT: %v", err)
	}
	if cfg.RedisURL != "" && !strings.HasPrefix(cfg.RedisURL, "redis://") && !strings.HasPrefix(cfg.RedisURL, "rediss://") {
		bad("GLMCP_REDIS_URL: must start with redis:// or rediss:// (leave it empty to count limits per instance)")
	}
	if cfg.RedisTimeout < time.Millisecond || cfg.RedisTimeout > 10*time.Second {
		bad("GLMCP_REDIS_TIMEOUT: %s is not within 1ms..10s", cfg.RedisTimeout)
	}
	if cfg.RedisStreamLease < time.Second || cfg.RedisStreamLease > time.Hour {
		bad("GLMCP_REDIS_STREAM_LEASE: %s is not within 1s..1h", cfg.RedisStreamLease)
	}
	for _, p := range cfg.TrustedProxies {
		if !validProxy(p) {
			bad("GLMCP_TRUSTED_PROXIES: %q is not an IP address or CIDR", p)
		}
	}
	switch cfg.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		bad("GLMCP_LOG_LEVEL: %q is not debug, info, warn or error", cfg.LogLevel)
	}
	if cfg.LogFormat != "json" && cfg.LogFormat != "text" {
		bad("GLMCP_LOG_FORMAT: %q is not json or text", cfg.LogFormat)
	}
	if cfg.PublicURL == "" || cfg.publicURLGuessed {
		cfg.PublicURL, cfg.publicURLGuessed = "http://"+reachableAddr(cfg.Listen), true
	}
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	if u, err := url.Parse(cfg.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("GLMCP_PUBLIC_URL: %q is not an http(s) URL", cfg.PublicURL)
	}
	if cfg.OAuthIssuer != "" {
		sources := 0
		for _, s := range []string{cfg.OAuthJWKS, cfg.OAuthPublicKeyFile, cfg.OAuthHS256Secret} {
			if s != "" {
				sources++
			}
		}
		if sources != 1 {
			bad("GLMCP_OAUTH_ISSUER is set: exactly one of GLMCP_OAUTH_JWKS, GLMCP_OAUTH_PUBLIC_KEY, GLMCP_OAUTH_HS256_SECRET is required")
		}
		if len(cfg.OAuthAuthorizationServers) == 0 {
			cfg.OAuthAuthorizationServers = []string{cfg.OAuthIssuer}
		}
	}
	if !models.ToolRuleKind(cfg.DefaultWriteRule).Valid() {
		bad("GLMCP_DEFAULT_WRITE_RULE: %q is not allow, ask or deny", cfg.DefaultWriteRule)
	}
	if d, err := ParseRetention(cfg.AuditRetention); err != nil {
		bad("GLMCP_AUDIT_RETENTION: %v", err)
	} else {
		cfg.auditRetention = d
	}
	if cfg.RequestStateTTL < time.Second {
		bad("GLMCP_REQUEST_STATE_TTL: %s is below 1s", cfg.RequestStateTTL)
	}
	if f, err := tokenFormat(cfg); err != nil {
		bad("%v", err)
	} else {
		cfg.tokenFormat = f
	}
	if cfg.GitLabURL != "" {
		cfg.GitLabURL = strings.TrimRight(cfg.GitLabURL, "/")
		if u, err := url.Parse(cfg.GitLabURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("GLMCP_GITLAB_URL: %q is not an http(s) URL", cfg.GitLabURL)
		} else if len(cfg.OAuthAuthorizationServers) == 0 {
			cfg.OAuthAuthorizationServers = []string{cfg.GitLabURL}
		}
	}
	if cfg.DataDir == "" {
		cfg.DataDir = "."
	}
	cfg.DataDir = filepath.Clean(cfg.DataDir)
	if cfg.RepositoriesPath == "" && cfg.DatabaseURL != "" {
		bad("GLMCP_REPOSITORIES_PATH: required with PostgreSQL (GLMCP_DATABASE_URL): the directory of the projects' git repositories, shared by every instance")
	}
	return errors.Join(errs...)
}

// tokenFormat builds the personal access token format from the token
// settings.
func tokenFormat(cfg *Config) (*auth.TokenFormat, error) {
	tc := auth.TokenFormatConfig{Prefix: cfg.TokenPrefix, InstancePrefix: cfg.InstanceTokenPrefix}
	if cfg.CellID != "" {
		id, err := strconv.ParseInt(cfg.CellID, 10, 64)
		if err != nil || id < 0 {
			return nil, fmt.Errorf("GLMCP_CELL_ID: %q is not a non-negative integer", cfg.CellID)
		}
		tc.CellID = &id
	}
	f, err := auth.NewTokenFormat(tc)
	if err != nil {
		return nil, fmt.Errorf("GLMCP_TOKEN_PREFIX / GLMCP_INSTANCE_TOKEN_PREFIX: %v", err)
	}
	return f, nil
}

// TokenFormat is the personal access token format (valid after Validate;
// GitLab's default before).
func (cfg *Config) TokenFormat() *auth.TokenFormat {
	if cfg.tokenFormat == nil {
		return auth.DefaultTokenFormat()
	}
	return cfg.tokenFormat
}

// AuthorizationServerConfigured reports whether an authorization server is
// advertised (an OAuth issuer, GLMCP_OAUTH_AUTHORIZATION_SERVERS or
// GLMCP_GITLAB_URL). Without one, challenges name no metadata and the
// metadata documents are not served, so clients do not try to sign in.
func (cfg *Config) AuthorizationServerConfigured() bool {
	return len(cfg.OAuthAuthorizationServers) > 0
}

// PublicURLGuessed reports whether PublicURL was derived from the listen
// address rather than configured.
func (cfg *Config) PublicURLGuessed() bool { return cfg.publicURLGuessed }

// ListensOnAllInterfaces reports whether the listen address names no
// host (0.0.0.0, ::, or none): clients elsewhere reach the server by a
// name only the operator knows, the public URL.
func (cfg *Config) ListensOnAllInterfaces() bool {
	host, _, _ := net.SplitHostPort(cfg.Listen)
	ip := net.ParseIP(host)
	return host == "" || ip != nil && ip.IsUnspecified()
}

// FollowListener records the address the server actually bound (port 0
// picks one) and, when the public URL was not configured, derives it from
// that address again.
func (cfg *Config) FollowListener(addr string) {
	cfg.Listen = addr
	if cfg.publicURLGuessed {
		cfg.PublicURL = "http://" + reachableAddr(addr)
	}
}

// reachableAddr is listen as a client on this machine dials it: an
// unspecified host (every interface) becomes 127.0.0.1.
func reachableAddr(listen string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return listen
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		return net.JoinHostPort("127.0.0.1", port)
	}
	return listen
}

// ListensOnLoopback reports whether the listen address is a loopback one
// (the Host header is then checked against DNS rebinding).
func (cfg *Config) ListensOnLoopback() bool {
	host, _, _ := net.SplitHostPort(cfg.Listen)
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// validProxy reports whether p is an IP address or a CIDR prefix.
func validProxy(p string) bool {
	if strings.Contains(p, "/") {
		_, _, err := net.ParseCIDR(p)
		return err == nil
	}
	return net.ParseIP(p) != nil
}

// ParseRetention reads a retention: "0" (for ever), a Go duration of at
// least an hour ("2160h") or a number of days ("90d").
func ParseRetention(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "0" {
		return 0, nil
	}
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 1 || n > 36500 {
			return 0, fmt.Errorf("%q is not a number of days within 1..36500 (write it like 90d), a duration like 720h, or 0", s)
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil || d < time.Hour {
			return 0, fmt.Errorf("%q is not a number of days (90d), a duration of at least 1h, or 0", s)
		}
	}
	return d, nil
}

// AuditRetentionDuration is GLMCP_AUDIT_RETENTION as a duration (valid
// after Validate; 0: keep for ever).
func (cfg *Config) AuditRetentionDuration() time.Duration { return cfg.auditRetention }
