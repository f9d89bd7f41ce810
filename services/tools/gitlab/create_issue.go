package gitlab

import (
	"context"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// createIssue is GitLab's create_issue: POST /projects/:id/issues.
func createIssue(g *gitlab) tools.Definition {
	ci := createIssueTool{links: g.links, inTx: g.inTx, hasStore: !noStore(g.store)}
	return tools.Definition{
		Name:  "create_issue",
		Title: "Create issue",
		Description: "Create a new issue in a GitLab project. Needs at least the Guest role (any signed-in user on a public or internal project). " +
			"Labels that do not exist yet are created; assignees must be members of the project. Labels, assignees and milestone need the Reporter role and are ignored below it.",
		InputSchema: argsSchema(ci.run, obj{
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
		Unlisted:    true, // GitLab 19.5: unlisted: true (pending removal); callable by name
		Edition:     models.EditionCE,
		Source:      "lib/api/issues.rb",
		// The project, looked up once: the tool rules and the tool read it.
		Target: g.projectTarget("id", access.ReadProject, nil),
		Run:    tools.Typed(ci.run),
	}
}

// createIssueWriteStore is what create_issue reads and writes in its
// transaction: the assignees and their roles, the labels, the issue and
// its note count.
type createIssueWriteStore struct {
	userByID
	roleReader
	createIssueIssues
}

// createIssueIssues is what create_issue reads and writes of Issues.
type createIssueIssues interface {
	labelEnsurer
	CreateIssue(ctx context.Context, i *models.Issue) error
	LoadIssue(ctx context.Context, projectID, iid int64) (*models.Issue, error)
	CountUserNotes(ctx context.Context, typ models.NoteableType, noteableID int64, includeInternal bool) (int64, error)
}

// createIssueTool is create_issue with what it needs: the store's
// transactions (its project is its target) and the links of its answer.
type createIssueTool struct {
	links links
	inTx  InTx
	// hasStore is false in a catalog built without a store.
	hasStore bool
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

func (ci createIssueTool) run(ctx context.Context, call *tools.Call, args createIssueArgs) (*tools.Result, error) {
	if !ci.hasStore {
		return nil, errNoStore
	}
	u, err := callerOf(call)
	if err != nil {
		return nil, err
	}
	pa, err := targetProject(call)
	if err != nil {
		return nil, err
	}
	if !access.CanCreateIssue(u, pa.project, pa.level) {
		return nil, forbiddenf("you need at least the Guest role in project %s to create issues", pa.project.PathWithNamespace)
	}
	if !access.CanSetIssueMetadata(u, pa.project, pa.level) { // GitLab's filter_params: dropped, not refused
		args.Labels, args.AssigneeIDs, args.MilestoneID = labelsArg{}, nil, nil
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
	var res *tools.Result
	err = ci.inTx(ctx, func(tx Families) error {
		st := createIssueWriteStore{tx.Users, tx.Groups, tx.Issues}
		assignees, err := projectUsers(ctx, st, pa.project, "assignee_ids", args.AssigneeIDs)
		if err != nil {
			return err
		}
		if err := ensureLabels(ctx, st, pa.project.ID, labels); err != nil {
			return err
		}
		issue := &models.Issue{ProjectID: pa.project.ID, Title: title, Description: args.Description,
			State: models.IssueOpened, Labels: models.StringList(labels), Confidential: args.Confidential,
			AuthorID: u.ID, Assignees: assignees}
		if err := st.CreateIssue(ctx, issue); err != nil {
			return err
		}
		created, err := st.LoadIssue(ctx, pa.project.ID, issue.IID)
		if err != nil {
			return err
		}
		res, err = ci.issueResult(ctx, st, u, pa, created)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func (ci createIssueTool) issueResult(ctx context.Context, st createIssueWriteStore, u *models.User, pa *projectAccess, issue *models.Issue) (*tools.Result, error) {
	notes, err := st.CountUserNotes(ctx, models.NoteableIssue, issue.ID, access.CanReadInternalNote(u, pa.level))
	if err != nil {
		return nil, err
	}
	return jsonResult(ci.links.issue(pa.project, issue, notes))
}
