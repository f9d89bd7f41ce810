package resources

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
)

// maxCompletions is the protocol's limit on values per completion.
const maxCompletions = 100

// Complete completes a prompt argument (ref/prompt) or a resource
// template variable (ref/resource): project paths the caller may read,
// issue and merge request iids of a readable project (context argument
// "project"), and branch names (refs). Values the caller may not see are
// never offered. An unknown prompt or template is a *NotFoundError.
func (s *Service) Complete(ctx context.Context, sc models.Scope, ref Ref, argName, value string, ctxArgs map[string]string) (Completion, error) {
	kind := ""
	switch ref.Type {
	case "ref/prompt":
		if s.extra.Complete != nil {
			if c, ok := s.extra.Complete(ref.Name, argName, value); ok {
				return c, nil
			}
		}
		p, ok := s.findPrompt(ref.Name)
		if !ok {
			return Completion{}, &NotFoundError{Kind: "Prompt", Name: ref.Name}
		}
		switch {
		case argName == "iid" && p.Name == "review_merge_request":
			kind = "merge_request_iid"
		case argName == "iid":
			kind = "issue_iid"
		default:
			kind = argName
		}
	case "ref/resource":
		tmpl, ok := s.findTemplate(ref.URI)
		if !ok {
			return Completion{}, &NotFoundError{Kind: "Resource template", Name: ref.URI}
		}
		switch {
		case argName == "iid" && tmpl.Name == "merge_request":
			kind = "merge_request_iid"
		case argName == "iid":
			kind = "issue_iid"
		default:
			kind = argName
		}
	default:
		return Completion{}, invalidf("Invalid ref: type must be \"ref/prompt\" or \"ref/resource\"")
	}
	if len(value) > 1024 || strings.ContainsRune(value, 0) {
		return Completion{}, invalidf("Invalid argument value")
	}
	values, err := s.completeKind(ctx, sc, kind, value, ctxArgs)
	if err != nil {
		return Completion{}, err
	}
	more := len(values) > maxCompletions
	if more {
		values = values[:maxCompletions]
	}
	return Completion{Values: values, HasMore: more}, nil
}

func (s *Service) findTemplate(uri string) (Template, bool) {
	for _, t := range s.Templates() {
		if t.URITemplate == uri {
			return t, true
		}
	}
	return Template{}, false
}

func (s *Service) completeKind(ctx context.Context, sc models.Scope, kind, value string, ctxArgs map[string]string) ([]string, error) {
	u := user(sc)
	if u.ID == 0 || !u.Active() {
		return []string{}, nil
	}
	switch kind {
	case "project":
		return s.store.CompleteProjectPaths(ctx, u, strings.TrimLeft(value, "/"), maxCompletions+1)
	case "issue_iid", "merge_request_iid":
		value = strings.TrimLeft(value, "#!")
		if strings.Trim(value, "0123456789") != "" {
			return []string{}, nil
		}
		p, level, ok := s.readableProject(ctx, u, ctxArgs["project"])
		if !ok {
			return []string{}, nil
		}
		var (
			iids []int64
			err  error
		)
		if kind == "issue_iid" {
			iids, err = s.store.CompleteIssueIIDs(ctx, u, p.ID, value, maxCompletions+1)
		} else if access.CanReadCode(u, p, level) {
			iids, err = s.store.CompleteMergeRequestIIDs(ctx, p.ID, value, maxCompletions+1)
		}
		if err != nil {
			return nil, err
		}
		out := make([]string, len(iids))
		for i, n := range iids {
			out[i] = strconv.FormatInt(n, 10)
		}
		return out, nil
	case "ref", "from", "to":
		return s.completeRefs(ctx, sc, ctxArgs["project"], value)
	}
	return []string{}, nil
}

// readableProject resolves the context's project argument to a project
// the viewer may read.
func (s *Service) readableProject(ctx context.Context, u *models.User, path string) (*models.Project, models.AccessLevel, bool) {
	path = strings.Trim(strings.TrimSpace(path), "/")
	if path == "" {
		return nil, 0, false
	}
	p, level, err := s.store.FindProjectWithRoleByPath(ctx, path, u.ID)
	if err != nil || !access.CanReadProject(u, p, level) {
		return nil, 0, false
	}
	return p, level, true
}

// completeRefs offers the project's branches starting with value, through
// list_branches (so the repository's own permission rules apply).
func (s *Service) completeRefs(ctx context.Context, sc models.Scope, project, value string) ([]string, error) {
	project = strings.Trim(strings.TrimSpace(project), "/")
	if project == "" {
		return []string{}, nil
	}
	raw, err := s.callTool(ctx, sc, "", "list_branches", map[string]any{"project_id": project, "search": "^" + value, "per_page": maxCompletions})
	if err != nil {
		if IsNotFound(err) {
			return []string{}, nil
		}
		return nil, err
	}
	var branches []struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(unwrapItems(raw), &branches) != nil {
		return []string{}, nil
	}
	out := []string{}
	for _, b := range branches {
		if strings.HasPrefix(b.Name, value) {
			out = append(out, b.Name)
		}
	}
	return out, nil
}
