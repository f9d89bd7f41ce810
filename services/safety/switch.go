package safety

import (
	"net/http"
	"strings"
)

// The request headers a client turns a switch on with (doc/security.md).
const (
	HeaderReadOnly = "X-Gitlab-Mcp-Read-Only"
	HeaderLockdown = "X-Gitlab-Mcp-Lockdown"
)

// On reports whether the switch named by header is on for a request: on
// for the instance, or the request's header says true. The instance
// setting is an upper bound: no header value turns an instance's switch
// off. The header is read as a boolean (true, 1, t, yes, case-insensitive,
// blanks trimmed); any other value, repeated lines included, leaves the
// switch as the instance has it.
func On(instance bool, h http.Header, header string) bool {
	if instance {
		return true
	}
	for _, v := range h.Values(header) {
		for _, part := range strings.Split(v, ",") {
			switch strings.ToLower(strings.TrimSpace(part)) {
			case "true", "1", "t", "yes":
				return true
			}
		}
	}
	return false
}
