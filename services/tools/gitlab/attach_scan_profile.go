package gitlab

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// attachScanProfile is GitLab's attach_scan_profile (EE, GraphQL
// securityScanProfileAttach): a root group's security scan profile, or the
// GitLab-recommended default of a scan type, attached to projects and to
// every project of groups, all in one root group.
func attachScanProfile(g *gitlab) tools.Definition {
	t := attachScanProfileTool{inTx: g.inTx, store: bind(g.store, func(f Families) attachScanProfileStore {
		return attachScanProfileStore{f.Projects, f.Groups}
	})}
	ids := func(desc string) obj {
		return withDesc(obj{"type": "array", "items": obj{"type": "string", "minLength": 1, "maxLength": 255},
			"minItems": 1, "maxItems": 1000}, desc)
	}
	return tools.Definition{
		Name:  "attach_scan_profile",
		Title: "Attach scan profile",
		Description: "Attach a given security scan profile to the given groups and projects. Everything named must " +
			"be in one top-level group, at most 100 items, and needs at least the Maintainer role.",
		InputSchema: argsSchema(t.run, obj{
			"security_scan_profile_id": withDesc(obj{"type": "string", "minLength": 1, "maxLength": 255},
				"Global ID of the security scan profile to attach: gid://gitlab/Security::ScanProfile/<id>, or "+
					"gid://gitlab/Security::ScanProfile/<scan type> for the GitLab-recommended default profile of "+
					"a scan type (secret_detection, sast, dependency_scanning)."),
			"project_ids": ids("Array of Global IDs of the projects. Required if `group_ids` not provided."),
			"group_ids":   ids("Array of Global IDs of the groups. Required if `project_ids` not provided."),
		}, "security_scan_profile_id"),
		Annotations:  writeTool("Attach scan profile"),
		Toolset:      toolsetCodeSecurity,
		Edition:      models.EditionEE,
		Source:       "ee/app/services/mcp/tools/security/attach_scan_profile_service.rb",
		OutputSchema: tools.OutputSchemaOf[attachScanProfileJSON](),
		// Every project and group named is written to: the strictest of
		// their rules governs the call.
		WriteTarget: []tools.TargetArg{{Name: "project_ids", Kind: tools.TargetProjects},
			{Name: "group_ids", Kind: tools.TargetGroups}},
		// What it attaches and where, looked up once (find). Its lookup
		// names no single place: the WriteTarget lists name the rules'.
		Target: g.lookupTarget(t.find),
		Run:    tools.Typed(t.run),
	}
}

// attachScanProfileStore is what attach_scan_profile reads before its
// transaction: the projects and groups named, with the caller's roles.
type attachScanProfileStore struct {
	projectLookup
	attachScanGroups
}

// attachScanGroups is what attach_scan_profile reads of Groups first.
type attachScanGroups interface {
	FindGroupByID(ctx context.Context, id int64) (*models.Group, error)
	groupAccess
}

// attachScanProfileWriteStore is what attach_scan_profile writes with, in
// its transaction.
type attachScanProfileWriteStore struct {
	groupFinder
	attachScanProjects
	attachScanProfiles
}

// attachScanProjects is what attach_scan_profile reads of Projects in its
// transaction.
type attachScanProjects interface {
	VisibleProjectIDs(ctx context.Context, viewer *models.User, groupPath string) ([]int64, error)
	LoadProjects(ctx context.Context, ids []int64) ([]models.Project, error)
}

// attachScanProfiles is what attach_scan_profile reads and writes of
// Vulnerabilities.
type attachScanProfiles interface {
	FindScanProfile(ctx context.Context, id int64) (*models.ScanProfile, error)
	DefaultScanProfile(ctx context.Context, namespaceID int64, scanType string) (*models.ScanProfile, error)
	AttachScanProfile(ctx context.Context, profileID int64, projectIDs []int64) (full []int64, err error)
}

// attachScanProfileTool is attach_scan_profile with what it needs: the
// projects and groups it checks, and the store's transactions.
type attachScanProfileTool struct {
	store *attachScanProfileStore // nil: no store (a catalog built without one)
	inTx  InTx
}

type attachScanProfileArgs struct {
	SecurityScanProfileID string   `json:"security_scan_profile_id"`
	ProjectIDs            []string `json:"project_ids"`
	GroupIDs              []string `json:"group_ids"`
}

type attachScanProfileJSON struct {
	Errors []string `json:"errors"`
}

// maxScanProfileItems is how many projects and groups one call may name
// (GitLab's Attach::MAX_IDS).
const maxScanProfileItems = 100

// errScanProfileAccess is GitLab's answer to anything the caller may not
// do or see here: a missing or hidden project, group or profile, a role
// below Maintainer, a scan type without a default profile.
var errScanProfileAccess = &kindError{msg: "The resource that you are attempting to access does not exist or you " +
	"don't have permission to perform this action", kind: models.ErrNotFound}

// scanProfilePlan is what attach_scan_profile's lookup found: the profile
// named (its id, or the scan type of a default profile), and the projects
// and groups to attach it to, every one there, writable by the caller and
// in the root group root.
type scanProfilePlan struct {
	profileID int64
	scanType  string
	projects  []*models.Project
	groups    []*models.Group
	root      string
}

// find is attach_scan_profile's lookupFunc: its scanProfilePlan.
func (t attachScanProfileTool) find(ctx context.Context, u *models.User, call *tools.Call) (any, *projectAccess, *models.Group, error) {
	args, err := tools.Args[attachScanProfileArgs](call)
	if err != nil {
		return nil, nil, nil, err
	}
	profileID, scanType, err := parseScanProfileID(args.SecurityScanProfileID)
	if err != nil {
		return nil, nil, nil, err
	}
	projectIDs, err := parseGIDs("project_ids", args.ProjectIDs, "Project")
	if err != nil {
		return nil, nil, nil, err
	}
	groupIDs, err := parseGIDs("group_ids", args.GroupIDs, "Group")
	if err != nil {
		return nil, nil, nil, err
	}
	if len(args.ProjectIDs)+len(args.GroupIDs) > maxScanProfileItems {
		return nil, nil, nil, invalidf("Too many ids (maximum: %d)", maxScanProfileItems)
	}
	// Everything named must be there and writable before anything else is
	// said about it, so a hidden project reads as a missing one.
	plan := &scanProfilePlan{profileID: profileID, scanType: scanType,
		projects: make([]*models.Project, 0, len(projectIDs)), groups: make([]*models.Group, 0, len(groupIDs))}
	mixed := false
	inRoot := func(fullPath string) {
		r := rootPath(fullPath)
		mixed = mixed || (plan.root != "" && r != plan.root)
		plan.root = r
	}
	for _, id := range projectIDs {
		p, level, err := t.store.FindProjectWithRoleByID(ctx, id, u.ID)
		if errors.Is(err, models.ErrNotFound) || (err == nil && !access.CanApplyScanProfiles(u, p, level)) {
			return nil, nil, nil, errScanProfileAccess
		}
		if err != nil {
			return nil, nil, nil, err
		}
		plan.projects = append(plan.projects, p)
		inRoot(p.PathWithNamespace)
	}
	for _, id := range groupIDs {
		grp, err := t.store.FindGroupByID(ctx, id)
		if errors.Is(err, models.ErrNotFound) {
			return nil, nil, nil, errScanProfileAccess
		}
		if err != nil {
			return nil, nil, nil, err
		}
		level, err := t.store.GroupAccessLevel(ctx, grp.ID, u.ID)
		if err != nil {
			return nil, nil, nil, err
		}
		if !access.CanApplyScanProfilesInGroup(u, level) {
			return nil, nil, nil, errScanProfileAccess
		}
		plan.groups = append(plan.groups, grp)
		inRoot(grp.FullPath)
	}
	if plan.root == "" || mixed {
		return nil, nil, nil, invalidf("All items should belong to the same root namespace")
	}
	return plan, nil, nil, nil
}

func (t attachScanProfileTool) run(ctx context.Context, call *tools.Call, _ attachScanProfileArgs) (*tools.Result, error) {
	if t.store == nil {
		return nil, errNoStore
	}
	u, err := callerOf(call)
	if err != nil {
		return nil, err
	}
	plan, err := lookedUp[*scanProfilePlan](call)
	if err != nil {
		return nil, err
	}
	root, projects, groups := plan.root, plan.projects, plan.groups
	var out attachScanProfileJSON
	err = t.inTx(ctx, func(tx Families) error {
		st := attachScanProfileWriteStore{tx.Groups, tx.Projects, tx.Vulnerabilities}
		rootGroup, err := st.FindGroupByFullPath(ctx, root)
		if err != nil {
			return err
		}
		profile, err := findScanProfile(ctx, st, rootGroup.ID, plan.profileID, plan.scanType)
		if err != nil {
			return err
		}
		// Every project once, those named first, in the order given.
		targets := make([]int64, 0, len(projects))
		seen := map[int64]bool{}
		for _, p := range projects {
			targets = append(targets, p.ID) // projectIDs has no duplicates
			seen[p.ID] = true
		}
		// A group's projects: every project below it (GitLab attaches them
		// in the background; here in the same transaction).
		for _, grp := range groups {
			ids, err := st.VisibleProjectIDs(ctx, u, grp.FullPath)
			if err != nil {
				return err
			}
			for _, id := range ids {
				if !seen[id] {
					targets = append(targets, id)
					seen[id] = true
				}
			}
		}
		full, err := st.AttachScanProfile(ctx, profile.ID, targets)
		if err != nil {
			return err
		}
		out.Errors = make([]string, 0, len(full))
		if len(full) > 0 {
			ps, err := st.LoadProjects(ctx, full)
			if err != nil {
				return err
			}
			for _, p := range ps {
				out.Errors = append(out.Errors, fmt.Sprintf("Project '%s' (%s) has reached the maximum limit of %d scan profiles",
					p.Name, p.PathWithNamespace, models.MaxScanProfilesPerProject))
			}
		}
		return nil
	})
	if errors.Is(err, models.ErrNotFound) && !errors.As(err, new(*kindError)) {
		// A project or group removed while the call ran: the store's text
		// would name internal ids.
		return nil, errScanProfileAccess
	}
	if err != nil {
		return nil, err
	}
	return jsonResult(out)
}

// parseScanProfileID reads gid://gitlab/Security::ScanProfile/<id> (a
// profile) or …/<scan type> (the scan type's default profile).
func parseScanProfileID(raw string) (id int64, scanType string, err error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(raw), "gid://gitlab/Security::ScanProfile/")
	if !ok || rest == "" {
		return 0, "", invalidf("security_scan_profile_id: %q is not a global ID of a Security::ScanProfile "+
			"(gid://gitlab/Security::ScanProfile/<id>)", raw)
	}
	if isDigits(rest) {
		id, err := parseGID("security_scan_profile_id", rest, "Security::ScanProfile")
		return id, "", err
	}
	return 0, rest, nil
}

// parseGIDs reads a list of global ids of one type, without duplicates.
func parseGIDs(field string, raw []string, typeName string) ([]int64, error) {
	out := make([]int64, 0, len(raw))
	for i, r := range raw {
		if !strings.HasPrefix(strings.TrimSpace(r), "gid://gitlab/") {
			return nil, invalidf("%s[%d]: %q is not a global ID of a %s (gid://gitlab/%s/<id>)", field, i, r, typeName, typeName)
		}
		id, err := parseGID(fmt.Sprintf("%s[%d]", field, i), r, typeName)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out, nil
}

// findScanProfile is profile id of root group rootID, or the default
// profile of scanType there; anything else is errScanProfileAccess.
func findScanProfile(ctx context.Context, tx attachScanProfileWriteStore, rootID, id int64, scanType string) (*models.ScanProfile, error) {
	var (
		p   *models.ScanProfile
		err error
	)
	if id > 0 {
		p, err = tx.FindScanProfile(ctx, id)
	} else {
		p, err = tx.DefaultScanProfile(ctx, rootID, scanType)
	}
	switch {
	case errors.Is(err, models.ErrNotFound):
		return nil, errScanProfileAccess
	case err != nil:
		return nil, err
	case p.NamespaceID != rootID:
		return nil, errScanProfileAccess
	}
	return p, nil
}

// rootPath is the top-level group of a full path.
func rootPath(fullPath string) string {
	root, _, _ := strings.Cut(fullPath, "/")
	return strings.ToLower(root)
}
