package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
)

// Where a call of a write tool writes, for the tool rules: the project or
// group its arguments name (GitLab's argument names, or the Definition's
// WriteTarget), found as the caller may see it.

// resolveTarget finds the project or group a target argument of kind names
// by ref; ok is false when there is none the caller can see.
func (s *Service) resolveTarget(ctx context.Context, u *models.User, kind TargetKind, ref string) (t ruleTarget, ok bool, err error) {
	switch kind {
	case TargetProject:
		p, level, err := s.findProject(ctx, ref, u.ID)
		if err != nil || p == nil || !access.CanReadProject(u, p, level) {
			return t, false, err
		}
		return ruleTarget{p.ID, p.NamespaceID, p.PathWithNamespace}, true, nil
	case TargetVulnerability:
		// The vulnerability's project, when the caller can see the
		// vulnerability (Developer or above): a caller who cannot gets the
		// tool's not found, as for a missing one, never a rule of its
		// project.
		p, level, err := s.findVulnerabilityProject(ctx, ref, u.ID)
		if err != nil || p == nil || !access.CanReadVulnerability(u, p, level) {
			return t, false, err
		}
		return ruleTarget{p.ID, p.NamespaceID, p.PathWithNamespace}, true, nil
	case TargetWorkItems:
		// One work item of the list: its project, when the caller can
		// read the work item (as link_work_items checks its targets), so
		// a hidden or confidential one never shows a rule of its project.
		p, err := s.findWorkItemProject(ctx, ref, u)
		if err != nil || p == nil {
			return t, false, err
		}
		return ruleTarget{p.ID, p.NamespaceID, p.PathWithNamespace}, true, nil
	case TargetProjects, TargetGroups:
		// One global id of the list: the project or group, found as a
		// plain id of the single kind is.
		typ, single := "Project", TargetProject
		if kind == TargetGroups {
			typ, single = "Group", TargetGroup
		}
		num, ok := strings.CutPrefix(ref, "gid://gitlab/"+typ+"/")
		if !ok || num == "" || strings.TrimLeft(num, "0123456789") != "" {
			return t, false, nil
		}
		return s.resolveTarget(ctx, u, single, num)
	case TargetGroup:
		g, err := s.findGroup(ctx, ref)
		if err != nil || g == nil {
			return t, false, err
		}
		member := false
		if access.GroupNeedsMembership(u, g) {
			if member, err = s.opts.Rules.HasMembershipInGroup(ctx, g.FullPath, u.ID); err != nil {
				return t, false, err
			}
		}
		if !access.CanReadGroup(u, g, member) {
			return t, false, nil
		}
		return ruleTarget{0, g.ID, g.FullPath}, true, nil
	}
	return t, false, nil
}

// findWorkItemProject returns the project of the work item ref names by
// its global id (gid://gitlab/WorkItem/<id>) when u may read the work
// item, else nil. A plain number is an iid of the source work item's
// project or group (as link_work_items resolves it), so it adds no target
// beyond the source's: nil.
func (s *Service) findWorkItemProject(ctx context.Context, ref string, u *models.User) (*models.Project, error) {
	num, ok := strings.CutPrefix(ref, "gid://gitlab/WorkItem/")
	if !ok {
		return nil, nil
	}
	id, err := strconv.ParseInt(num, 10, 64)
	if err != nil || id <= 0 || strings.TrimLeft(num, "0123456789") != "" {
		return nil, nil
	}
	i, err := s.opts.Rules.FindIssueByID(ctx, id)
	if errors.Is(err, models.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	p, level, err := s.findProject(ctx, strconv.FormatInt(i.ProjectID, 10), u.ID)
	if err != nil || p == nil || !access.CanReadProject(u, p, level) {
		return nil, err
	}
	if i.Confidential {
		// Whether u may read a confidential one depends on its people.
		if i, err = s.opts.Rules.LoadIssue(ctx, i.ProjectID, i.IID); errors.Is(err, models.ErrNotFound) {
			return nil, nil
		} else if err != nil {
			return nil, err
		}
	}
	if !access.CanReadIssue(u, p, i, level) {
		return nil, nil
	}
	return p, nil
}

func (s *Service) findProject(ctx context.Context, ref string, userID int64) (*models.Project, models.AccessLevel, error) {
	var (
		p     *models.Project
		level models.AccessLevel
		err   error
	)
	if !validRef(ref) {
		return nil, models.NoAccess, nil
	}
	if id, perr := strconv.ParseInt(ref, 10, 64); perr == nil {
		p, level, err = s.opts.Rules.FindProjectWithRoleByID(ctx, id, userID)
	} else {
		p, level, err = s.opts.Rules.FindProjectWithRoleByPath(ctx, ref, userID)
	}
	if errors.Is(err, models.ErrNotFound) {
		return nil, models.NoAccess, nil
	}
	return p, level, err
}

// findVulnerabilityProject returns the project of the vulnerability ref
// names (an id or its global id), or nil when there is none.
func (s *Service) findVulnerabilityProject(ctx context.Context, ref string, userID int64) (*models.Project, models.AccessLevel, error) {
	id, err := strconv.ParseInt(strings.TrimPrefix(ref, "gid://gitlab/Vulnerability/"), 10, 64)
	if err != nil || id <= 0 {
		return nil, models.NoAccess, nil
	}
	projectID, err := s.opts.Rules.VulnerabilityProjectID(ctx, id)
	if errors.Is(err, models.ErrNotFound) {
		return nil, models.NoAccess, nil
	}
	if err != nil {
		return nil, models.NoAccess, err
	}
	return s.findProject(ctx, strconv.FormatInt(projectID, 10), userID)
}

func (s *Service) findGroup(ctx context.Context, ref string) (*models.Group, error) {
	var (
		g   *models.Group
		err error
	)
	if !validRef(ref) {
		return nil, nil
	}
	if id, perr := strconv.ParseInt(ref, 10, 64); perr == nil {
		g, err = s.opts.Rules.FindGroupByID(ctx, id)
	} else {
		g, err = s.opts.Rules.FindGroupByFullPath(ctx, ref)
	}
	if errors.Is(err, models.ErrNotFound) {
		return nil, nil
	}
	return g, err
}

// validRef reports whether ref can name a project or group at all: a
// percent-decoded reference ("%00") may hold text no path can.
func validRef(ref string) bool {
	return utf8.ValidString(ref) && !strings.ContainsRune(ref, 0)
}

// callTarget reads which project or group a call writes to. A tool that
// declares its target arguments (Definition.WriteTarget) is read from
// those only: the first present names the target, and none present names
// none (the tool refuses such a call itself). Any other tool is read from
// GitLab's argument names: id or project_id (a project), group_id (a
// group), url (a GitLab URL of a project's or group's object), full_path
// (a project). A reference is an id or a path.
func callTarget(a map[string]any, declared []TargetArg) (kind TargetKind, ref string) {
	str := func(k string) string {
		switch v := a[k].(type) {
		case string:
			s, _ := url.PathUnescape(strings.TrimSpace(v))
			return strings.Trim(s, "/")
		case json.Number:
			if n, err := strconv.ParseInt(string(v), 10, 64); err == nil && n > 0 {
				return strconv.FormatInt(n, 10)
			}
		}
		return ""
	}
	if len(declared) > 0 {
		for _, t := range declared {
			if t.Kind.list() {
				continue
			}
			r := str(t.Name)
			if r == "" {
				continue
			}
			if t.Kind != TargetURL {
				return t.Kind, r
			}
			if k, ref := urlTarget(r); k != "" {
				return k, ref
			}
		}
		return "", ""
	}
	for _, k := range []string{"id", "project_id"} {
		if r := str(k); r != "" {
			return TargetProject, r
		}
	}
	if r := str("group_id"); r != "" {
		return TargetGroup, r
	}
	if raw := str("url"); raw != "" {
		if k, ref := urlTarget(raw); k != "" {
			return k, ref
		}
	}
	if r := str("full_path"); r != "" {
		return TargetProject, r
	}
	return "", ""
}

// urlTarget reads the project or group of a GitLab URL of one of its
// objects (https://host/group/project/-/issues/1,
// https://host/groups/group/-/epics/2).
func urlTarget(raw string) (TargetKind, string) {
	if u, err := url.Parse(raw); err == nil {
		path, _, found := strings.Cut(strings.Trim(u.Path, "/"), "/-/")
		if g, ok := strings.CutPrefix(path, "groups/"); ok && found {
			return TargetGroup, g
		}
		if found && path != "" {
			return TargetProject, path
		}
	}
	return "", ""
}

// listRef is one element of a write target argument of a list kind.
type listRef struct {
	kind TargetKind
	ref  string
}

// listTargets reads the declared arguments of a list kind: each element
// (a string or a positive integer; the argument may also be one value) is
// one more target, in argument order. a is the arguments as parsed.
func listTargets(a map[string]any, declared []TargetArg) []listRef {
	var out []listRef
	for _, t := range declared {
		if !t.Kind.list() {
			continue
		}
		elems, ok := a[t.Name].([]any)
		if !ok {
			elems = []any{a[t.Name]}
		}
		for _, el := range elems {
			var s string
			switch v := el.(type) {
			case string:
				s = strings.TrimSpace(v)
			case json.Number:
				if n, err := strconv.ParseInt(string(v), 10, 64); err == nil && n > 0 {
					s = strconv.FormatInt(n, 10)
				}
			}
			if s != "" && validRef(s) {
				out = append(out, listRef{t.Kind, s})
			}
		}
	}
	return out
}

// checkWriteTarget refuses a definition whose WriteTarget names an
// argument its input schema does not have, or a kind it does not know:
// rules would silently read no target.
func checkWriteTarget(d *Definition) error {
	if len(d.WriteTarget) == 0 {
		return nil
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(d.InputSchema, &schema)
	for _, t := range d.WriteTarget {
		if _, ok := schema.Properties[t.Name]; !ok {
			return fmt.Errorf("tool %q: write target %q is not an argument", d.Name, t.Name)
		}
		switch t.Kind {
		case TargetProject, TargetGroup, TargetVulnerability, TargetURL, TargetWorkItems, TargetProjects, TargetGroups:
		default:
			return fmt.Errorf("tool %q: write target %q: kind %q is not project, group, vulnerability, url, work_items, projects or groups", d.Name, t.Name, t.Kind)
		}
	}
	return nil
}
