package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
	"strconv"
	"strings"
)

// TokenPrefix is GitLab's default personal access token prefix.
const TokenPrefix = "glpat-"

// DefaultOrganizationID is GitLab's default organization, the `o` routing
// key of every token glmcp mints (glmcp has one organization).
const DefaultOrganizationID = 1

// Personal access tokens come in GitLab's three formats (GitLab's
// lib/authn/token_field/generator/routable_token.rb and its decoder) plus
// the one glmcp minted before it followed GitLab:
//
//	legacy:             <prefix><20 characters of [0-9A-Za-z_-]>
//	routable:           <prefix><b64>.<len><crc>
//	versioned routable: <prefix><b64>.01.<len><crc>
//	glmcp v0:           <prefix><≥ 20 characters of [0-9A-Za-z_-]>.01.<crc over everything before the last dot>
//
// b64 is base64url without padding of 16 random bytes ‖ routing payload ‖
// one byte holding the payload's length; the payload is the sorted lines
// "key:value" (values of integers in base 36) joined by "\n", at most 159
// bytes. len is the length of b64 in base 36, zero-padded to 2 characters;
// crc is the CRC-32 (IEEE) of everything before it, in base 36, zero-padded
// to 7 characters. glmcp mints the versioned routable format.
const (
	tokenVersion    = "01"
	crcLen          = 7
	lengthFieldLen  = 2
	legacyLen       = 20
	randomBytes     = 16
	maxRoutingBytes = 159
	minB64Len       = 27
	maxB64Len       = 300
	maxPrefixLen    = 20
	// maxTokenLen bounds what is parsed at all: the longest prefix, the
	// longest payload and the separators, length and checksum.
	maxTokenLen = maxPrefixLen + maxB64Len + 4 + lengthFieldLen + crcLen
	// maxV0Len was the bound of glmcp's own earlier format.
	maxV0Len = 255
)

// Token formats.
const (
	FormatLegacy TokenKind = iota + 1
	FormatRoutable
	FormatVersioned
	FormatGlmcpV0
)

// TokenKind names a personal access token format.
type TokenKind int

func (k TokenKind) String() string {
	switch k {
	case FormatLegacy:
		return "legacy"
	case FormatRoutable:
		return "routable"
	case FormatVersioned:
		return "versioned routable"
	case FormatGlmcpV0:
		return "glmcp v0"
	}
	return "unknown"
}

// ErrNotPersonalToken is returned by Parse for a credential that does not
// start with an accepted prefix (it may be an OAuth access token).
var ErrNotPersonalToken = errors.New("not a personal access token")

// ErrMalformed wraps every reason Parse refuses a token that does carry an
// accepted prefix.
var ErrMalformed = errors.New("malformed personal access token")

// ParsedToken is what a token's text says about it.
type ParsedToken struct {
	Kind   TokenKind
	Prefix string
	// Routing holds the decoded routing payload of routable tokens
	// (keys c, g, o, p, u, t); nil for the other formats.
	Routing map[string]int64
}

// UserID returns the `u` routing key, if any.
func (p ParsedToken) UserID() (int64, bool) {
	u, ok := p.Routing["u"]
	return u, ok
}

// TokenFormatConfig configures a TokenFormat.
type TokenFormatConfig struct {
	// Prefix is the personal access token prefix (GitLab's
	// personal_access_token_prefix; default "glpat-").
	Prefix string
	// InstancePrefix is GitLab's instance token prefix: when set, tokens
	// are minted with "<InstancePrefix>-<Prefix>".
	InstancePrefix string
	// CellID, when set, is minted as the `c` routing key.
	CellID *int64
	// OrganizationID is minted as `o` (default DefaultOrganizationID).
	OrganizationID int64
}

// TokenFormat mints personal access tokens and reads them back. It is
// immutable and safe for concurrent use.
type TokenFormat struct {
	prefix   string   // what Generate uses
	accepted []string // what Parse accepts, longest first
	cellID   *int64
	orgID    int64
}

// NewTokenFormat validates cfg. Tokens carrying the minted prefix or
// GitLab's default "glpat-" are accepted, so changing the prefix leaves
// earlier tokens valid.
func NewTokenFormat(cfg TokenFormatConfig) (*TokenFormat, error) {
	if cfg.Prefix == "" {
		cfg.Prefix = TokenPrefix
	}
	if !isTokenChars(cfg.Prefix) {
		return nil, fmt.Errorf("token prefix %q: only letters, digits, - and _ are allowed", cfg.Prefix)
	}
	prefix := cfg.Prefix
	if cfg.InstancePrefix != "" {
		if !isTokenChars(cfg.InstancePrefix) {
			return nil, fmt.Errorf("instance token prefix %q: only letters, digits, - and _ are allowed", cfg.InstancePrefix)
		}
		prefix = cfg.InstancePrefix + "-" + cfg.Prefix
	}
	if len(prefix) > maxPrefixLen {
		return nil, fmt.Errorf("token prefix %q: at most %d characters", prefix, maxPrefixLen)
	}
	if cfg.CellID != nil && *cfg.CellID < 0 {
		return nil, fmt.Errorf("cell id %d: must not be negative", *cfg.CellID)
	}
	if cfg.OrganizationID == 0 {
		cfg.OrganizationID = DefaultOrganizationID
	}
	if cfg.OrganizationID < 0 {
		return nil, fmt.Errorf("organization id %d: must be positive", cfg.OrganizationID)
	}
	accepted := []string{prefix}
	if prefix != TokenPrefix {
		accepted = append(accepted, TokenPrefix)
	}
	slices.SortFunc(accepted, func(a, b string) int { return len(b) - len(a) })
	return &TokenFormat{prefix: prefix, accepted: accepted, cellID: cfg.CellID, orgID: cfg.OrganizationID}, nil
}

// DefaultTokenFormat is GitLab's default: prefix "glpat-", no cell.
func DefaultTokenFormat() *TokenFormat {
	return &TokenFormat{prefix: TokenPrefix, accepted: []string{TokenPrefix}, orgID: DefaultOrganizationID}
}

// Prefix is the prefix minted tokens carry.
func (f *TokenFormat) Prefix() string { return f.prefix }

// Generate mints a versioned routable token for the user with userID,
// reading its 16 random bytes from r (crypto/rand.Reader when nil).
func (f *TokenFormat) Generate(r io.Reader, userID int64) (string, error) {
	if userID <= 0 {
		return "", fmt.Errorf("generate token: user id %d is not positive", userID)
	}
	if r == nil {
		r = rand.Reader
	}
	routing := map[string]int64{"o": f.orgID, "u": userID}
	if f.cellID != nil {
		routing["c"] = *f.cellID
	}
	keys := make([]string, 0, len(routing))
	for k := range routing {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	lines := make([]string, len(keys))
	for i, k := range keys {
		lines[i] = k + ":" + strconv.FormatInt(routing[k], 36)
	}
	payload := strings.Join(lines, "\n")
	if len(payload) > maxRoutingBytes { // cannot happen with three int64 keys
		return "", fmt.Errorf("generate token: routing payload of %d bytes exceeds %d", len(payload), maxRoutingBytes)
	}
	buf := make([]byte, randomBytes, randomBytes+len(payload)+1)
	if _, err := io.ReadFull(r, buf); err != nil {
		return "", fmt.Errorf("generate token: %w", err)
	}
	buf = append(append(buf, payload...), byte(len(payload)))
	b64 := base64.RawURLEncoding.EncodeToString(buf)
	signed := f.prefix + b64 + "." + tokenVersion + "." + base36(uint64(len(b64)), lengthFieldLen)
	return signed + checksum(signed), nil
}

// Parse reads raw without any I/O: prefix, shape, length field, version
// and checksum. A credential without an accepted prefix is
// ErrNotPersonalToken; any other refusal wraps ErrMalformed.
func (f *TokenFormat) Parse(raw string) (ParsedToken, error) {
	prefix := ""
	for _, p := range f.accepted {
		if strings.HasPrefix(raw, p) {
			prefix = p
			break
		}
	}
	if prefix == "" {
		return ParsedToken{}, ErrNotPersonalToken
	}
	if len(raw) > maxTokenLen {
		return ParsedToken{}, malformed("longer than %d characters", maxTokenLen)
	}
	rest := raw[len(prefix):]
	if len(rest) == legacyLen && isTokenChars(rest) {
		return ParsedToken{Kind: FormatLegacy, Prefix: prefix}, nil
	}
	last := strings.LastIndexByte(raw, '.')
	if last < len(prefix) {
		return ParsedToken{}, malformed("no checksum")
	}
	switch tail := raw[last+1:]; len(tail) {
	case crcLen:
		return parseV0(raw, prefix, last)
	case lengthFieldLen + crcLen:
		return parseRoutable(raw, prefix, last)
	default:
		return ParsedToken{}, malformed("checksum field of %d characters", len(tail))
	}
}

// parseV0 reads glmcp's earlier format: the checksum covers everything
// before the last dot.
func parseV0(raw, prefix string, last int) (ParsedToken, error) {
	if len(raw) > maxV0Len {
		return ParsedToken{}, malformed("longer than %d characters", maxV0Len)
	}
	body := raw[:last]
	if !strings.HasSuffix(body, "."+tokenVersion) {
		return ParsedToken{}, malformed("unsupported version")
	}
	payload := body[len(prefix) : len(body)-len(tokenVersion)-1]
	if len(payload) < legacyLen || !isTokenChars(payload) {
		return ParsedToken{}, malformed("bad payload")
	}
	if raw[last+1:] != checksum(body) {
		return ParsedToken{}, malformed("checksum mismatch")
	}
	return ParsedToken{Kind: FormatGlmcpV0, Prefix: prefix}, nil
}

// parseRoutable reads the routable and versioned routable formats.
func parseRoutable(raw, prefix string, last int) (ParsedToken, error) {
	signed := raw[:len(raw)-crcLen]
	if raw[len(raw)-crcLen:] != checksum(signed) {
		return ParsedToken{}, malformed("checksum mismatch")
	}
	kind, b64 := FormatRoutable, raw[len(prefix):last]
	if dot := strings.IndexByte(b64, '.'); dot >= 0 {
		if version := b64[dot+1:]; version != tokenVersion {
			return ParsedToken{}, malformed("unsupported version %q", version)
		}
		kind, b64 = FormatVersioned, b64[:dot]
	}
	lengthField := raw[last+1 : last+1+lengthFieldLen]
	n, err := parseBase36(lengthField)
	if err != nil || n != uint64(len(b64)) {
		return ParsedToken{}, malformed("length field %q does not match a payload of %d characters", lengthField, len(b64))
	}
	if len(b64) < minB64Len || len(b64) > maxB64Len || len(b64)%4 == 1 || !isTokenChars(b64) {
		return ParsedToken{}, malformed("bad payload")
	}
	data, err := base64.RawURLEncoding.DecodeString(b64)
	if err != nil || len(data) < randomBytes+1 {
		return ParsedToken{}, malformed("bad payload encoding")
	}
	payload := data[randomBytes : len(data)-1]
	if int(data[len(data)-1]) != len(payload) || len(payload) > maxRoutingBytes {
		return ParsedToken{}, malformed("bad payload length byte")
	}
	routing, err := parseRouting(string(payload))
	if err != nil {
		return ParsedToken{}, err
	}
	return ParsedToken{Kind: kind, Prefix: prefix, Routing: routing}, nil
}

// validRoutingKeys are GitLab's routing keys.
var validRoutingKeys = []string{"c", "g", "o", "p", "u", "t"}

// parseRouting reads "key:value" lines (blank lines skipped, as GitLab's
// decoder does), values in base 36.
func parseRouting(payload string) (map[string]int64, error) {
	routing := map[string]int64{}
	for line := range strings.SplitSeq(payload, "\n") {
		if line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.Contains(v, ":") || !slices.Contains(validRoutingKeys, k) {
			return nil, malformed("bad routing line %q", line)
		}
		if _, dup := routing[k]; dup {
			return nil, malformed("routing key %q repeated", k)
		}
		n, err := parseBase36(v)
		if err != nil || n > 1<<62 {
			return nil, malformed("routing value of %q is not base 36", k)
		}
		routing[k] = int64(n)
	}
	if len(routing) == 0 {
		return nil, malformed("empty routing payload")
	}
	return routing, nil
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

// Digest returns the value stored in personal_access_tokens.token_digest:
// base64(SHA-256(token ‖ first 32 characters of the instance secret)), the
// digest GitLab stores, so a GitLab instance sharing the secret agrees.
func Digest(token, secret string) string {
	if len(secret) > 32 {
		secret = secret[:32]
	}
	h := sha256.New()
	h.Write([]byte(token))
	h.Write([]byte(secret))
	return base64.StdEncoding.EncodeToString(h.Sum(nil))
}

// checksum is the CRC-32 (IEEE) of s in base 36, zero-padded to 7.
func checksum(s string) string {
	return base36(uint64(crc32.ChecksumIEEE([]byte(s))), crcLen)
}

func base36(n uint64, width int) string {
	s := strconv.FormatUint(n, 36)
	if len(s) < width {
		s = strings.Repeat("0", width-len(s)) + s
	}
	return s
}

// parseBase36 accepts only lower-case base-36 digits (what GitLab writes).
func parseBase36(s string) (uint64, error) {
	if s == "" {
		return 0, errors.New("empty")
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'z') {
			return 0, errors.New("not base 36")
		}
	}
	return strconv.ParseUint(s, 36, 64)
}

func isTokenChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
		default:
			return false
		}
	}
	return true
}
