package gitlab

import (
	"context"
	"strconv"

	"gitlab.com/glmcp/glmcp/internal/cursor"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// listVulnerabilities is GitLab's list_vulnerabilities (EE, GraphQL
// project.vulnerabilities).
func listVulnerabilities(g *gitlab) tools.Definition {
	t := listVulnerabilitiesTool{store: g.store.Vulnerabilities, links: g.links, cursors: g.cursors}
	arr := func(desc string, values []string) obj {
		return enumListProp(desc, true, values...)
	}
	return tools.Definition{
		Name:  "list_vulnerabilities",
		Title: "List vulnerabilities",
		Description: "List security vulnerabilities in a GitLab project, newest first. The project must be specified " +
			"using its project_full_path (e.g., \"namespace/project\"). Supports filtering by severity levels " +
			"(CRITICAL, HIGH, MEDIUM, LOW, INFO, UNKNOWN), report type (SAST, DAST, DEPENDENCY_SCANNING, etc.), and " +
			"state (CONFIRMED, DETECTED, DISMISSED, RESOLVED). Returns paginated vulnerability metadata; use " +
			"get_vulnerability for full details of a single vulnerability. Needs at least the Developer role.",
		InputSchema: argsSchema(t.run, obj{
			"project_full_path": strProp("Full path of the project (e.g., \"namespace/project\" or \"group/subgroup/project\").", 1, 1024),
			"severity":          arr("Filter by severity level. Omit to include vulnerabilities of any severity.", []string{"CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO", "UNKNOWN"}),
			"report_type":       arr("Filter by security report type. Omit to include all report types.", upperAll(models.VulnerabilityReportTypes)),
			"state":             arr("Filter by vulnerability state. Omit to include vulnerabilities in any state.", upperAll(models.VulnerabilityStates)),
			"first":             firstProp("vulnerabilities", "", ""),
			"after":             cursorProp("vulnerabilities", "pageInfo.endCursor", ""),
		}, "project_full_path"),
		OutputSchema: tools.OutputSchemaOf[connection](),
		Annotations:  readOnlyTool("List vulnerabilities"),
		Toolset:      toolsetCodeSecurity,
		Edition:      models.EditionEE,
		Source:       "list_tools_spec.rb (EE)",
		Target: g.projectTarget("project_full_path", access.ReadVulnerability,
			func(*models.Project) error { return notFound("Project") }),
		Run: tools.Typed(t.run),
	}
}

// listVulnerabilitiesStore is what list_vulnerabilities needs from the
// store.
type listVulnerabilitiesStore interface {
	ListVulnerabilities(ctx context.Context, q models.VulnerabilityQuery) ([]models.Vulnerability, bool, error)
}

// listVulnerabilitiesTool is list_vulnerabilities with what it needs: the
// vulnerabilities, the instance URL its answers link to and the cursor
// signer of its pages.
type listVulnerabilitiesTool struct {
	store   listVulnerabilitiesStore // nil: no store (a catalog built without one)
	links   links
	cursors *cursor.Signer
}

type listVulnArgs struct {
	ProjectFullPath string   `json:"project_full_path"`
	Severity        []string `json:"severity"`
	ReportType      []string `json:"report_type"`
	State           []string `json:"state"`
	First           intArg   `json:"first"`
	After           string   `json:"after"`
}

func (t listVulnerabilitiesTool) run(ctx context.Context, call *tools.Call, args listVulnArgs) (*tools.Result, error) {
	if t.store == nil {
		return nil, errNoStore
	}
	if _, err := callerOf(call); err != nil {
		return nil, err
	}
	pa, err := targetProject(call)
	if err != nil {
		return nil, err
	}
	filters := args
	filters.ProjectFullPath, filters.After, filters.First = "", "", 0
	pages := newPager(t.cursors, call, "list_vulnerabilities", "project:"+strconv.FormatInt(pa.project.ID, 10), filters)
	before, err := pages.open("after", args.After)
	if err != nil {
		return nil, err
	}
	vs, more, err := t.store.ListVulnerabilities(ctx, models.VulnerabilityQuery{ProjectID: pa.project.ID,
		Severities: lowerAll(args.Severity), ReportTypes: lowerAll(args.ReportType), States: lowerAll(args.State),
		BeforeID: before, Limit: pageSize(args.First)})
	if err != nil {
		return nil, err
	}
	nodes := make([]obj, 0, len(vs))
	for k := range vs {
		nodes = append(nodes, t.links.vulnerabilityJSON(pa.project, &vs[k], false))
	}
	pi := pageInfoJSON{HasNextPage: more, HasPreviousPage: args.After != ""}
	if n := len(vs); n > 0 {
		start, end := pages.mint(vs[0].ID+1), pages.mint(vs[n-1].ID)
		pi.StartCursor, pi.EndCursor = &start, &end
	}
	return jsonResult(connection{Nodes: nodes, PageInfo: pi})
}
