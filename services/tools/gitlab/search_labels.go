package gitlab

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// maxLabels caps a search_labels answer (GitLab's GraphQL page size).
const maxLabels = 100

// searchLabels is GitLab's search_labels (version 0.2.0: search is a term
// or up to 10 terms).
func searchLabels(g *gitlab) tools.Definition {
	t := searchLabelsTool{store: bind(g.store, func(f Families) searchLabelsStore {
		return searchLabelsStore{f.Projects, f.Groups, f.Issues}
	})}
	return tools.Definition{
		Name:  "search_labels",
		Title: "Search labels",
		Description: "Search the labels of a GitLab project, or of the projects of a group and its subgroups " +
			"(glmcp has no group-level labels), by name. Omit search to list them (at most 100).",
		InputSchema: argsSchema(t.run, obj{
			"full_path":  strProp("Full path of the project or group (for example gitlab-org/gitlab).", 1, 1000),
			"is_project": boolProp("Whether full_path is a project (true) or a group (false)."),
			"search": withDesc(obj{"oneOf": []obj{
				{"type": "string"},
				{"type": "array", "items": obj{"type": "string"}, "minItems": 1, "maxItems": 10},
			}}, "Search term, or up to 10 terms, to filter labels by name (case-insensitive substring). Omit to list labels."),
		}, "full_path", "is_project"),
		OutputSchema: tools.OutputSchemaOf[listJSON[labelJSON]](),
		Annotations:  readOnlyTool("Search labels"),
		Toolset:      models.ToolsetCore,
		Edition:      models.EditionCE,
		Source:       "app/services/mcp/tools/labels/search_tool.rb",
		Run:          tools.Typed(t.run),
	}
}

// searchLabelsStore is what search_labels reads: the project or group
// named, a group's projects the caller may read, and their labels.
type searchLabelsStore struct {
	searchLabelsProjects
	groupLookup
	labelSearcher
}

// searchLabelsProjects is what search_labels reads of Projects.
type searchLabelsProjects interface {
	projectLookup
	VisibleProjectIDs(ctx context.Context, viewer *models.User, groupPath string) ([]int64, error)
}

// labelSearcher searches labels (Issues).
type labelSearcher interface {
	SearchLabels(ctx context.Context, projectIDs []int64, terms []string, limit int) ([]models.Label, error)
}

// searchLabelsTool is search_labels with what it needs.
type searchLabelsTool struct {
	store *searchLabelsStore // nil: no store (a catalog built without one)
}

type labelJSON struct {
	ID             int64  `json:"id"`
	Name           string `json:"name"`
	Color          string `json:"color"`
	TextColor      string `json:"text_color"`
	Description    string `json:"description"`
	IsProjectLabel bool   `json:"is_project_label"`
}

type searchLabelsArgs struct {
	FullPath  string   `json:"full_path"`
	IsProject bool     `json:"is_project"`
	Search    termsArg `json:"search"`
}

func (t searchLabelsTool) run(ctx context.Context, call *tools.Call, args searchLabelsArgs) (*tools.Result, error) {
	if t.store == nil {
		return nil, errNoStore
	}
	u, err := callerOf(call)
	if err != nil {
		return nil, err
	}
	kind := "Group"
	if args.IsProject {
		kind = "Project"
	}
	hidden := &kindError{msg: kind + " '" + args.FullPath + "' not found or inaccessible", kind: models.ErrNotFound}
	var ids []int64
	if args.IsProject {
		pa, err := resolveProject(ctx, t.store, u, "full_path", refArg(args.FullPath))
		if errors.Is(err, models.ErrNotFound) {
			return nil, hidden
		}
		if err != nil {
			return nil, err
		}
		ids = []int64{pa.project.ID}
	} else {
		grp, err := resolveGroup(ctx, t.store, u, "full_path", refArg(args.FullPath))
		if errors.Is(err, models.ErrNotFound) {
			return nil, hidden
		}
		if err != nil {
			return nil, err
		}
		if ids, err = t.store.VisibleProjectIDs(ctx, u, grp.FullPath); err != nil {
			return nil, err
		}
	}
	labels, err := t.store.SearchLabels(ctx, ids, args.Search, maxLabels*len(ids))
	if err != nil {
		return nil, err
	}
	items := []labelJSON{}
	seen := map[string]bool{}
	for _, l := range labels {
		if seen[l.Name] || len(items) == maxLabels {
			continue // the same name in several projects of a group: listed once
		}
		seen[l.Name] = true
		items = append(items, labelJSON{ID: l.ID, Name: l.Name, Color: l.Color, TextColor: textColor(l.Color),
			Description: l.Description, IsProjectLabel: true})
	}
	return jsonResult(listJSON[labelJSON]{Items: items,
		PageInfo: newRESTPageInfo(1, maxLabels, int64(len(items)))})
}

// textColor is the color GitLab writes label text in on background bg:
// white on dark colors, near-black on light ones.
func textColor(bg string) string {
	if len(bg) != 7 || bg[0] != '#' {
		return "#FFFFFF"
	}
	rgb, err := strconv.ParseUint(bg[1:], 16, 32)
	if err != nil {
		return "#FFFFFF"
	}
	r, gr, b := float64(rgb>>16&0xff), float64(rgb>>8&0xff), float64(rgb&0xff)
	if (0.299*r+0.587*gr+0.114*b)/255 > 0.5 {
		return "#1F1E24"
	}
	return "#FFFFFF"
}

// termsArg is a search term or a list of terms.
type termsArg []string

func (t *termsArg) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*t = termsArg{s}
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return err
	}
	*t = list
	return nil
}
