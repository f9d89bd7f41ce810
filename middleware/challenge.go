package middleware

import "strings"

// realm is the realm of every challenge, as GitLab sends it.
const realm = "GitLab"

// challenge401 returns the WWW-Authenticate value of a 401:
//
//	Bearer realm="GitLab", error="invalid_token", error_description="…", resource_metadata="…"
//
// error and error_description are left out when errCode is "" (no token was
// presented, RFC 6750 §3.1), error_description also when description is "",
// and resource_metadata when metadataURL is "".
func challenge401(metadataURL, errCode, description string) string {
	params := []string{param("realm", realm)}
	if errCode != "" {
		params = append(params, param("error", errCode))
		if description != "" {
			params = append(params, param("error_description", description))
		}
	}
	if metadataURL != "" {
		params = append(params, param("resource_metadata", metadataURL))
	}
	return "Bearer " + strings.Join(params, ", ")
}

// challengeInsufficientScope returns the WWW-Authenticate value of a 403
// for a token that lacks scope (RFC 6750 §3.1; the MCP authorization spec's
// step-up flow):
//
//	Bearer error="insufficient_scope", scope="…", error_description="…", resource_metadata="…"
//
// scope lists every scope the operation needs, space separated.
// error_description and resource_metadata are left out when empty.
func challengeInsufficientScope(metadataURL, scope, description string) string {
	params := []string{param("realm", realm), param("error", "insufficient_scope"), param("scope", scope)}
	if description != "" {
		params = append(params, param("error_description", description))
	}
	if metadataURL != "" {
		params = append(params, param("resource_metadata", metadataURL))
	}
	return "Bearer " + strings.Join(params, ", ")
}

// param renders name="value" with value as an RFC 9110 quoted-string.
func param(name, value string) string {
	return name + `="` + quoteParam(value) + `"`
}

// quoteParam escapes \ and " and replaces what a quoted-string in a challenge
// may not hold: control characters (CR and LF would split the header)
// become a space, and non-ASCII becomes "?" (RFC 6750 §3 limits error,
// error_description and scope to printable ASCII).
func quoteParam(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\\' || r == '"':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			b.WriteByte(' ')
		case r > 0x7e:
			b.WriteByte('?')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
