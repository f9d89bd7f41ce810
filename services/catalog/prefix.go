package catalog

import (
	"fmt"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

// MaxPrefixLen is the longest tool name prefix accepted.
const MaxPrefixLen = 32

// StripPrefix turns a name from tools/call back into the stored tool name by
// removing the prefix the caller asked for in [HeaderToolNamePrefix]. With
// no prefix the name is returned as is. ok is false when name does not start
// with the prefix or is nothing but the prefix: no listed tool has that name,
// and the caller should answer as for an unknown tool.
func StripPrefix(prefix, name string) (string, bool) {
	if prefix == "" {
		return name, true
	}
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok || rest == "" {
		return name, false
	}
	return rest, true
}

// parsePrefix validates the trimmed prefix header. Errors wrap
// models.ErrInvalidInput.
func parsePrefix(raw string) (string, error) {
	prefix := strings.TrimSpace(raw)
	for i := 0; i < len(prefix); i++ {
		if !prefixByte(prefix[i]) {
			return "", fmt.Errorf("%s: character %q at position %d is not allowed (only letters, digits, '_' and '-'): %w",
				HeaderToolNamePrefix, prefix[i], i+1, models.ErrInvalidInput)
		}
	}
	if len(prefix) > MaxPrefixLen {
		return "", fmt.Errorf("%s: %d characters, the limit is %d: %w",
			HeaderToolNamePrefix, len(prefix), MaxPrefixLen, models.ErrInvalidInput)
	}
	return prefix, nil
}

func prefixByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}
