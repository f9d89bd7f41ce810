package resources

import (
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kinds of GitLab resources.
const (
	kindProject      = "project"
	kindIssue        = "issue"
	kindMergeRequest = "merge_request"
	kindBlob         = "blob"
	kindJob          = "job"
)

// target is a parsed GitLab web URL.
type target struct {
	kind    string
	project string // path_with_namespace
	iid     int64  // issue / merge request iid, job id
	ref     string // blob
	path    string // blob
}

// maxURIBytes bounds what is parsed; longer URIs are not ours.
const maxURIBytes = 4096

// templates are the resource templates of GitLab objects, under base.
func gitlabTemplates(base string) []Template {
	return []Template{
		{URITemplate: base + "/{+project}", Name: "project", Title: "Project",
			Description: "A project's metadata and README, by its path (group/subgroup/project).", MimeType: "application/json"},
		{URITemplate: base + "/{+project}/-/issues/{iid}", Name: "issue", Title: "Issue",
			Description: "An issue (work item) of a project, by its iid.", MimeType: "application/json"},
		{URITemplate: base + "/{+project}/-/work_items/{iid}", Name: "work_item", Title: "Work item",
			Description: "A work item of a project, by its iid (the same object as the issue URL).", MimeType: "application/json"},
		{URITemplate: base + "/{+project}/-/merge_requests/{iid}", Name: "merge_request", Title: "Merge request",
			Description: "A merge request with its description; its diff is the second content item.", MimeType: "application/json"},
		{URITemplate: base + "/{+project}/-/blob/{ref}/{+path}", Name: "file", Title: "File at a ref",
			Description: "A repository file at a branch, tag or commit: text, or base64 for binary files."},
		{URITemplate: base + "/{+project}/-/jobs/{id}", Name: "job_log", Title: "CI job log",
			Description: "A CI job's log (its last part when the log is large).", MimeType: "text/plain"},
	}
}

// parseTarget parses uri as a GitLab web URL under base; ok is false for
// anything else.
func parseTarget(base, uri string) (target, bool) {
	if len(uri) > maxURIBytes || !utf8.ValidString(uri) || strings.ContainsAny(uri, "?#\x00") {
		return target{}, false
	}
	rest, ok := strings.CutPrefix(uri, base+"/")
	if !ok || rest == "" {
		return target{}, false
	}
	project, sub, hasSub := strings.Cut(rest, "/-/")
	project, err := url.PathUnescape(project)
	if err != nil || !validProjectPath(project) {
		return target{}, false
	}
	t := target{project: project}
	if !hasSub {
		t.kind = kindProject
		return t, true
	}
	verb, tail, _ := strings.Cut(sub, "/")
	switch verb {
	case "issues", "work_items":
		t.kind = kindIssue
		t.iid, ok = positiveInt(tail)
	case "merge_requests":
		t.kind = kindMergeRequest
		t.iid, ok = positiveInt(tail)
	case "jobs":
		t.kind = kindJob
		t.iid, ok = positiveInt(tail)
	case "blob":
		t.kind = kindBlob
		ref, path, found := strings.Cut(tail, "/")
		if !found {
			return target{}, false
		}
		if t.ref, err = url.PathUnescape(ref); err != nil {
			return target{}, false
		}
		if t.path, err = url.PathUnescape(path); err != nil {
			return target{}, false
		}
		ok = t.ref != "" && validFilePath(t.path)
	default:
		return target{}, false
	}
	if !ok {
		return target{}, false
	}
	return t, true
}

// validProjectPath accepts group/…/project paths: at least two non-empty
// segments, none of them "." or "..".
func validProjectPath(p string) bool {
	segs := strings.Split(p, "/")
	if len(segs) < 2 {
		return false
	}
	for _, s := range segs {
		if s == "" || s == "." || s == ".." || s == "-" {
			return false
		}
	}
	return true
}

// validFilePath refuses empty, absolute and traversing paths.
func validFilePath(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.ContainsRune(p, 0) {
		return false
	}
	for _, s := range strings.Split(p, "/") {
		if s == "" || s == "." || s == ".." {
			return false
		}
	}
	return true
}

// positiveInt parses a decimal id without sign or leading zeros.
func positiveInt(s string) (int64, bool) {
	if s == "" || len(s) > 18 || s[0] == '0' {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n > 0
}

// projectURI, issueURI … build canonical URIs.
func projectURI(base, project string) string { return base + "/" + escapePath(project) }

func issueURI(base, project string, iid int64) string {
	return projectURI(base, project) + "/-/issues/" + strconv.FormatInt(iid, 10)
}

func mergeRequestURI(base, project string, iid int64) string {
	return projectURI(base, project) + "/-/merge_requests/" + strconv.FormatInt(iid, 10)
}

func jobURI(base, project string, id int64) string {
	return projectURI(base, project) + "/-/jobs/" + strconv.FormatInt(id, 10)
}

func blobURI(base, project, ref, path string) string {
	return projectURI(base, project) + "/-/blob/" + url.PathEscape(ref) + "/" + escapePath(path)
}

// escapePath escapes each segment of a slash-separated path.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}
