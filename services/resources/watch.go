package resources

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/subscriptions"
)

// MaxSubscriptions bounds the resource URIs of one listen stream.
const MaxSubscriptions = 100

// Watched is the answer to a request to watch resources.
type Watched struct {
	// URIs are the requested URIs the caller may watch, in request order,
	// without duplicates: the ones to acknowledge.
	URIs []string
	// Keys maps each change key (see subscriptions.ResourceKey) to the
	// URIs it announces a change of.
	Keys map[string][]string
}

// Watch resolves the resource URIs a listen stream subscribes to into the
// change keys that announce them. A URI that is not a GitLab resource, or
// that the caller may not read, is left out without saying why (it reads
// like a missing one): the acknowledgement lists only what is watched.
//
// What announces a change of each kind:
//
//	project        its row (p:) and a move of its default branch (r:)
//	issue          its row (i:)
//	merge request  its row (m:) and a move of its source or target branch (r:)
//	file at a ref  a move of that branch or tag (r:); a commit SHA never changes
//	job log        its row (j:)
func (s *Service) Watch(ctx context.Context, sc models.Scope, uris []string) (Watched, error) {
	w := Watched{Keys: map[string][]string{}}
	seen := make(map[string]bool, len(uris))
	u := user(sc)
	for _, uri := range uris {
		if seen[uri] {
			continue
		}
		seen[uri] = true
		t, ok := parseTarget(s.base, uri)
		if !ok {
			continue
		}
		p, level, err := s.store.FindProjectWithRoleByPath(ctx, t.project, u.ID)
		if err != nil && !errors.Is(err, models.ErrNotFound) {
			return Watched{}, err
		}
		if err != nil || !access.CanReadProject(u, p, level) {
			continue
		}
		var keys []string
		ref := func(name string) string { return subscriptions.ResourceKey('r', p.ID, name) }
		switch t.kind {
		case kindProject:
			keys = []string{subscriptions.ResourceKey('p', p.ID, "")}
			if p.DefaultBranch != "" {
				keys = append(keys, ref(p.DefaultBranch))
			}
		case kindIssue, kindJob, kindBlob:
			// A read is the permission check (a confidential issue, a job
			// or repository the role may not see, a missing path); the
			// cheapest one of each kind: one line of a file, no job log.
			tool, args := probeTool(t)
			if _, err := s.callTool(ctx, sc, uri, tool, args); err != nil {
				if !IsNotFound(err) {
					return Watched{}, err
				}
				continue
			}
			switch t.kind {
			case kindIssue:
				keys = []string{subscriptions.ResourceKey('i', p.ID, strconv.FormatInt(t.iid, 10))}
			case kindJob:
				keys = []string{subscriptions.ResourceKey('j', p.ID, strconv.FormatInt(t.iid, 10))}
			default:
				keys = []string{ref(t.ref)}
			}
		case kindMergeRequest:
			raw, err := s.callTool(ctx, sc, uri, "get_merge_request",
				map[string]any{"project_id": t.project, "merge_request_iid": t.iid})
			if err != nil {
				if !IsNotFound(err) {
					return Watched{}, err
				}
				continue
			}
			var mr struct {
				SourceBranch string `json:"source_branch"`
				TargetBranch string `json:"target_branch"`
			}
			_ = json.Unmarshal(raw, &mr) // best effort: the row's key suffices
			keys = []string{subscriptions.ResourceKey('m', p.ID, strconv.FormatInt(t.iid, 10))}
			for _, b := range []string{mr.SourceBranch, mr.TargetBranch} {
				if b != "" {
					keys = append(keys, ref(b))
				}
			}
		default:
			continue
		}
		w.URIs = append(w.URIs, uri)
		for _, k := range keys {
			w.Keys[k] = append(w.Keys[k], uri)
		}
	}
	return w, nil
}

// probeTool is the smallest read that tells whether the caller may read
// t (an issue, a job or a file).
func probeTool(t target) (string, map[string]any) {
	switch t.kind {
	case kindIssue:
		return "get_issue", map[string]any{"id": t.project, "issue_iid": t.iid}
	case kindJob:
		return "get_job", map[string]any{"id": projectRef(t.project), "job_id": t.iid}
	}
	return "get_repository_file", map[string]any{"project_id": t.project, "file_path": t.path, "ref": t.ref, "limit": 1}
}
