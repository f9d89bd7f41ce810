package gitlab

import (
	"context"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// Bounds of list_releases (GitLab's ListReleasesService).
const (
	releasesDefaultPerPage = 20
	releasesMaxPerPage     = 100
	releaseMaxAssetLinks   = 5
)

type listReleasesArgs struct {
	repoTarget
	Page    intArg `json:"page"`
	PerPage intArg `json:"per_page"`
	State   string `json:"state"`
}

type releaseJSON struct {
	TagName    string            `json:"tag_name"`
	Name       string            `json:"name"`
	ReleasedAt string            `json:"released_at"`
	Upcoming   bool              `json:"upcoming"`
	Assets     releaseAssetsJSON `json:"assets"`
}

type releaseAssetsJSON struct {
	Count int                `json:"count"`
	Links []releaseLinksJSON `json:"links"`
}

type releaseLinksJSON struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// listReleases is GitLab 19.5's list_releases: a project's releases, most
// recently released first, with their first asset links.
func listReleases(g *gitlab) tools.Definition {
	t := listReleasesTool{store: g.store.Releases}
	props := repoProps("GitLab URL of the project.", "ID or full path of the project.")
	props["page"] = withDesc(obj{"type": "integer", "minimum": 1, "maximum": maxOffset}, "Page number to retrieve. Default is 1.")
	props["per_page"] = withDesc(obj{"type": "integer", "minimum": 1, "maximum": releasesMaxPerPage},
		"Releases to return per page. Default is 20, maximum is 100.")
	props["state"] = enumProp("Filter by release state. released covers releases already out, upcoming covers releases "+
		"scheduled for a future date. Default is released.", models.ReleasesReleased, models.ReleasesUpcoming, models.ReleasesAll)
	return tools.Definition{
		Name:  "list_releases",
		Title: "List releases",
		Description: "List releases in a GitLab project, most recently released first. Identify the project with exactly " +
			"one of url or project_id. Returns release metadata and asset links, not release assets themselves. " +
			"Releases scheduled for a future date are omitted unless state is upcoming or all, and carry upcoming " +
			"true when returned.",
		InputSchema:  argsSchema(t.run, props),
		Annotations:  readOnlyTool("List releases"),
		OutputSchema: tools.OutputSchemaOf[releasesJSON](),
		Toolset:      models.ToolsetRepository,
		Edition:      models.EditionCE,
		Source:       "app/services/mcp/tools/releases/list_releases_service.rb",
		Target: g.namedProject(access.ReadProject, g.urlOrArg("project_id", urlOrID, invalidf("The url must point to a project, not a group")),
			func(string) error { return errProjectInaccessible }, nil),
		Run: tools.Typed(t.run),
	}
}

// listReleasesStore is what list_releases needs from the store.
type listReleasesStore interface {
	ListReleases(ctx context.Context, q models.ReleaseQuery) ([]models.Release, bool, error)
}

// listReleasesTool is list_releases with what it needs: the releases (its
// answers carry the asset links as stored, no instance URL).
type listReleasesTool struct {
	store listReleasesStore // nil: no store (a catalog built without one)
}

func (t listReleasesTool) run(ctx context.Context, call *tools.Call, args listReleasesArgs) (*tools.Result, error) {
	if t.store == nil {
		return nil, errNoStore
	}
	if _, err := callerOf(call); err != nil {
		return nil, err
	}
	// Releases are read by whoever reads the project (GitLab's
	// read_release: Guests too), not only by those who read its code.
	pa, err := targetProject(call)
	if err != nil {
		return nil, err
	}
	page, perPage := max(int(args.Page), 1), int(args.PerPage)
	if perPage < 1 {
		perPage = releasesDefaultPerPage
	}
	if page*perPage > maxOffset {
		return nil, invalidf("page: offset pagination has a maximum allowed offset of %d (page × per_page)", maxOffset)
	}
	state := args.State
	if state == "" {
		state = models.ReleasesReleased
	}
	now := time.Now().UTC()
	rs, more, err := t.store.ListReleases(ctx, models.ReleaseQuery{ProjectID: pa.project.ID, State: state, Now: now,
		Offset: (page - 1) * perPage, Limit: perPage, MaxLinks: releaseMaxAssetLinks})
	if err != nil {
		return nil, err
	}
	out := make([]releaseJSON, 0, len(rs))
	for _, r := range rs {
		links := make([]releaseLinksJSON, 0, len(r.Links))
		for _, l := range r.Links {
			links = append(links, releaseLinksJSON{Name: l.Name, URL: l.URL})
		}
		out = append(out, releaseJSON{TagName: r.Tag, Name: r.Name, ReleasedAt: apiTime(r.ReleasedAt),
			Upcoming: r.ReleasedAt.After(now), Assets: releaseAssetsJSON{Count: r.LinkCount, Links: links}})
	}
	return jsonResult(releasesJSON{Metadata: releasesMetadataJSON{HasMore: more, Page: page, PerPage: perPage}, Releases: out})
}

// releasesJSON is list_releases' answer.
type releasesJSON struct {
	Metadata releasesMetadataJSON `json:"metadata"`
	Releases []releaseJSON        `json:"releases"`
}

type releasesMetadataJSON struct {
	HasMore bool `json:"has_more"`
	Page    int  `json:"page"`
	PerPage int  `json:"per_page"`
}
