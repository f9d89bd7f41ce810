package gitlab

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// Where a call of a GitLab write tool writes, for the tool rules
// (tools.Places): the project or group its arguments name by GitLab's
// argument names (or the Definition's WriteTarget), found as the caller
// may see it. The tool service reads the places; the reading of ids,
// paths, URLs and global ids is GitLab's, so it lives here.

// rulePlaces is the GitLab tools' tools.Places.
type rulePlaces struct {
	st *rulePlacesStore
}

// rulePlacesStore is what finding a call's places reads.
type rulePlacesStore struct {
	projectLookup
	groupLookup
	parentFinder
	vulnerabilityProject
}

// vulnerabilityProject is the project of a vulnerability
// (Vulnerabilities).
type vulnerabilityProject interface {
	// VulnerabilityProjectID returns the project of vulnerability id, or
	// models.ErrNotFound (where save_vulnerability writes, for the rules).
	VulnerabilityProjectID(ctx context.Context, id int64) (int64, error)
}

// WritePlaces reads call's arguments once parsed (tools.Call.Argument):
// the primary place (callTarget), then each element of the list kinds.
func (rp rulePlaces) WritePlaces(ctx context.Context, u *models.User, call *tools.Call, declared []tools.TargetArg, primary bool) ([]tools.Place, error) {
	if rp.st == nil {
		return nil, errNoStore
	}
	v, _ := call.Argument(nil)
	args, _ := v.(map[string]any)
	var out []tools.Place
	if primary {
		kind, ref := callTarget(args, declared)
		p, ok, err := rp.place(ctx, u, kind, ref)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, p)
		}
	}
	for _, lt := range listTargets(args, declared) {
		p, ok, err := rp.place(ctx, u, lt.kind, lt.ref)
		if err != nil {
			return nil, err
		}
		if ok && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// place finds the project or group a target argument of kind names by
// ref; ok is false when there is none the caller can see.
func (rp rulePlaces) place(ctx context.Context, u *models.User, kind tools.TargetKind, ref string) (t tools.Place, ok bool, err error) {
	switch kind {
	case tools.TargetProject:
		p, level, err := rp.findProject(ctx, ref, u.ID)
		if err != nil || p == nil || !access.CanReadProject(u, p, level) {
			return t, false, err
		}
		return tools.Place{ProjectID: p.ID, GroupID: p.NamespaceID, Path: p.PathWithNamespace}, true, nil
	case tools.TargetVulnerability:
		// The vulnerability's project, when the caller can see the
		// vulnerability (Developer or above): a caller who cannot gets the
		// tool's not found, as for a missing one, never a rule of its
		// project.
		p, level, err := rp.findVulnerabilityProject(ctx, ref, u.ID)
		if err != nil || p == nil || !access.CanReadVulnerability(u, p, level) {
			return t, false, err
		}
		return tools.Place{ProjectID: p.ID, GroupID: p.NamespaceID, Path: p.PathWithNamespace}, true, nil
	case tools.TargetWorkItems:
		// One work item of the list: its project, when the caller can
		// read the work item (as link_work_items checks its targets), so
		// a hidden or confidential one never shows a rule of its project.
		p, err := rp.findWorkItemProject(ctx, ref, u)
		if err != nil || p == nil {
			return t, false, err
		}
		return tools.Place{ProjectID: p.ID, GroupID: p.NamespaceID, Path: p.PathWithNamespace}, true, nil
	case tools.TargetProjects, tools.TargetGroups:
		// One global id of the list: the project or group, found as a
		// plain id of the single kind is.
		typ, single := "Project", tools.TargetProject
		if kind == tools.TargetGroups {
			typ, single = "Group", tools.TargetGroup
		}
		num, ok := strings.CutPrefix(ref, "gid://gitlab/"+typ+"/")
		if !ok || num == "" || strings.TrimLeft(num, "0123456789") != "" {
			return t, false, nil
		}
		return rp.place(ctx, u, single, num)
	case tools.TargetGroup:
		g, err := rp.findGroup(ctx, ref)
		if err != nil || g == nil {
			return t, false, err
		}
		member := false
		if access.GroupNeedsMembership(u, g) {
			if member, err = rp.st.HasMembershipInGroup(ctx, g.FullPath, u.ID); err != nil {
				return t, false, err
			}
		}
		if !access.CanReadGroup(u, g, member) {
			return t, false, nil
		}
		return tools.Place{GroupID: g.ID, Path: g.FullPath}, true, nil
	}
	return t, false, nil
}

// findWorkItemProject returns the project of the work item ref names by
// its global id (gid://gitlab/WorkItem/<id>) when u may read the work
// item, else nil. A plain number is an iid of the source work item's
// project or group (as link_work_items resolves it), so it adds no target
// beyond the source's: nil.
func (rp rulePlaces) findWorkItemProject(ctx context.Context, ref string, u *models.User) (*models.Project, error) {
	num, ok := strings.CutPrefix(ref, "gid://gitlab/WorkItem/")
	if !ok {
		return nil, nil
	}
	id, err := strconv.ParseInt(num, 10, 64)
	if err != nil || id <= 0 || strings.TrimLeft(num, "0123456789") != "" {
		return nil, nil
	}
	i, err := rp.st.FindIssueByID(ctx, id)
	if errors.Is(err, models.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	p, level, err := rp.findProject(ctx, strconv.FormatInt(i.ProjectID, 10), u.ID)
	if err != nil || p == nil || !access.CanReadProject(u, p, level) {
		return nil, err
	}
	if i.Confidential {
		// Whether u may read a confidential one depends on its people.
		if i, err = rp.st.LoadIssue(ctx, i.ProjectID, i.IID); errors.Is(err, models.ErrNotFound) {
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

func (rp rulePlaces) findProject(ctx context.Context, ref string, userID int64) (*models.Project, models.AccessLevel, error) {
	var (
		p     *models.Project
		level models.AccessLevel
		err   error
	)
	if !validRef(ref) {
		return nil, models.NoAccess, nil
	}
	if id, perr := strconv.ParseInt(ref, 10, 64); perr == nil {
		p, level, err = rp.st.FindProjectWithRoleByID(ctx, id, userID)
	} else {
		p, level, err = rp.st.FindProjectWithRoleByPath(ctx, ref, userID)
	}
	if errors.Is(err, models.ErrNotFound) {
		return nil, models.NoAccess, nil
	}
	return p, level, err
}

// findVulnerabilityProject returns the project of the vulnerability ref
// names (an id or its global id), or nil when there is none.
func (rp rulePlaces) findVulnerabilityProject(ctx context.Context, ref string, userID int64) (*models.Project, models.AccessLevel, error) {
	id, err := strconv.ParseInt(strings.TrimPrefix(ref, "gid://gitlab/Vulnerability/"), 10, 64)
	if err != nil || id <= 0 {
		return nil, models.NoAccess, nil
	}
	projectID, err := rp.st.VulnerabilityProjectID(ctx, id)
	if errors.Is(err, models.ErrNotFound) {
		return nil, models.NoAccess, nil
	}
	if err != nil {
		return nil, models.NoAccess, err
	}
	return rp.findProject(ctx, strconv.FormatInt(projectID, 10), userID)
}

func (rp rulePlaces) findGroup(ctx context.Context, ref string) (*models.Group, error) {
	var (
		g   *models.Group
		err error
	)
	if !validRef(ref) {
		return nil, nil
	}
	if id, perr := strconv.ParseInt(ref, 10, 64); perr == nil {
		g, err = rp.st.FindGroupByID(ctx, id)
	} else {
		g, err = rp.st.FindGroupByFullPath(ctx, ref)
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

// callTarget reads which project or group a call writes to, from its
// arguments as parsed (a). A tool that declares its target arguments
// (Definition.WriteTarget) is read from those only: the first present
// names the target, and none present names none (the tool refuses such a
// call itself). Any other tool is read from GitLab's argument names: id or
// project_id (a project), group_id (a group), url (a GitLab URL of a
// project's or group's object), full_path (a project). A reference is an
// id or a path.
func callTarget(a map[string]any, declared []tools.TargetArg) (kind tools.TargetKind, ref string) {
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
			if listKind(t.Kind) {
				continue
			}
			r := str(t.Name)
			if r == "" {
				continue
			}
			if t.Kind != tools.TargetURL {
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
			return tools.TargetProject, r
		}
	}
	if r := str("group_id"); r != "" {
		return tools.TargetGroup, r
	}
	if raw := str("url"); raw != "" {
		if k, ref := urlTarget(raw); k != "" {
			return k, ref
		}
	}
	if r := str("full_path"); r != "" {
		return tools.TargetProject, r
	}
	return "", ""
}

// listKind reports whether k is a list kind: every element of the
// argument is one more target.
func listKind(k tools.TargetKind) bool {
	return k == tools.TargetWorkItems || k == tools.TargetProjects || k == tools.TargetGroups
}

// urlTarget reads the project or group of a GitLab URL of one of its
// objects (https://host/group/project/-/issues/1,
// https://host/groups/group/-/epics/2).
func urlTarget(raw string) (tools.TargetKind, string) {
	if u, err := url.Parse(raw); err == nil {
		path, _, found := strings.Cut(strings.Trim(u.Path, "/"), "/-/")
		if g, ok := strings.CutPrefix(path, "groups/"); ok && found {
			return tools.TargetGroup, g
		}
		if found && path != "" {
			return tools.TargetProject, path
		}
	}
	return "", ""
}

// listRef is one element of a write target argument of a list kind.
type listRef struct {
	kind tools.TargetKind
	ref  string
}

// listTargets reads the declared arguments of a list kind: each element
// (a string or a positive integer; the argument may also be one value) is
// one more target, in argument order. a is the arguments as parsed.
func listTargets(a map[string]any, declared []tools.TargetArg) []listRef {
	var out []listRef
	for _, t := range declared {
		if !listKind(t.Kind) {
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
