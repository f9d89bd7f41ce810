package catalog

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

// GitLab's filter headers (doc/endpoint.md, "GitLab headers"). Header names
// are case-insensitive on the wire; values are passed to [ParseFilter] raw.
const (
	HeaderEnabledTools    = "X-Gitlab-Enabled-Mcp-Server-Tools"
	HeaderEnabledToolsets = "X-Gitlab-Enabled-Mcp-Server-Toolsets"
	HeaderToolNamePrefix  = "X-Gitlab-Mcp-Server-Tool-Name-Prefix"
)

// ToolsetAll in the toolsets header enables every toolset.
const ToolsetAll = "all"

// Toolsets returns the names the toolsets header accepts, in the order
// error messages show them: GitLab's toolsets in GitLab's order
// (models.GitLabToolsets, accepted even before glmcp has a tool in them),
// the other toolsets of the given tools in byte order, then "all".
// Toolset membership is data (each tool names its toolset), so a new
// toolset needs no code here.
func Toolsets(names []string) []string {
	set := map[string]struct{}{}
	for _, n := range names {
		if n != "" && n != ToolsetAll && !slices.Contains(models.GitLabToolsets, n) {
			set[n] = struct{}{}
		}
	}
	out := slices.Clone(models.GitLabToolsets)
	extra := make([]string, 0, len(set))
	for n := range set {
		extra = append(extra, n)
	}
	slices.Sort(extra)
	return append(append(out, extra...), ToolsetAll)
}

// Filter is the parsed form of one request's filter headers. The zero value
// (no headers) admits every toolset but the opt-in ones and adds no prefix.
// A Filter is immutable once parsed and safe for concurrent use.
type Filter struct {
	// active is true when the tools or toolsets header named anything;
	// withToolsets when the toolsets header did (which turns meta on: the
	// tools header alone lists exactly the tools it names, as GitLab does).
	active       bool
	withToolsets bool
	// all is true when the toolsets header named "all".
	all bool
	// tools holds the names from the tools header (matched against tool
	// names and aliases); toolsets the lower-cased toolsets, meta excluded
	// because it is always on.
	tools    map[string]struct{}
	toolsets map[string]struct{}
	prefix   string
}

// ParseFilter parses the raw values of the tools, toolsets and prefix
// headers (empty strings when absent); known lists the valid toolsets (see
// [Toolsets]).
//
// Both lists are comma-separated with entries trimmed; a header that is blank
// or holds only blanks and commas counts as absent, and with neither header
// every toolset but the opt-in ones is listed (models.OptInToolsets,
// GitLab's rule). Tool names are case-sensitive and unknown ones are
// ignored. Toolsets are lower-cased; "all" enables every toolset, and
// toolsets not in known are an *UnknownToolsetsError naming every one of
// them. The prefix is trimmed, at most [MaxPrefixLen] characters of
// [A-Za-z0-9_-].
//
// Errors wrap [models.ErrInvalidInput].
func ParseFilter(toolsHeader, toolsetsHeader, prefixHeader string, known []string) (Filter, error) {
	var f Filter
	for name := range listEntries(toolsHeader) {
		if f.tools == nil {
			f.tools = make(map[string]struct{})
		}
		f.tools[name] = struct{}{}
		f.active = true
	}
	var unknown []string
	for name := range listEntries(toolsetsHeader) {
		name = strings.ToLower(name)
		if !slices.Contains(known, name) {
			unknown = append(unknown, clip(name))
			continue
		}
		f.active, f.withToolsets = true, true
		switch name {
		case ToolsetAll:
			f.all = true
		case models.ToolsetMeta:
			// Always on; naming it changes nothing but activates the filter.
		default:
			if f.toolsets == nil {
				f.toolsets = make(map[string]struct{})
			}
			f.toolsets[name] = struct{}{}
		}
	}
	if len(unknown) > 0 {
		valid := slices.DeleteFunc(slices.Clone(known), func(n string) bool { return n == ToolsetAll })
		return Filter{}, &UnknownToolsetsError{Names: unknown, Valid: valid}
	}
	prefix, err := parsePrefix(prefixHeader)
	if err != nil {
		return Filter{}, err
	}
	f.prefix = prefix
	return f, nil
}

// UnknownToolsetsError is a toolsets header naming toolsets that do not
// exist. Its text is GitLab's ("Unknown toolsets: a, b. Valid toolsets:
// meta, core, …"); it wraps models.ErrInvalidInput.
type UnknownToolsetsError struct {
	// Names are the unknown entries, lower-cased, in header order (each
	// clipped to 64 characters).
	Names []string
	// Valid are the toolsets the header accepts, "all" aside.
	Valid []string
}

func (e *UnknownToolsetsError) Error() string {
	return "Unknown toolsets: " + strings.Join(e.Names, ", ") + ". Valid toolsets: " + strings.Join(e.Valid, ", ")
}

// Unwrap makes the error a models.ErrInvalidInput.
func (e *UnknownToolsetsError) Unwrap() error { return models.ErrInvalidInput }

// Visible reports whether t is listed for a caller on the route group of
// edition with a read-only (or not) token under this filter. It is pure and
// does not allocate (bar annotations whose keys use JSON escapes), so change
// notification can call it per listener and tool.
//
// A tool is visible when it is enabled, its edition is served by the group
// (CE tools on both groups, EE tools on the EE group only), the filter admits
// it (no filter and its toolset is not opt-in; or its toolset is named or
// "all", or is meta and the toolsets header is present; or its name or an
// alias is in the tools header), and, for a read-only token, it is
// annotated readOnlyHint: true.
func (f Filter) Visible(t *models.Tool, edition models.Edition, readOnly bool) bool {
	if t == nil || !t.Enabled || !EditionServes(edition, t.Edition) {
		return false
	}
	if !f.admits(t) {
		return false
	}
	return !readOnly || ReadOnly(t)
}

// Prefix returns the tool name prefix ("" for none).
func (f Filter) Prefix() string { return f.prefix }

// Fingerprint returns a stable short hash (16 hex digits) of the normalised
// filter and prefix: filters that list the same way under the same prefix
// share it regardless of entry order, case of toolsets, duplicates or blanks.
// Cursors are bound to it. It is computed on demand: only paging needs it.
func (f Filter) Fingerprint() string { return f.fingerprint() }

// admits applies the header part of the visibility rule.
func (f Filter) admits(t *models.Tool) bool {
	if !f.active {
		return !slices.Contains(models.OptInToolsets, t.Toolset)
	}
	if f.all || (f.withToolsets && t.Toolset == models.ToolsetMeta) {
		return true
	}
	if _, ok := f.toolsets[t.Toolset]; ok {
		return true
	}
	if len(f.tools) == 0 {
		return false
	}
	if _, ok := f.tools[t.Name]; ok {
		return true
	}
	for _, alias := range t.Aliases {
		if _, ok := f.tools[alias]; ok {
			return true
		}
	}
	return false
}

// EditionServes reports whether the route group of edition serves a tool of
// toolEdition (CE tools on both groups, EE tools on the EE group). Unknown
// editions serve and are served by nothing. It is the one edition rule:
// listing, calling and change notification all ask it.
func EditionServes(edition, toolEdition models.Edition) bool {
	switch toolEdition {
	case models.EditionCE:
		return edition == models.EditionCE || edition == models.EditionEE
	case models.EditionEE:
		return edition == models.EditionEE
	default:
		return false
	}
}

// listEntries yields the trimmed, non-empty entries of a comma list.
func listEntries(header string) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		for entry := range strings.SplitSeq(header, ",") {
			entry = strings.TrimSpace(entry)
			if entry == "" {
				continue
			}
			if !yield(entry) {
				return
			}
		}
	}
}

// fingerprint hashes a canonical, length-prefixed encoding of the filter.
// When "all" is named the tools list cannot change the result and is left
// out.
func (f Filter) fingerprint() string {
	h := sha256.New()
	var buf [binary.MaxVarintLen64]byte
	writeField := func(s string) {
		n := binary.PutUvarint(buf[:], uint64(len(s)))
		h.Write(buf[:n])
		h.Write([]byte(s))
	}
	writeField("glmcp-catalog-filter-v1")
	switch {
	case !f.active:
		writeField("none")
	case f.all:
		writeField("all")
	default:
		writeField("some")
		writeField(fmt.Sprint(f.withToolsets))
		for _, set := range []map[string]struct{}{f.tools, f.toolsets} {
			keys := make([]string, 0, len(set))
			for k := range set {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			writeField(fmt.Sprint(len(keys)))
			for _, k := range keys {
				writeField(k)
			}
		}
	}
	writeField(f.prefix)
	sum := h.Sum(nil)
	return hex.EncodeToString(sum[:8])
}

// clip shortens a caller-supplied value echoed in an error message.
func clip(s string) string {
	const limit = 64
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "…"
}
