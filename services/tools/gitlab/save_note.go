package gitlab

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// saveNote is GitLab 19.5's save_note (GraphQL createNote): a comment on a
// merge request or a work item, or a reply in one of its threads. Its
// aliases are GitLab's: create_merge_request_note, create_work_item_note
// and create_workitem_note (the 18.x tool's name, whose arguments
// project_id, work_item_iid, body, internal and discussion_id are
// save_note's too).
func saveNote(g *gitlab) tools.Definition {
	sn := saveNoteTool{store: bind(g.store, func(f Families) saveNoteStore {
		return saveNoteStore{f.Projects, f.Groups, f.Issues, f.MergeRequests}
	}), links: g.links, inTx: g.inTx}
	return tools.Definition{
		Name:  "save_note",
		Title: "Save note",
		Description: "Add a comment to a GitLab merge request or work item, or reply to an existing discussion thread. " +
			"Identify the target with url, or with merge_request_iid or work_item_iid plus its project_id or group_id",
		InputSchema: argsSchema(sn.run, obj{
			"url": strProp("GitLab URL of the merge request or work item. The URL determines the target type, so no "+
				"other identifier is needed", 1, 2048),
			"project_id": refProp("ID or path of the project. Required with merge_request_iid, and with work_item_iid " +
				"for project-level work items"),
			"group_id":          refProp("ID or path of the group. Required with work_item_iid for group-level work items"),
			"merge_request_iid": iidProp("Internal ID of the merge request. Provide with project_id. Mutually exclusive with work_item_iid"),
			"work_item_iid":     iidProp("Internal ID of the work item. Provide with project_id or group_id. Mutually exclusive with merge_request_iid"),
			"body": strProp("Content of the note/comment (max 1,048,576 characters). Lines beginning with \"/\" are "+
				"rejected to avoid triggering quick actions such as /merge", 1, maxNoteLength),
			"internal": withDesc(obj{"type": "boolean", "default": false},
				"Mark note as internal (visible only to members with at least the Reporter role)"),
			"discussion_id": strProp("Global ID of the discussion to reply to (format: gid://gitlab/Discussion/<id>). "+
				"If omitted, creates a new top-level note", 1, 200),
		}, "body"),
		Annotations: writeTool("Save note"),
		Toolset:     models.ToolsetCore,
		Edition:     models.EditionCE,
		Source:      "app/services/mcp/tools/notes/save_note_tool.rb",
		Aliases:     []string{"create_merge_request_note", "create_work_item_note", "create_workitem_note"},
		// The merge request or work item, looked up once (noteTarget):
		// the tool rules and the tool read it.
		Target: g.lookupTarget(sn.findNoteTarget),
		Run:    tools.Typed(sn.run),
	}
}

// saveNoteStore is what save_note reads to find what it comments on (its
// lookup target): the project or group, and the merge request or work
// item there.
type saveNoteStore struct {
	projectLookup
	groupLookup
	issueLoader
	mrLoader
}

// saveNoteWriteStore is what save_note reads and writes in its
// transaction: the thread it replies in and the note.
type saveNoteWriteStore interface {
	FindDiscussionStart(ctx context.Context, id string) (*models.Note, error)
	CreateNote(ctx context.Context, n *models.Note) error
	LoadNote(ctx context.Context, id int64) (*models.Note, error)
}

// saveNoteTool is save_note with what it needs: the store to look up and
// its transactions to write in, and the links of its answer.
type saveNoteTool struct {
	store *saveNoteStore // nil: no store (a catalog built without one)
	links links
	inTx  InTx
}

type saveNoteArgs struct {
	URL             string  `json:"url"`
	ProjectID       *refArg `json:"project_id"`
	GroupID         *refArg `json:"group_id"`
	MergeRequestIID *intArg `json:"merge_request_iid"`
	WorkItemIID     *intArg `json:"work_item_iid"`
	Body            string  `json:"body"`
	Internal        bool    `json:"internal"`
	DiscussionID    string  `json:"discussion_id"`
}

// noteTarget is what save_note comments on: a merge request or an issue
// (a work item) of a project the caller may read. A lookup that finds no
// object still names the project (pa) or group it looked in, when the
// caller can see it: the place the tool rules govern.
type noteTarget struct {
	pa    *projectAccess
	group *models.Group
	mr    *models.MergeRequest
	issue *models.Issue
}

// findNoteTarget is save_note's lookupFunc: noteTarget.
func (sn saveNoteTool) findNoteTarget(ctx context.Context, u *models.User, call *tools.Call) (any, *projectAccess, *models.Group, error) {
	args, err := tools.Args[saveNoteArgs](call)
	if err != nil {
		return nil, nil, nil, err
	}
	t, err := sn.noteTarget(ctx, u, &args)
	if t == nil {
		return nil, nil, nil, err
	}
	return t, t.pa, t.group, err
}

func (t *noteTarget) noteable() (models.NoteableType, int64, string) {
	if t.mr != nil {
		return models.NoteableMergeRequest, t.mr.ID, "/-/merge_requests/" + strconv.FormatInt(t.mr.IID, 10)
	}
	return models.NoteableIssue, t.issue.ID, "/-/work_items/" + strconv.FormatInt(t.issue.IID, 10)
}

// save_note's caller-facing texts (GitLab's).
var (
	errNoteQuickAction = invalidf("Quick actions (commands starting with /) are not allowed in note body")
	errNoteNoTarget    = invalidf("Provide url, or merge_request_iid with project_id, or work_item_iid with project_id or group_id")
	errNoteTwoTargets  = invalidf("Provide only one of merge_request_iid or work_item_iid")
	errNoteMRProject   = invalidf("Provide either url, or project_id and merge_request_iid")
	errNoteWIParent    = invalidf("Provide project_id or group_id with work_item_iid")
	errNoteBadURL      = invalidf("URL must be a merge request URL (.../-/merge_requests/<iid>) or a work item URL " +
		"(.../-/work_items/<iid>). For issues, pass project_id and work_item_iid instead")
	errNoteMRNotFound      = &kindError{msg: "Merge request not found or inaccessible", kind: models.ErrNotFound}
	errNoteProjectNotFound = &kindError{msg: "Project not found or inaccessible", kind: models.ErrNotFound}
)

func errNoteWorkItemNotFound(iid int64) error {
	return &kindError{msg: fmt.Sprintf("Work item #%d not found or inaccessible", iid), kind: models.ErrNotFound}
}

// noteURLPath matches the path of a merge request or work item URL.
var noteURLPath = regexp.MustCompile(`^(groups/)?(.+?)/-/(merge_requests|work_items)/(\d+)(?:/.*)?$`)

func (sn saveNoteTool) run(ctx context.Context, call *tools.Call, args saveNoteArgs) (*tools.Result, error) {
	if sn.store == nil {
		return nil, errNoStore
	}
	u, err := callerOf(call)
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(args.Body, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), "/") {
			return nil, errNoteQuickAction
		}
	}
	if strings.TrimSpace(args.Body) == "" {
		return nil, invalidf("body: must not be blank")
	}
	t, err := lookedUp[*noteTarget](call)
	if err != nil {
		return nil, err
	}
	if !access.CanCreateNote(u, t.pa.project, t.pa.level) {
		return nil, forbiddenf("you cannot comment in project %s", t.pa.project.PathWithNamespace)
	}
	if t.mr != nil && t.mr.DiscussionLocked && !access.CanCommentOnLocked(u, t.pa.level) {
		return nil, forbiddenf("the discussion of merge request !%d is locked", t.mr.IID)
	}
	typ, id, webPath := t.noteable()
	n := &models.Note{NoteableType: typ, NoteableID: id, ProjectID: t.pa.project.ID, AuthorID: u.ID,
		Body: args.Body, Internal: args.Internal}
	var res *tools.Result
	err = sn.inTx(ctx, func(tx Families) error {
		st := saveNoteWriteStore(tx.Notes)
		if args.DiscussionID != "" {
			start, err := st.FindDiscussionStart(ctx, bareDiscussionID(args.DiscussionID))
			switch {
			case errors.Is(err, models.ErrNotFound):
				return notFound("Discussion")
			case err != nil:
				return err
			case start.NoteableType != typ || start.NoteableID != id || !access.CanReadNote(u, start, t.pa.level):
				return notFound("Discussion")
			case start.Internal:
				n.Internal = true // a reply in an internal thread is internal
			case args.Internal:
				return invalidf("internal: a reply to a public thread cannot be internal")
			}
			n.DiscussionID = start.DiscussionID
		}
		if err := st.CreateNote(ctx, n); err != nil {
			return err
		}
		stored, err := st.LoadNote(ctx, n.ID)
		if err != nil {
			return err
		}
		res, err = jsonResult(obj{"note": sn.savedNote(stored, sn.links.projectURL(t.pa.project)+webPath), "errors": []string{}})
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// noteTarget resolves the merge request or work item the arguments name,
// as GitLab's save_note does: a URL decides alone; otherwise exactly one
// iid with its parent. With an error it may still return the place it
// looked in.
func (sn saveNoteTool) noteTarget(ctx context.Context, u *models.User, a *saveNoteArgs) (*noteTarget, error) {
	var (
		projectRef, groupRef *refArg
		mrIID, wiIID         int64
	)
	switch {
	case strings.TrimSpace(a.URL) != "":
		pu, err := url.Parse(strings.TrimSpace(a.URL))
		if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			return nil, errNoteBadURL
		}
		p := pu.Path
		if base, berr := url.Parse(sn.links.base); berr == nil && base.Path != "" && base.Path != "/" {
			p = strings.TrimPrefix(p, strings.TrimRight(base.Path, "/"))
		}
		m := noteURLPath.FindStringSubmatch(strings.Trim(p, "/"))
		if m == nil {
			return nil, errNoteBadURL
		}
		n, err := strconv.ParseInt(m[4], 10, 64)
		if err != nil || n <= 0 {
			return nil, errNoteBadURL
		}
		ref := refArg(m[2])
		switch {
		case m[3] == "merge_requests" && m[1] == "":
			projectRef, mrIID = &ref, n
		case m[3] == "merge_requests":
			return nil, errNoteBadURL
		case m[1] != "":
			groupRef, wiIID = &ref, n
		default:
			projectRef, wiIID = &ref, n
		}
	case a.MergeRequestIID != nil && a.WorkItemIID != nil:
		return nil, errNoteTwoTargets
	case a.MergeRequestIID != nil:
		if a.ProjectID == nil {
			return nil, errNoteMRProject
		}
		projectRef, mrIID = a.ProjectID, int64(*a.MergeRequestIID)
	case a.WorkItemIID != nil:
		if a.ProjectID == nil && a.GroupID == nil {
			return nil, errNoteWIParent
		}
		projectRef, groupRef, wiIID = a.ProjectID, a.GroupID, int64(*a.WorkItemIID)
	default:
		return nil, errNoteNoTarget
	}
	if projectRef == nil { // a group's work item: glmcp has none
		grp, err := resolveGroup(ctx, sn.store, u, "group_id", *groupRef)
		if errors.Is(err, models.ErrNotFound) {
			return nil, errGroupNotFound
		} else if err != nil {
			return nil, err
		}
		return &noteTarget{group: grp}, errNoteWorkItemNotFound(wiIID)
	}
	pa, err := resolveProject(ctx, sn.store, u, "project_id", *projectRef)
	if errors.Is(err, models.ErrNotFound) {
		return nil, errNoteProjectNotFound
	}
	if err != nil {
		return nil, err
	}
	t := &noteTarget{pa: pa}
	if mrIID > 0 {
		// In the project just found: a project whose code the caller may
		// not read has no merge request for them.
		if !access.CanReadCode(u, pa.project, pa.level) {
			return t, errNoteMRNotFound
		}
		mr, err := sn.store.LoadMergeRequest(ctx, pa.project.ID, mrIID)
		if errors.Is(err, models.ErrNotFound) || (err == nil && !access.CanOnMergeRequest(access.ReadMergeRequest, u, pa.project, mr, pa.level)) {
			return t, errNoteMRNotFound
		}
		t.mr = mr
		return t, err
	}
	t.issue, err = readableIssue(ctx, sn.store, u, pa, wiIID, errNoteWorkItemNotFound(wiIID))
	return t, err
}

// savedNoteJSON is the note of GitLab's createNote payload as save_note
// returns it.
type savedNoteJSON struct {
	ID         string              `json:"id"`
	Body       string              `json:"body"`
	Internal   bool                `json:"internal"`
	CreatedAt  string              `json:"createdAt"`
	UpdatedAt  string              `json:"updatedAt"`
	URL        string              `json:"url"`
	Author     savedNoteAuthor     `json:"author"`
	Discussion savedNoteDiscussion `json:"discussion"`
}

type savedNoteAuthor struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Username string `json:"username"`
}

type savedNoteDiscussion struct {
	ID string `json:"id"`
}

func (sn saveNoteTool) savedNote(n *models.Note, noteableURL string) *savedNoteJSON {
	out := &savedNoteJSON{ID: gid("Note", n.ID), Body: n.Body, Internal: n.Internal, CreatedAt: apiTime(n.CreatedAt),
		UpdatedAt: apiTime(n.UpdatedAt), URL: noteableURL + "#note_" + strconv.FormatInt(n.ID, 10),
		Discussion: savedNoteDiscussion{ID: "gid://gitlab/Discussion/" + n.DiscussionID}}
	if n.Author != nil {
		out.Author = savedNoteAuthor{ID: gid("User", n.Author.ID), Name: n.Author.Name, Username: n.Author.Username}
	}
	return out
}
