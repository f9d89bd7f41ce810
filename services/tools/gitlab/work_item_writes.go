package gitlab

import (
	"context"
	"errors"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
)

// The helpers below resolve what save_work_item and link_work_items name:
// a parent namespace from a URL, GitLab global ids, labels, milestones,
// parent work items. Each runs inside the write's transaction (st).

// parseNamespaceURL returns the project or group path of a GitLab URL
// (".../-/anything" is cut; "groups/" marks a group), with the public
// URL's (base's) relative root stripped, as GitLab's UrlParser does.
func parseNamespaceURL(base, raw string) (path string, group bool, err error) {
	u, perr := url.Parse(strings.TrimSpace(raw))
	if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", false, invalidf("url: %q is not an http(s) URL", raw)
	}
	p := u.Path
	if bu, berr := url.Parse(base); berr == nil && bu.Path != "" && bu.Path != "/" {
		root := strings.TrimRight(bu.Path, "/")
		if p == root || strings.HasPrefix(p, root+"/") {
			p = strings.TrimPrefix(p, root)
		}
	}
	p = strings.Trim(p, "/")
	if i := strings.Index(p, "/-/"); i >= 0 {
		p = p[:i]
	}
	p, group = strings.CutPrefix(p, "groups/")
	if p == "" {
		return "", false, invalidf("url: %q names no project or group", raw)
	}
	return p, group, nil
}

// parseGID returns the numeric id of a GitLab global id of one of the
// given model names ("gid://gitlab/WorkItem/12"), or of a bare number.
func parseGID(field, raw string, typeNames ...string) (int64, error) {
	s := strings.TrimSpace(raw)
	if rest, ok := strings.CutPrefix(s, "gid://gitlab/"); ok {
		typ, num, _ := strings.Cut(rest, "/")
		if !slices.Contains(typeNames, typ) {
			return 0, invalidf("%s: %q is not a global ID of a %s (gid://gitlab/%s/<id>)", field, raw, typeNames[0], typeNames[0])
		}
		s = num
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 || !isDigits(s) {
		return 0, invalidf("%s: %q is not an ID or a global ID (gid://gitlab/%s/<id>)", field, raw, typeNames[0])
	}
	return id, nil
}

// labelFinder finds a project's labels by name or id (resolveLabels).
type labelFinder interface {
	FindLabelsByName(ctx context.Context, projectID int64, names []string) ([]models.Label, error)
	FindLabelsByID(ctx context.Context, projectID int64, ids []int64) ([]models.Label, error)
}

// resolveLabels returns the names of the project's labels named by names
// and by ids (numbers or label global ids), without duplicates, in the
// order given; any that does not exist is a validation error naming it.
func resolveLabels(ctx context.Context, st labelFinder, p *models.Project, idsField string, ids []string, names []string) ([]string, error) {
	var out []string
	if len(names) > 0 {
		var trimmed []string
		for _, n := range names {
			if n = strings.TrimSpace(n); n != "" {
				trimmed = append(trimmed, n)
			}
		}
		found, err := st.FindLabelsByName(ctx, p.ID, trimmed)
		if err != nil {
			return nil, err
		}
		var missing []string
		for _, n := range trimmed {
			if !slices.ContainsFunc(found, func(l models.Label) bool { return l.Name == n }) {
				missing = append(missing, n)
			} else if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
		if len(missing) > 0 {
			return nil, invalidf("Labels not found in %s: %s", p.PathWithNamespace, strings.Join(missing, ", "))
		}
	}
	if len(ids) > 0 {
		var nums []int64
		for _, raw := range ids {
			id, err := parseGID(idsField, raw, "Label", "ProjectLabel", "GroupLabel")
			if err != nil {
				return nil, err
			}
			nums = append(nums, id)
		}
		found, err := st.FindLabelsByID(ctx, p.ID, nums)
		if err != nil {
			return nil, err
		}
		var missing []string
		for _, id := range nums {
			k := slices.IndexFunc(found, func(l models.Label) bool { return l.ID == id })
			switch {
			case k < 0:
				missing = append(missing, strconv.FormatInt(id, 10))
			case !slices.Contains(out, found[k].Name):
				out = append(out, found[k].Name)
			}
		}
		if len(missing) > 0 {
			return nil, invalidf("%s: labels with id %s not found in %s", idsField, strings.Join(missing, ", "), p.PathWithNamespace)
		}
	}
	return out, nil
}

// milestoneFinder finds a project's milestone by id or title
// (resolveMilestone).
type milestoneFinder interface {
	FindMilestone(ctx context.Context, projectID, id int64) (*models.Milestone, error)
	FindMilestoneByTitle(ctx context.Context, projectID int64, title string) (*models.Milestone, error)
}

// resolveMilestone returns the id of the project milestone named by
// milestone_id (which wins) or by its title.
func resolveMilestone(ctx context.Context, st milestoneFinder, p *models.Project, idArg, title *string) (int64, error) {
	if idArg != nil && strings.TrimSpace(*idArg) != "" {
		id, err := parseGID("milestone_id", *idArg, "Milestone")
		if err != nil {
			return 0, err
		}
		m, err := st.FindMilestone(ctx, p.ID, id)
		if errors.Is(err, models.ErrNotFound) {
			return 0, invalidf("Milestone with id %d not found in %s", id, p.PathWithNamespace)
		}
		if err != nil {
			return 0, err
		}
		return m.ID, nil
	}
	t := ""
	if title != nil {
		t = *title
	}
	m, err := st.FindMilestoneByTitle(ctx, p.ID, t)
	if errors.Is(err, models.ErrNotFound) {
		return 0, invalidf("Milestone '%s' not found in %s", t, p.PathWithNamespace)
	}
	if err != nil {
		return 0, err
	}
	return m.ID, nil
}

// parentFinder finds a work item by id and loads it (resolveParentItem).
type parentFinder interface {
	FindIssueByID(ctx context.Context, id int64) (*models.Issue, error)
	issueLoader
}

// resolveParentItem returns the work item parent_id names when it is a
// work item of pa's project that u may read and whose type may hold a
// child of type child; anything else is a validation error that does not
// tell a hidden item from a missing one.
func resolveParentItem(ctx context.Context, st parentFinder, u *models.User, pa *projectAccess, raw string, child models.WorkItemTypeID) (*models.Issue, error) {
	id, err := parseGID("parent_id", raw, "WorkItem", "Issue")
	if err != nil {
		return nil, err
	}
	missing := invalidf("parent_id: work item %d not found in %s", id, pa.project.PathWithNamespace)
	found, err := st.FindIssueByID(ctx, id)
	if errors.Is(err, models.ErrNotFound) {
		return nil, missing
	}
	if err != nil {
		return nil, err
	}
	if found.ProjectID != pa.project.ID {
		return nil, missing
	}
	parent, err := st.LoadIssue(ctx, found.ProjectID, found.IID)
	if err != nil {
		return nil, err
	}
	if !access.CanReadIssue(u, pa.project, parent, pa.level) {
		return nil, missing
	}
	if !models.CanParent(parent.WorkItemTypeID, child) {
		return nil, invalidf("parent_id: a work item of type %s cannot have a child of type %s",
			workItemTypeName(parent.WorkItemTypeID), workItemTypeName(child))
	}
	return parent, nil
}

// parseDateArg parses a YYYY-MM-DD argument; "" clears the date (nil).
func parseDateArg(field string, v *string) (*models.Date, error) {
	if v == nil || strings.TrimSpace(*v) == "" {
		return nil, nil
	}
	d, err := models.ParseDate(strings.TrimSpace(*v))
	if err != nil {
		return nil, invalidf("%s: %q is not a date in YYYY-MM-DD format", field, *v)
	}
	return &d, nil
}

// quickAction matches a line GitLab would run as a quick action.
var quickAction = regexp.MustCompile(`(?m)^\s*/\w+`)
