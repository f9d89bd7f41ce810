package sanitize

// What of a tool's result is repository content (code): returned as it
// is and only flagged. Every other string a tool returns is user-written
// text (titles, descriptions, notes, commit messages, wiki pages, job
// logs) and is cleaned.

// codeRule is what of one tool's result is code.
type codeRule struct {
	whole bool
	keep  func(key string) bool
}

// all marks a tool whose whole result is repository content.
var all = codeRule{whole: true, keep: func(string) bool { return true }}

// keys marks the members of a result that hold repository content.
func keys(names ...string) codeRule {
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[n] = true
	}
	return codeRule{keep: func(k string) bool { return set[k] }}
}

// code is, per tool (by its name, aliases resolved), what of its result
// is code.
var code = map[string]codeRule{
	"get_repository_file":         all,
	"get_artifact_file":           all,
	"get_merge_request_diffs":     all,
	"get_merge_request_conflicts": all,
	"list_repository_tree":        all,
	"semantic_search":             all,
	// A commit's or merge request's diffs (and conflict files) beside the
	// user-written message, title and description.
	"get_commit":        keys("diff"),
	"get_merge_request": keys("diff", "content"),
	// Blob results: the matched lines and the file's names.
	"search": keys("data", "filename", "path"),
}

// Code returns the keep function of tool's results for [JSON] (nil: all
// of it is user-written text), and whether the whole result is code (its
// text, when not JSON, is then flagged rather than cleaned).
func Code(tool string) (keep func(string) bool, whole bool) {
	r := code[tool]
	return r.keep, r.whole
}
