package middleware

import (
	"net/http"
	"strings"
)

// CredentialKind is what a request presents as its credential.
type CredentialKind uint8

const (
	// NoCredential: neither an Authorization nor a PRIVATE-TOKEN header
	// (blank values count as absent).
	NoCredential CredentialKind = iota
	// BearerCredential: `Authorization: Bearer <token>` (scheme matched
	// case-insensitively).
	BearerCredential
	// PrivateTokenCredential: `PRIVATE-TOKEN: <token>`, GitLab's header.
	PrivateTokenCredential
	// RefusedCredential: an Authorization header glmcp does not accept
	// (Basic, any other scheme, or Bearer without a token) and no
	// PRIVATE-TOKEN to fall back to. It is a credential that failed: it is
	// answered 401 and spends the address's failed-authentication budget,
	// like a bad token.
	RefusedCredential
)

// Credential is the credential a request carries, as [CredentialOf]
// reads it.
type Credential struct {
	Kind CredentialKind
	// Token is the token of a Bearer or PRIVATE-TOKEN credential.
	Token string
	// Scheme is the Authorization scheme of a refused credential, as sent
	// ("Basic"); "" when the header has no scheme.
	Scheme string
}

// Presented reports whether the request carries any credential, usable or
// not: such a request is judged by authentication (and its failed-auth
// budget), not by the anonymous per-address rate limit.
func (c Credential) Presented() bool { return c.Kind != NoCredential }

// CredentialOf is the one reading of a request's credential; rate limiting
// and authentication both ask it. A usable `Authorization: Bearer` token
// wins, then `PRIVATE-TOKEN`; an Authorization header that is neither
// (Basic, another scheme, an empty Bearer) is a refused credential.
func CredentialOf(r *http.Request) Credential {
	authz := strings.TrimSpace(r.Header.Get("Authorization"))
	var scheme string
	if authz != "" {
		var tok string
		scheme, tok, _ = strings.Cut(authz, " ")
		if strings.EqualFold(scheme, "Bearer") {
			if tok = strings.TrimSpace(tok); tok != "" {
				return Credential{Kind: BearerCredential, Token: tok}
			}
		}
	}
	if tok := strings.TrimSpace(r.Header.Get("PRIVATE-TOKEN")); tok != "" {
		return Credential{Kind: PrivateTokenCredential, Token: tok}
	}
	if authz != "" {
		return Credential{Kind: RefusedCredential, Scheme: scheme}
	}
	return Credential{Kind: NoCredential}
}

// refusedReason says why a refused credential is refused and what to send
// instead.
func refusedReason(c Credential) string {
	const instead = " Send a GitLab personal access token as \"Authorization: Bearer TOKEN\" or \"PRIVATE-TOKEN: TOKEN\"."
	switch {
	case strings.EqualFold(c.Scheme, "Basic"):
		return "Basic authentication is not accepted." + instead
	case strings.EqualFold(c.Scheme, "Bearer"):
		return "The Bearer credential is empty." + instead
	default:
		return "The Authorization scheme " + quoteScheme(c.Scheme) + " is not accepted." + instead
	}
}

// quoteScheme quotes a client-chosen scheme for a message, cut short and
// reduced to printable ASCII.
func quoteScheme(s string) string {
	if len(s) > 32 {
		s = s[:32]
	}
	b := []byte(s)
	for i, c := range b {
		if c < 0x21 || c > 0x7e || c == '"' {
			b[i] = '?'
		}
	}
	return `"` + string(b) + `"`
}
