package gitlab

import (
	"context"
	"encoding/json"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// getIssue is GitLab's get_issue: GET /projects/:id/issues/:issue_iid. Its
// Target (targetIssue) reads the project, the issue and its people once,
// for the tool rules and the tool.
func getIssue(g *gitlab) tools.Definition {
	gi := getIssueTool{store: g.store.Groups, links: g.links}
	return tools.Definition{
		Name:        "get_issue",
		Title:       "Get issue",
		Description: "Get a single issue of a GitLab project by its internal ID (the number after # in the project), with its labels, assignees, author and web URL.",
		InputSchema: issueRefSchema(obj{
			"id":        projectIDProp(),
			"issue_iid": iidProp("Internal ID of the issue (the number after #)."),
		}, "id", "issue_iid"),
		Annotations:  readOnlyTool("Get issue"),
		OutputSchema: tools.OutputSchemaOf[issueJSON](),
		Toolset:      models.ToolsetWorkItems,
		Unlisted:     true, // GitLab 19.5: unlisted: true (pending removal); callable by name
		Edition:      models.EditionCE,
		Source:       "lib/api/issues.rb",
		Target:       g.target(targetIssue, access.ReadWorkItem),
		Run:          gi.run,
	}
}

// getIssueStore is what get_issue reads besides its target: in lockdown,
// the role of the issue's author.
type getIssueStore interface {
	projectRolesStore
}

// getIssueTool is get_issue with what it needs: the store and the links
// of its answer.
type getIssueTool struct {
	store getIssueStore // nil: no store (a catalog built without one)
	links links
}

// issueRefSchema is get_issue's input schema, tied to issueRef: its
// arguments are what targetIssue decodes, and the tool reads only the
// resolved target, so they are decoded once, by the resolver.
func issueRefSchema(props obj, required ...string) json.RawMessage {
	checkArgsProps[issueRef](props, required)
	return inputSchema(props, required...)
}

func (gi getIssueTool) run(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	if gi.store == nil {
		return nil, errNoStore
	}
	if _, err := callerOf(call); err != nil {
		return nil, err
	}
	pa, found, err := targetOf[*foundIssue](call)
	if err != nil {
		return nil, err
	}
	withheld, err := withheldIssue(ctx, gi.store, pa, found.issue)
	if err != nil {
		return nil, err
	}
	if withheld != nil {
		return jsonResult(gi.links.issue(pa.project, withheld, found.notes))
	}
	if found.view == nil {
		return jsonResult(gi.links.issue(pa.project, found.issue, found.notes))
	}
	// The answer depends on the view and the note count only: a view
	// from the store's cache keeps it for the next caller.
	key := issueMemoKey{links: gi.links, notes: found.notes}
	if m, ok := found.view.Memo(key); ok {
		r := m.(*tools.Result)
		return &tools.Result{Text: r.Text, Structured: r.Structured}, nil
	}
	res, err := jsonResult(gi.links.issue(pa.project, found.issue, found.notes))
	if err == nil {
		found.view.SetMemo(key, &tools.Result{Text: res.Text, Structured: res.Structured})
	}
	return res, err
}

// withheldIssue is a copy of i with its description withheld when pa's
// call withholds its author's text, or nil when nothing is withheld.
func withheldIssue(ctx context.Context, st projectRolesStore, pa *projectAccess, i *models.Issue) (*models.Issue, error) {
	w, err := newWithholder(ctx, st, pa, []int64{i.AuthorID})
	if err != nil || !w.withholds(i.AuthorID) {
		return nil, err
	}
	c := *i
	c.Description = WithheldText
	return &c, nil
}

// issueMemoKey is what get_issue's answer from a view depends on besides
// the view: the links (their base URL) and the note count shown.
type issueMemoKey struct {
	links links
	notes int64
}
