package resources

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"mime"
	"path"
	"strings"
	"unicode/utf8"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
)

// readProject reads the project's metadata (GitLab's project JSON fields
// that matter to an agent) and, when there is one, the README of its
// default branch as a second item. A project the caller may not read reads
// like a missing one.
func (s *Service) readProject(ctx context.Context, sc models.Scope, uri string, t target) ([]Contents, error) {
	u := user(sc)
	p, level, err := s.store.FindProjectWithRoleByPath(ctx, t.project, u.ID)
	if errors.Is(err, models.ErrNotFound) || (err == nil && !access.CanReadProject(u, p, level)) {
		return nil, &NotFoundError{Kind: "Resource", Name: uri}
	}
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(map[string]any{
		"id": p.ID, "name": p.Name, "path": p.Path, "path_with_namespace": p.PathWithNamespace,
		"description": p.Description, "visibility": p.Visibility, "default_branch": p.DefaultBranch,
		"web_url": p.WebURL(s.base), "created_at": p.CreatedAt, "updated_at": p.UpdatedAt,
	})
	if err != nil {
		return nil, err
	}
	out := []Contents{{URI: uri, MimeType: "application/json", Text: string(raw)}}
	if p.DefaultBranch == "" {
		return out, nil
	}
	for _, name := range []string{"README.md", "README"} {
		readme := target{kind: kindBlob, project: p.PathWithNamespace, ref: p.DefaultBranch, path: name}
		c, err := s.readBlob(ctx, sc, blobURI(s.base, p.PathWithNamespace, p.DefaultBranch, name), readme)
		if err == nil {
			return append(out, c...), nil
		}
		if !IsNotFound(err) && !IsInvalid(err) {
			return nil, err
		}
	}
	return out, nil
}

// readMergeRequest reads get_merge_request and, as a second item, the
// merge request's diff as one unified patch.
func (s *Service) readMergeRequest(ctx context.Context, sc models.Scope, uri string, t target) ([]Contents, error) {
	args := map[string]any{"project_id": t.project, "merge_request_iid": t.iid}
	raw, err := s.callTool(ctx, sc, uri, "get_merge_request", args)
	if err != nil {
		return nil, err
	}
	out := []Contents{{URI: uri, MimeType: "application/json", Text: string(raw)}}
	if s.patches == nil {
		return out, nil
	}
	patch, err := s.mergeRequestPatch(ctx, sc, uri, t)
	if err != nil {
		return nil, err
	}
	return append(out, Contents{URI: uri + ".diff", MimeType: "text/x-diff", Text: patch}), nil
}

// mergeRequestPatch reads the merge request's diff as one unified patch,
// straight from git (Options.Patches), bounded by the service's MaxBytes
// (cut with a note). Without a reader it is a missing resource.
func (s *Service) mergeRequestPatch(ctx context.Context, sc models.Scope, uri string, t target) (string, error) {
	if s.patches == nil {
		return "", &NotFoundError{Kind: "Resource", Name: uri + ".diff"}
	}
	patch, cut, err := s.patches.MergeRequestPatch(ctx, user(sc), t.project, t.iid, s.maxBytes-64)
	switch {
	case errors.Is(err, models.ErrNotFound), errors.Is(err, models.ErrInvalidInput):
		return "", &NotFoundError{Kind: "Resource", Name: uri}
	case err != nil:
		return "", err
	case cut:
		patch += "\n… (diff cut: read the rest with get_merge_request_diffs)\n"
	}
	return patch, nil
}

// unwrapItems returns the items member of a {items, pageInfo} list, or raw
// when it is a plain array.
func unwrapItems(raw json.RawMessage) json.RawMessage {
	var l struct {
		Items json.RawMessage `json:"items"`
	}
	if json.Unmarshal(raw, &l) == nil && len(l.Items) > 0 {
		return l.Items
	}
	return raw
}

// readBlob reads a file with get_repository_file: text as text, anything
// else as a base64 blob with the MIME type of its extension.
func (s *Service) readBlob(ctx context.Context, sc models.Scope, uri string, t target) ([]Contents, error) {
	raw, err := s.callTool(ctx, sc, uri, "get_repository_file",
		map[string]any{"project_id": t.project, "file_path": t.path, "ref": t.ref, "limit": 2000})
	if err != nil {
		return nil, err
	}
	var f struct {
		Content  string `json:"content"`
		Encoding string `json:"encoding"`
		Metadata struct {
			SizeBytes int64 `json:"size_bytes"`
			Truncated bool  `json:"truncated"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, err
	}
	if f.Metadata.SizeBytes > int64(s.maxBytes) || f.Metadata.Truncated {
		return nil, invalidf("Resource too large: " + quote(uri) + " is " + itoa(f.Metadata.SizeBytes) +
			" bytes, more than one read returns; read it in ranges with the get_repository_file tool (offset, limit)")
	}
	data := []byte(f.Content)
	if f.Encoding == "base64" {
		if data, err = base64.StdEncoding.DecodeString(f.Content); err != nil {
			return nil, err
		}
	}
	mt := mime.TypeByExtension(path.Ext(t.path))
	if utf8.Valid(data) && !strings.ContainsRune(string(data), 0) {
		if mt == "" || !(strings.HasPrefix(mt, "text/") || strings.Contains(mt, "json") || strings.Contains(mt, "xml")) {
			mt = "text/plain"
		}
		if i := strings.IndexByte(mt, ';'); i >= 0 {
			mt = mt[:i]
		}
		return []Contents{{URI: uri, MimeType: mt, Text: string(data)}}, nil
	}
	if mt == "" {
		mt = "application/octet-stream"
	}
	return []Contents{{URI: uri, MimeType: mt, Blob: data, IsBlob: true}}, nil
}

// jobLogTail is how much of a job's log a resource shows: the end, where
// failures are.
const jobLogTail = 64 << 10

// readJob reads a job's log with get_job: its last 64 KiB.
func (s *Service) readJob(ctx context.Context, sc models.Scope, uri string, t target) ([]Contents, error) {
	log, err := s.jobLog(ctx, sc, uri, t.project, t.iid, jobLogTail)
	if err != nil {
		return nil, err
	}
	return []Contents{{URI: uri, MimeType: "text/plain", Text: log}}, nil
}

// jobLog returns the last tail bytes of a job's log, read with get_job's
// log facet: one byte first to learn the log's size, then the tail.
func (s *Service) jobLog(ctx context.Context, sc models.Scope, uri, project string, id int64, tail int) (string, error) {
	type logFacet struct {
		Log struct {
			Metadata struct {
				TotalBytes int64 `json:"total_bytes"`
			} `json:"metadata"`
			Content string `json:"content"`
		} `json:"log"`
	}
	args := map[string]any{"id": projectRef(project), "job_id": id, "include": []string{"log"}, "byte_limit": 1}
	head, err := s.callTool(ctx, sc, uri, "get_job", args)
	if err != nil {
		return "", err
	}
	var h logFacet
	if err := json.Unmarshal(head, &h); err != nil {
		return "", err
	}
	args["byte_offset"] = max(h.Log.Metadata.TotalBytes-int64(tail), 0)
	args["byte_limit"] = tail
	raw, err := s.callTool(ctx, sc, uri, "get_job", args)
	if err != nil {
		return "", err
	}
	var l logFacet
	if err := json.Unmarshal(raw, &l); err != nil {
		return "", err
	}
	return l.Log.Content, nil
}

// cut returns at most n bytes of s, not splitting a UTF-8 sequence.
func cut(s string, n int) string {
	if n < 0 {
		n = 0
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }
