package gitlab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// readOnlyTool and writeTool are the annotations of the two kinds of tool.
func readOnlyTool(title string) models.ToolAnnotations {
	return models.ToolAnnotations{Title: title, ReadOnlyHint: true, DestructiveHint: ptr(false)}
}

func writeTool(title string) models.ToolAnnotations {
	return models.ToolAnnotations{Title: title, ReadOnlyHint: false, DestructiveHint: ptr(false)}
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

// memberFinder finds users and their roles in a project (projectUsers).
type memberFinder interface {
	FindUserByID(ctx context.Context, id int64) (*models.User, error)
	roleReader
}

// projectUsers checks that every non-zero id names an active user who is a
// member of p and returns them (as ID-only users, for the store's links),
// without duplicates.
func projectUsers(ctx context.Context, st memberFinder, p *models.Project, field string, ids []intArg) ([]models.User, error) {
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

// labelEnsurer finds a project's labels by name and creates missing ones
// (ensureLabels).
type labelEnsurer interface {
	FindLabelsByName(ctx context.Context, projectID int64, names []string) ([]models.Label, error)
	EnsureLabel(ctx context.Context, l *models.Label) error
}

// ensureLabels creates the labels of names the project does not have yet.
// Another call may create the same label at the same moment: EnsureLabel
// is insert-or-get, so both succeed.
func ensureLabels(ctx context.Context, st labelEnsurer, projectID int64, names []string) error {
	if len(names) == 0 {
		return nil
	}
	for _, n := range names { // every path that creates a label comes here
		if strings.Contains(n, ",") {
			return invalidf("labels: %q: a label name cannot contain a comma", n)
		}
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

// issueLoader loads an issue of a project by iid (readableIssue).
type issueLoader interface {
	LoadIssue(ctx context.Context, projectID, iid int64) (*models.Issue, error)
}

// readableIssue loads issue iid of pa's project, or returns missing when it
// does not exist or u may not read it (confidential).
func readableIssue(ctx context.Context, st issueLoader, u *models.User, pa *projectAccess, iid int64, missing error) (*models.Issue, error) {
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

// targetIssue is the Target kind of get_issue: the issue issue_iid of the
// project id names (GitLab's REST arguments, issueRef). Object is the
// *foundIssue.
const targetIssue tools.TargetKind = "issue"

// issueRef names an issue as GitLab's REST issue endpoints do.
type issueRef struct {
	ID       refArg `json:"id"`
	IssueIID intArg `json:"issue_iid"`
}

// foundIssue is the issue an issueRef names, with the number of notes its
// reader sees; view is the one-statement read it came from (nil when it
// was read statement by statement).
type foundIssue struct {
	view  *models.IssueView
	issue *models.Issue
	notes int64
}

// issueViewFinder is what findIssue reads.
type issueViewFinder interface {
	FindIssueView(ctx context.Context, projectID int64, path string, iid, userID int64) (v *models.IssueView, ok bool, err error)
	LoadIssueCountingNotes(ctx context.Context, projectID, iid int64, includeInternal bool) (*models.Issue, int64, error)
	projectLookup
}

// findIssue finds the issue a names in a project u may read, and that
// project (pa) whether or not the issue is there; whether u may read the
// issue is the caller's check. The usual case is one statement: the
// project with u's role, the issue with its author, assignees and note
// counts (FindIssueView). Without a view the project or the issue is
// missing (or the author is): statement by statement, which tells them
// apart.
func findIssue(ctx context.Context, st issueViewFinder, u *models.User, a *issueRef) (*projectAccess, *foundIssue, error) {
	id, path, err := parseRef("id", a.ID)
	if err != nil {
		return nil, nil, err
	}
	iid := int64(a.IssueIID)
	v, ok, err := st.FindIssueView(ctx, id, path, iid, u.ID)
	if err != nil {
		return nil, nil, err
	}
	if ok {
		if !access.CanReadProject(u, v.Project, v.Level) {
			return nil, nil, notFound("Project")
		}
		notes := v.PublicNotes
		if access.CanReadInternalNote(u, v.Level) {
			notes = v.Notes
		}
		return &projectAccess{project: v.Project, level: v.Level}, &foundIssue{view: v, issue: v.Issue, notes: notes}, nil
	}
	pa, err := resolveProject(ctx, st, u, "id", a.ID)
	if err != nil {
		return nil, nil, err
	}
	issue, notes, err := st.LoadIssueCountingNotes(ctx, pa.project.ID, iid, access.CanReadInternalNote(u, pa.level))
	if errors.Is(err, models.ErrNotFound) {
		return pa, nil, notFound("Issue")
	}
	if err != nil {
		return pa, nil, err
	}
	return pa, &foundIssue{issue: issue, notes: notes}, nil
}
