package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
)

// readOnlyTool and writeTool are the annotations of the two kinds of tool.
func readOnlyTool(title string) models.ToolAnnotations {
	return models.ToolAnnotations{Title: title, ReadOnlyHint: true, DestructiveHint: ptr(false)}
}

func writeTool(title string) models.ToolAnnotations {
	return models.ToolAnnotations{Title: title, ReadOnlyHint: false, DestructiveHint: ptr(false)}
}

// getIssue is GitLab's get_issue: GET /projects/:id/issues/:issue_iid.
func (g *gitlab) getIssue() Definition {
	return Definition{
		Name:        "get_issue",
		Title:       "Get issue",
		Description: "Get a single issue of a GitLab project by its internal ID (the number after # in the project), with its labels, assignees, author and web URL.",
		InputSchema: inputSchema(obj{
			"id":        projectIDProp(),
			"issue_iid": iidProp("Internal ID of the issue (the number after #)."),
		}, "id", "issue_iid"),
		Annotations: readOnlyTool("Get issue"),
		Toolset:     models.ToolsetWorkItems,
		Edition:     models.EditionCE,
		Run:         g.runGetIssue,
	}
}

func (g *gitlab) runGetIssue(ctx context.Context, call *Call) (*Result, error) {
	u, err := g.viewer(call)
	if err != nil {
		return nil, err
	}
	var args struct {
		ID       refArg `json:"id"`
		IssueIID intArg `json:"issue_iid"`
	}
	if err := decodeArgs(call.Arguments, &args); err != nil {
		return nil, err
	}
	pa, err := resolveProject(ctx, g.store, u, "id", args.ID)
	if err != nil {
		return nil, err
	}
	issue, err := g.readableIssue(ctx, g.store, u, pa, int64(args.IssueIID), notFound("Issue"))
	if err != nil {
		return nil, err
	}
	return g.issueResult(ctx, g.store, u, pa, issue)
}

// readableIssue loads issue iid of pa's project, or returns missing when it
// does not exist or u may not read it (confidential).
func (g *gitlab) readableIssue(ctx context.Context, st DomainStore, u *models.User, pa *projectAccess, iid int64, missing error) (*models.Issue, error) {
	issue, err := st.LoadIssue(ctx, pa.project.ID, iid)
	if errors.Is(err, models.ErrNotFound) {
		return nil, missing
	}
	if err != nil {
		return nil, err
	}
	if !access.CanReadIssue(u, pa.project, issue, pa.level) {
		return nil, missing
	}
	return issue, nil
}

func (g *gitlab) issueResult(ctx context.Context, st DomainStore, u *models.User, pa *projectAccess, issue *models.Issue) (*Result, error) {
	notes, err := st.CountUserNotes(ctx, models.NoteableIssue, issue.ID, access.CanReadInternalNote(u, pa.level))
	if err != nil {
		return nil, err
	}
	return jsonResult(g.issue(pa.project, issue, notes))
}

// createIssue is GitLab's create_issue: POST /projects/:id/issues.
func (g *gitlab) createIssue() Definition {
	return Definition{
		Name:  "create_issue",
		Title: "Create issue",
		Description: "Create a new issue in a GitLab project. Needs at least the Reporter role. " +
			"Labels that do not exist yet are created; assignees must be members of the project.",
		InputSchema: inputSchema(obj{
			"id":           projectIDProp(),
			"title":        strProp("Title of the issue (at most 255 characters).", 1, maxTitleLength),
			"description":  strProp("Description of the issue, in Markdown.", 0, maxDescriptionLength),
			"assignee_ids": idListProp("IDs of the users to assign. They must be members of the project; 0 is ignored."),
			"milestone_id": iidProp("ID of the project milestone."),
			"labels":       labelsProp(),
			"confidential": boolProp("Make the issue confidential: visible only to its author, assignees and members with at least the Reporter role. Default false."),
			"epic_id":      iidProp("ID of the epic to add the issue to."),
		}, "id", "title"),
		Annotations: writeTool("Create issue"),
		Toolset:     models.ToolsetWorkItems,
		Edition:     models.EditionCE,
		Run:         g.runCreateIssue,
	}
}

type createIssueArgs struct {
	ID           refArg    `json:"id"`
	Title        string    `json:"title"`
	Description  string    `json:"description"`
	AssigneeIDs  []intArg  `json:"assignee_ids"`
	MilestoneID  *intArg   `json:"milestone_id"`
	Labels       labelsArg `json:"labels"`
	Confidential bool      `json:"confidential"`
	EpicID       *intArg   `json:"epic_id"`
}

func (g *gitlab) runCreateIssue(ctx context.Context, call *Call) (*Result, error) {
	u, err := g.writer(call, "create_issue")
	if err != nil {
		return nil, err
	}
	var args createIssueArgs
	if err := decodeArgs(call.Arguments, &args); err != nil {
		return nil, err
	}
	pa, err := resolveProject(ctx, g.store, u, "id", args.ID)
	if err != nil {
		return nil, err
	}
	if !access.CanCreateIssue(u, pa.project, pa.level) {
		return nil, forbiddenf("you need at least the Reporter role in project %s to create issues", pa.project.PathWithNamespace)
	}
	title, err := checkTitle(args.Title)
	if err != nil {
		return nil, err
	}
	labels, err := args.Labels.names()
	if err != nil {
		return nil, err
	}
	if args.MilestoneID != nil {
		return nil, invalidf("milestone_id: milestone %d not found in project %s", *args.MilestoneID, pa.project.PathWithNamespace)
	}
	if args.EpicID != nil {
		return nil, invalidf("epic_id: epic %d not found", *args.EpicID)
	}
	var res *Result
	err = g.inTx(ctx, func(tx DomainStore) error {
		assignees, err := projectUsers(ctx, tx, pa.project, "assignee_ids", args.AssigneeIDs)
		if err != nil {
			return err
		}
		if err := ensureLabels(ctx, tx, pa.project.ID, labels); err != nil {
			return err
		}
		issue := &models.Issue{ProjectID: pa.project.ID, Title: title, Description: args.Description,
			State: models.IssueOpened, Labels: models.StringList(labels), Confidential: args.Confidential,
			AuthorID: u.ID, Assignees: assignees}
		if err := tx.CreateIssue(ctx, issue); err != nil {
			return err
		}
		created, err := tx.LoadIssue(ctx, pa.project.ID, issue.IID)
		if err != nil {
			return err
		}
		res, err = g.issueResult(ctx, tx, u, pa, created)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// checkTitle trims a title (GitLab strips it) and checks it is not blank
// and at most 255 characters long.
func checkTitle(raw string) (string, error) {
	t := strings.TrimSpace(raw)
	switch {
	case t == "":
		return "", invalidf("title: must not be blank")
	case utf8.RuneCountInString(t) > maxTitleLength:
		return "", invalidf("title: is too long (%d characters, at most %d)", utf8.RuneCountInString(t), maxTitleLength)
	}
	return t, nil
}

// projectUsers checks that every non-zero id names an active user who is a
// member of p and returns them (as ID-only users, for the store's links),
// without duplicates.
func projectUsers(ctx context.Context, st DomainStore, p *models.Project, field string, ids []intArg) ([]models.User, error) {
	var out []models.User
	seen := map[int64]bool{}
	for _, raw := range ids {
		id := int64(raw)
		if id == 0 || seen[id] {
			continue
		}
		seen[id] = true
		u, err := st.FindUserByID(ctx, id)
		if errors.Is(err, models.ErrNotFound) {
			return nil, invalidf("%s: user %d does not exist", field, id)
		}
		if err != nil {
			return nil, err
		}
		if !u.Active() {
			return nil, invalidf("%s: user %d (%s) is %s and cannot be assigned", field, id, u.Username, u.State)
		}
		level, err := memberLevel(ctx, st, p.ID, id)
		if err != nil {
			return nil, err
		}
		if !level.Valid() {
			return nil, invalidf("%s: user %d (%s) is not a member of project %s", field, id, u.Username, p.PathWithNamespace)
		}
		out = append(out, models.User{ID: id})
	}
	return out, nil
}

// ensureLabels creates the labels of names the project does not have yet.
// Another call may create the same label at the same moment: EnsureLabel
// is insert-or-get, so both succeed.
func ensureLabels(ctx context.Context, st DomainStore, projectID int64, names []string) error {
	if len(names) == 0 {
		return nil
	}
	existing, err := st.FindLabelsByName(ctx, projectID, names)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, l := range existing {
		have[l.Name] = true
	}
	for _, n := range names {
		if have[n] {
			continue
		}
		if err := st.EnsureLabel(ctx, &models.Label{ProjectID: projectID, Name: n}); err != nil {
			return fmt.Errorf("create label %q: %w", n, err)
		}
		have[n] = true
	}
	return nil
}

// labelsArg is GitLab's labels parameter: an array of names or a
// comma-separated string.
type labelsArg struct {
	list []string
}

func (l *labelsArg) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		l.list = strings.Split(s, ",")
		return nil
	}
	return json.Unmarshal(b, &l.list)
}

// names returns the trimmed, non-empty, distinct label names in order.
func (l labelsArg) names() ([]string, error) {
	out := []string{}
	seen := map[string]bool{}
	for _, n := range l.list {
		n = strings.TrimSpace(n)
		switch {
		case n == "" || seen[n]:
			continue
		case strings.Contains(n, ","):
			return nil, invalidf("labels: %q: a label name cannot contain a comma", n)
		case utf8.RuneCountInString(n) > maxTitleLength:
			return nil, invalidf("labels: %q is too long (at most %d characters)", n, maxTitleLength)
		}
		seen[n] = true
		out = append(out, n)
	}
	return out, nil
}
