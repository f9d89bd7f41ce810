package gitlab

import (
	"context"
	"errors"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// The 19.x tools name their object by a GitLab URL or by project_id plus
// an id, and page with opaque cursors. This file holds what the merge
// request, CI and vulnerability tools share for that.

// urlProp is a GitLab URL naming the object a tool acts on.
func urlProp(desc string) obj { return strProp(desc, 1, 2048) }

// projectRefProp is GitLab 19.x's project_id: an id or a full path.
func projectRefProp(desc string) obj { return refProp(desc) }

var resourceURL = regexp.MustCompile(`^/(.+?)/-/(merge_requests|jobs|pipelines)/(\d+)(?:/.*)?$`)

// parseObjectURL splits a GitLab URL of kind (merge_requests, jobs or
// pipelines) into the project's full path and the object's number.
func parseObjectURL(field, raw, kind string) (string, int64, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Path == "" {
		return "", 0, invalidf("%s: %q is not a GitLab URL", field, raw)
	}
	m := resourceURL.FindStringSubmatch(strings.TrimRight(u.Path, "/"))
	if m == nil || m[2] != kind {
		what := map[string]string{"merge_requests": "merge request", "jobs": "job", "pipelines": "pipeline"}[kind]
		return "", 0, invalidf("%s: %q is not a GitLab %s URL (…/<project>/-/%s/<id>)", field, raw, what, kind)
	}
	id, err := strconv.ParseInt(m[3], 10, 64)
	if err != nil || id <= 0 {
		return "", 0, invalidf("%s: %q has no valid id", field, raw)
	}
	return m[1], id, nil
}

// parseProjectURL returns the project full path of a project URL.
func parseProjectURL(field, raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || strings.Trim(u.Path, "/") == "" {
		return "", invalidf("%s: %q is not a GitLab project URL", field, raw)
	}
	path := strings.Trim(u.Path, "/")
	if i := strings.Index(path, "/-/"); i >= 0 {
		path = path[:i]
	}
	if !strings.Contains(path, "/") {
		return "", invalidf("%s: %q is not a GitLab project URL", field, raw)
	}
	return path, nil
}

// mrRefArgs name a merge request the 19.x way: url, or project_id and
// merge_request_iid.
type mrRefArgs struct {
	URL             string `json:"url"`
	ProjectID       refArg `json:"project_id"`
	MergeRequestIID intArg `json:"merge_request_iid"`
}

func mrRefProps(props obj) obj {
	props["url"] = urlProp("GitLab URL of the merge request. Provide this, or project_id and merge_request_iid.")
	props["project_id"] = projectRefProp("ID or full path of the project. Required if url is not provided.")
	props["merge_request_iid"] = iidProp("Internal ID of the merge request. Required if url is not provided.")
	return props
}

// mergeRequestByRef resolves r to a merge request u may read (a hidden one
// reads as missing).
func mergeRequestByRef(ctx context.Context, st mrLocateStore, u *models.User, r mrRefArgs) (*projectAccess, *models.MergeRequest, error) {
	ref, iid := r.ProjectID, int64(r.MergeRequestIID)
	switch {
	case r.URL != "" && (r.ProjectID != "" || r.MergeRequestIID != 0):
		return nil, nil, invalidf("provide either url, or project_id and merge_request_iid, not both")
	case r.URL != "":
		path, n, err := parseObjectURL("url", r.URL, "merge_requests")
		if err != nil {
			return nil, nil, err
		}
		ref, iid = refArg(path), n
	case r.ProjectID == "" || iid <= 0:
		return nil, nil, invalidf("provide either url, or project_id and merge_request_iid")
	}
	pa, err := resolveProject(ctx, st, u, "project_id", ref)
	if err != nil {
		return nil, nil, err
	}
	if !access.CanReadCode(u, pa.project, pa.level) {
		return pa, nil, notFound("Merge Request")
	}
	mr, err := st.LoadMergeRequest(ctx, pa.project.ID, iid)
	if errors.Is(err, models.ErrNotFound) {
		return pa, nil, notFound("Merge Request")
	}
	if err != nil {
		return pa, nil, err
	}
	return pa, mr, nil
}

// mrRefTarget declares that a tool's arguments name a merge request by
// url, or by project_id and merge_request_iid (mrRefArgs), and that the
// call needs to read it: the tool service resolves it with
// mergeRequestByRef, so its texts are the tool's.
func (g *gitlab) mrRefTarget() *tools.Target {
	return mrRefTargetOf[mrRefArgs](g)
}

// mrRefResolver resolves an mrRefTarget; args reads the tool's arguments
// (tools.Args of its run's struct, see mrRefTargetOf).
type mrRefResolver struct {
	store *targetStore // nil: no store (a catalog built without one)
	args  func(call *tools.Call) (mrRefArgs, error)
}

func (rr mrRefResolver) ResolveTarget(ctx context.Context, u *models.User, t *tools.Target, call *tools.Call) (*tools.ResolvedTarget, error) {
	if rr.store == nil {
		return nil, errNoStore
	}
	r := &tools.ResolvedTarget{}
	var pa *projectAccess
	var mr *models.MergeRequest
	a, err := rr.args(call)
	if err == nil {
		pa, mr, err = mergeRequestByRef(ctx, rr.store, u, a)
	}
	if pa != nil {
		r.Project, r.Level = pa.project, pa.level
	}
	if err != nil {
		return callerFailure(r, err)
	}
	if !access.CanOnMergeRequest(t.Ability, u, pa.project, mr, pa.level) {
		r.Err = notFound("Merge Request")
		return r, nil
	}
	r.Object = mr
	return r, nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// firstProp and afterProp are GitLab's cursor pagination parameters
// (Mcp::Tools::Concerns::CursorPagination).
func firstProp(items, prefix, appliesTo string) obj {
	d := "Number of " + items + " to return after the cursor (forward pagination). Default 20, max 100."
	if appliesTo != "" {
		d += " Applies only when " + appliesTo + "."
	}
	return withDesc(obj{"type": "integer", "minimum": 1, "maximum": maxPerPage}, d)
}

func lastProp(items, appliesTo string) obj {
	d := "Number of " + items + " to return before the cursor (backward pagination). Default 20, max 100."
	if appliesTo != "" {
		d += " Applies only when " + appliesTo + "."
	}
	return withDesc(obj{"type": "integer", "minimum": 1, "maximum": maxPerPage}, d)
}

func cursorProp(items, where, appliesTo string) obj {
	d := "Cursor for pagination of " + items + ". Use " + where + " from a previous response."
	if appliesTo != "" {
		d += " Applies only when " + appliesTo + "."
	}
	return strProp(d, 1, 512)
}

// pageSize is a first/last argument with GitLab's default of 20.
func pageSize(n intArg) int {
	if n <= 0 {
		return defaultPerPage
	}
	return min(int(n), maxPerPage)
}

// pageInfoJSON is GraphQL's PageInfo.
type pageInfoJSON struct {
	HasNextPage     bool    `json:"hasNextPage"`
	HasPreviousPage bool    `json:"hasPreviousPage"`
	StartCursor     *string `json:"startCursor"`
	EndCursor       *string `json:"endCursor"`
}

// gid is a GitLab global id.
func gid(typ string, id int64) string { return "gid://gitlab/" + typ + "/" + strconv.FormatInt(id, 10) }

// plainUserJSON is GraphQL's UserCore as the 19.x tools show it.
type plainUserJSON struct {
	ID       string `json:"id"`
	Username string `json:"username"`
	Name     string `json:"name"`
	WebURL   string `json:"webUrl"`
}

func (l links) gqlUser(u *models.User) *plainUserJSON {
	if u == nil {
		return nil
	}
	return &plainUserJSON{ID: gid("User", u.ID), Username: u.Username, Name: u.Name, WebURL: l.base + "/" + u.Username}
}

type userNodesJSON struct {
	Nodes []*plainUserJSON `json:"nodes"`
}

func (l links) gqlUsers(us []models.User) userNodesJSON {
	out := userNodesJSON{Nodes: make([]*plainUserJSON, 0, len(us))}
	for k := range us {
		out.Nodes = append(out.Nodes, l.gqlUser(&us[k]))
	}
	return out
}

// notAvailable is a tool that glmcp lists in no toolset's tools/list and
// answers every call of with an error result.
func notAvailable(name string) tools.Handler {
	return func(context.Context, *tools.Call) (*tools.Result, error) {
		return &tools.Result{IsError: true, Text: "GitLab Duo Agent Platform is not available for this namespace: " +
			"this instance has no GitLab Duo Agent Platform, so " + name + " cannot run."}, nil
	}
}
