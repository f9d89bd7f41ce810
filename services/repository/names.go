package repository

import (
	"fmt"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

// CleanPath checks a file path from a caller and returns it without
// leading/trailing slashes. It refuses what could leave the tree or
// confuse git: an absolute path, ".." or "." segments, empty segments, NUL
// and other control bytes, backslashes, and a ".git" segment.
func CleanPath(p string) (string, error) {
	bad := func(why string) (string, error) {
		return "", fmt.Errorf("file path %q: %s: %w", p, why, models.ErrInvalidInput)
	}
	if p == "" {
		return bad("empty")
	}
	if strings.HasPrefix(p, "/") {
		return bad("absolute paths are not allowed")
	}
	if len(p) > 4096 {
		return bad("longer than 4096 bytes")
	}
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == 0:
			return bad("contains a NUL byte")
		case c < 0x20 || c == 0x7f:
			return bad("contains a control character")
		case c == '\\':
			return bad("contains a backslash")
		}
	}
	p = strings.TrimSuffix(p, "/")
	for _, seg := range strings.Split(p, "/") {
		switch {
		case seg == "":
			return bad("empty path segment")
		case seg == "." || seg == "..":
			return bad("path traversal (\".\" or \"..\") is not allowed")
		case strings.EqualFold(seg, ".git"):
			return bad("\".git\" is not allowed in a path")
		}
	}
	return p, nil
}

// cleanDir is CleanPath for a directory, where "" and "/" mean the root.
func cleanDir(p string) (string, error) {
	if p == "" || p == "/" {
		return "", nil
	}
	return CleanPath(p)
}

// ValidateBranchName applies git check-ref-format's rules to a branch name
// (without "refs/heads/"), plus GitLab's: not "HEAD", not a full object id.
func ValidateBranchName(name string) error {
	if err := validateRefName(name); err != nil {
		return fmt.Errorf("branch name %q: %s: %w", name, err, models.ErrInvalidInput)
	}
	if name == "HEAD" || strings.HasPrefix(name, "refs/") || IsFullHash(name) {
		return fmt.Errorf("branch name %q is reserved: %w", name, models.ErrInvalidInput)
	}
	return nil
}

// validateRefName returns why name breaks git's ref name rules, or nil.
func validateRefName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("empty")
	case len(name) > 255:
		return fmt.Errorf("longer than 255 bytes")
	case name == "@":
		return fmt.Errorf("\"@\" alone")
	case strings.HasPrefix(name, "-"):
		return fmt.Errorf("starts with \"-\"")
	case strings.HasPrefix(name, "/"), strings.HasSuffix(name, "/"):
		return fmt.Errorf("starts or ends with \"/\"")
	case strings.HasSuffix(name, "."), strings.HasSuffix(name, ".lock"):
		return fmt.Errorf("ends with \".\" or \".lock\"")
	case strings.Contains(name, ".."), strings.Contains(name, "//"), strings.Contains(name, "@{"):
		return fmt.Errorf("contains \"..\", \"//\" or \"@{\"")
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c < 0x20 || c == 0x7f || strings.IndexByte(" ~^:?*[\\", c) >= 0 {
			return fmt.Errorf("contains %q", string(c))
		}
	}
	for _, seg := range strings.Split(name, "/") {
		if strings.HasPrefix(seg, ".") || strings.HasSuffix(seg, ".lock") {
			return fmt.Errorf("a component starts with \".\" or ends with \".lock\"")
		}
	}
	return nil
}

// validateRev checks a revision from a caller before it reaches the
// resolver: no NUL or control bytes, no leading "-", bounded length.
func validateRev(rev string) error {
	if rev == "" {
		return fmt.Errorf("ref is empty: %w", models.ErrInvalidInput)
	}
	if len(rev) > 1024 || strings.HasPrefix(rev, "-") {
		return fmt.Errorf("ref %q is not valid: %w", rev, models.ErrInvalidInput)
	}
	for i := 0; i < len(rev); i++ {
		if c := rev[i]; c < 0x20 || c == 0x7f {
			return fmt.Errorf("ref %q contains a control character: %w", rev, models.ErrInvalidInput)
		}
	}
	return nil
}

// skippedRevSyntax reports whether rev uses revision syntax go-git's
// resolver skips without a word: ":path" and ":/text" (blobs, trees,
// message search from HEAD), "^{tree}" and the other peels to a non-commit,
// and "@{…}" (reflog, dates, upstream, previous checkouts). The resolver
// would answer the commit before it, so such a revision must not resolve.
// What it applies stays: a ref or commit id, "~n", "^n", "^{/regex}", and
// "^{}" and "^{commit}" (every revision is peeled to its commit anyway).
func skippedRevSyntax(rev string) bool {
	for i := 0; i < len(rev); i++ {
		switch {
		case strings.HasPrefix(rev[i:], "^{"):
			end := strings.IndexByte(rev[i:], '}')
			if end < 0 {
				return false // the resolver refuses it
			}
			if kind := rev[i+2 : i+end]; kind != "" && kind != "commit" && !strings.HasPrefix(kind, "/") {
				return true
			}
			i += end
		case rev[i] == ':', strings.HasPrefix(rev[i:], "@{"):
			return true
		}
	}
	return false
}

// IsFullHash reports whether s is a full (40 hex digit) object id, in
// either case.
func IsFullHash(s string) bool {
	if len(s) != 40 {
		return false
	}
	return isHex(s)
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return s != ""
}
