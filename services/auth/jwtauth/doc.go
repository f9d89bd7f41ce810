// Package jwtauth verifies OAuth 2.0 JWT access tokens (RFC 9068) for
// glmcp's MCP endpoints, which act as OAuth resource servers.
//
// A [Verifier] is built once from a [Config] and is safe for concurrent use.
// [Verifier.Verify] checks, in order:
//
//   - shape: three base64url segments, at most 16 KiB;
//   - typ header: "at+jwt" or "application/at+jwt" (case-insensitive), or
//     absent. RFC 9068 §2.1 requires the header; absence is tolerated for
//     issuers that predate it, but any other value (notably "JWT", which
//     OpenID Connect ID tokens carry) is refused, so an ID token cannot be
//     replayed as an access token. Keycloak issues typ "JWT" unless the
//     client's "use at+jwt" compatibility setting is turned on;
//   - alg, pinned by the key type: an RSA key (≥ 2048 bits) verifies only
//     RS256, an EC P-256 key only ES256, an Ed25519 key only EdDSA, and a
//     shared secret only HS256. "none" is always refused, and HS256 is
//     never accepted when the keys are public keys (no alg confusion);
//   - the signing key, by kid, from a JWKS (file or URL), a PEM public key
//     or a shared secret;
//   - iss equals Config.Issuer; aud contains the audience the caller passes
//     (the endpoint's canonical URL: RFC 8707 audience binding); exp is
//     required; exp, nbf and iat are checked with Config.Leeway;
//   - the user claim (sub as a numeric user id, or a username claim).
//
// Every refusal is a [*TokenError] whose Reason is safe to put in an RFC 6750
// error_description: it never contains the token or key material. Its Err
// (for logs) holds the underlying cause.
//
// # Key sets
//
// A JWKS file is read when [New] runs (a broken file is a configuration
// error). A JWKS URL is fetched on first use (or by [Verifier.Refresh]).
// Keys are cached; a token whose kid is not in the cache triggers one
// reload, at most once per 30 s across all unknown kids (failed attempts
// count), and concurrent misses share one reload. Scheduled loads (first
// use, Refresh, the hourly reload) keep their own 30 s window and do not
// hold back an unknown-kid reload, so a key rotated in just after a
// warm-up verifies at once. Keys older than one hour are reloaded on the
// next use; if that reload fails the old keys stay in use.
//
// URL fetches use http or https, time out after 5 s, read at most 1 MiB and
// follow at most 3 redirects. Unless Config.AllowPrivateJWKSHosts is set,
// the dialer refuses loopback, private, link-local and other special-purpose
// addresses ([ErrDisallowedAddress]). The check runs on the resolved address
// at connect time, so DNS rebinding cannot get around it; for the same
// reason environment proxies are not used while the check is on.
//
// The package knows nothing of HTTP routing, gin or the database: the caller
// looks the user up and maps a [*TokenError] to a 401 challenge.
package jwtauth
