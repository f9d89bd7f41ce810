package gitlab

import (
	"context"
	"errors"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// getIssue is GitLab's get_issue: GET /projects/:id/issues/:issue_iid.
func (g *gitlab) getIssue() tools.Definition {
	return tools.Definition{
		Name:        "get_issue",
		Title:       "Get issue",
		Description: "Get a single issue of a GitLab project by its internal ID (the number after # in the project), with its labels, assignees, author and web URL.",
		InputSchema: argsSchema(g.runGetIssue, obj{
			"id":        projectIDProp(),
			"issue_iid": iidProp("Internal ID of the issue (the number after #)."),
		}, "id", "issue_iid"),
		Annotations:  readOnlyTool("Get issue"),
		OutputSchema: tools.OutputSchemaOf[issueJSON](),
		Toolset:      models.ToolsetWorkItems,
		Unlisted:     true, // GitLab 19.5: unlisted: true (pending removal); callable by name
		Edition:      models.EditionCE,
		Source:       "lib/api/issues.rb",
		Run:          tools.Typed(g.runGetIssue),
	}
}

type getIssueArgs struct {
	ID       refArg `json:"id"`
	IssueIID intArg `json:"issue_iid"`
}

func (g *gitlab) runGetIssue(ctx context.Context, call *tools.Call, args getIssueArgs) (*tools.Result, error) {
	u, err := g.viewer(call)
	if err != nil {
		return nil, err
	}
	// The usual case in one statement: the project with u's role, the
	// issue with its author, assignees and note counts. The same checks
	// as below decide what u sees of it.
	id, path, err := parseRef("id", args.ID)
	if err != nil {
		return nil, err
	}
	iid := int64(args.IssueIID)
	v, ok, err := g.store.FindIssueView(ctx, id, path, iid, u.ID)
	if err != nil {
		return nil, err
	}
	if ok {
		if !access.CanReadProject(u, v.Project, v.Level) {
			return nil, notFound("Project")
		}
		if !access.CanReadIssue(u, v.Project, v.Issue, v.Level) {
			return nil, notFound("Issue")
		}
		notes := v.PublicNotes
		if access.CanReadInternalNote(u, v.Level) {
			notes = v.Notes
		}
		if withheld, err := withheldIssue(ctx, g.store, &projectAccess{project: v.Project, level: v.Level, lockdown: call.Lockdown}, v.Issue); err != nil || withheld != nil {
			if err != nil {
				return nil, err
			}
			return jsonResult(g.links.issue(v.Project, withheld, notes))
		}
		// The answer depends on the view and the note count only: a view
		// from the store's cache keeps it for the next caller.
		key := issueMemoKey{g: g, notes: notes}
		if m, ok := v.Memo(key); ok {
			r := m.(*tools.Result)
			return &tools.Result{Text: r.Text, Structured: r.Structured}, nil
		}
		res, err := jsonResult(g.links.issue(v.Project, v.Issue, notes))
		if err == nil {
			v.SetMemo(key, &tools.Result{Text: res.Text, Structured: res.Structured})
		}
		return res, err
	}
	// No view: the project or the issue is missing (or the author is):
	// statement by statement, which tells them apart.
	pa, err := resolveProject(ctx, g.store, u, "id", args.ID)
	if err != nil {
		return nil, err
	}
	issue, notes, err := g.store.LoadIssueCountingNotes(ctx, pa.project.ID, iid, access.CanReadInternalNote(u, pa.level))
	if errors.Is(err, models.ErrNotFound) {
		return nil, notFound("Issue")
	}
	if err != nil {
		return nil, err
	}
	if !access.CanReadIssue(u, pa.project, issue, pa.level) {
		return nil, notFound("Issue")
	}
	pa.lockdown = call.Lockdown
	withheld, err := withheldIssue(ctx, g.store, pa, issue)
	if err != nil {
		return nil, err
	}
	if withheld != nil {
		issue = withheld
	}
	return jsonResult(g.links.issue(pa.project, issue, notes))
}

// withheldIssue is a copy of i with its description withheld when pa's
// call withholds its author's text, or nil when nothing is withheld.
func withheldIssue(ctx context.Context, st projectStore, pa *projectAccess, i *models.Issue) (*models.Issue, error) {
	w, err := newWithholder(ctx, st, pa, []int64{i.AuthorID})
	if err != nil || !w.withholds(i.AuthorID) {
		return nil, err
	}
	c := *i
	c.Description = WithheldText
	return &c, nil
}

// issueMemoKey is what get_issue's answer from a view depends on besides
// the view: the tools (their base URL) and the note count shown.
type issueMemoKey struct {
	g     *gitlab
	notes int64
}
