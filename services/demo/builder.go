package demo

import (
	"time"

	"gitlab.com/glmcp/glmcp/models"
)

// build writes the whole demo world.
func (b *demoBuilder) build() {
	w := b.w
	users := []**models.User{&w.Root, &w.Alice, &w.Bob, &w.Carol, &w.Dave}
	for k, u := range demoUsers {
		*users[k] = b.user(u.username, u.name, u.email, u.state, u.admin, u.eeSeat, k)
	}

	gitlabOrg := b.group("GitLab.org", "gitlab-org", "Open source projects of GitLab.", models.VisibilityPublic)
	acme := b.group("Acme Corp", "acme", "Acme's internal projects.", models.VisibilityPrivate)

	mcp := b.project(gitlabOrg, "GitLab MCP", "gitlab-mcp",
		"MCP server that lets AI agents read and act on GitLab.", models.VisibilityPublic, 1)
	orbit := b.project(gitlabOrg, "Orbit", "orbit",
		"Knowledge graph of code, issues and pipelines behind semantic code search.", models.VisibilityInternal, 2)
	secret := b.project(acme, "Secret Plans", "secret-plans",
		"Acme leadership planning. Confidential.", models.VisibilityPrivate, 3)

	b.member(mcp, w.Root, models.Owner)
	b.member(mcp, w.Alice, models.Developer)
	b.member(mcp, w.Bob, models.Reporter)
	b.member(mcp, w.Carol, models.Guest)
	b.member(mcp, w.Dave, models.Developer)
	b.member(orbit, w.Root, models.Owner)
	b.member(orbit, w.Alice, models.Developer)
	b.member(orbit, w.Bob, models.Reporter)
	b.member(secret, w.Alice, models.Maintainer)

	for _, p := range []*models.Project{mcp, orbit, secret} {
		b.history(p)
	}

	b.mcpWorld(mcp)
	b.orbitWorld(orbit)
	b.secretWorld(secret)
	b.labsWorld(gitlabOrg)
}

// labsWorld adds the subgroup gitlab-org/labs with an archived project
// (a short history and a tag), and Bob's group membership: list_groups shows a subgroup, list_projects
// an archived project (archived: only / include), and list_project_members
// an inherited member (Bob is a Reporter of gitlab-org, so of every
// project below it; he was already one in each of its projects, so no
// role of his changes).
func (b *demoBuilder) labsWorld(gitlabOrg *models.Group) {
	w := b.w
	labs := b.subgroup(gitlabOrg, "Labs", "labs", "Experiments around the MCP server.", models.VisibilityPublic)
	inspector := &models.Project{Name: "MCP Inspector", Path: "mcp-inspector", NamespaceID: labs.ID,
		Description: "Archived prototype of a browser inspector for MCP traffic.", Visibility: models.VisibilityPublic,
		DefaultBranch: "main", Archived: true, CreatedAt: at(-24, 0, 0), UpdatedAt: at(-10, 0, 0)}
	if b.err == nil {
		b.err = b.s.Projects.CreateProject(b.ctx, inspector)
		w.Projects[inspector.PathWithNamespace] = inspector
	}
	b.history(inspector)
	b.member(inspector, w.Root, models.Owner)
	b.groupMember(gitlabOrg, w.Bob, models.Reporter)
}

// subgroup creates a group below parent (World.Groups keys it by full path).
func (b *demoBuilder) subgroup(parent *models.Group, name, path, description string, v models.Visibility) *models.Group {
	g := &models.Group{Name: name, Path: path, Description: description, Visibility: v, ParentID: &parent.ID,
		CreatedAt: at(-20, 0, 0), UpdatedAt: at(-20, 0, 0)}
	if b.err == nil {
		b.err = b.s.Groups.CreateGroup(b.ctx, g)
		b.w.Groups[g.FullPath] = g
	}
	return g
}

func (b *demoBuilder) groupMember(g *models.Group, u *models.User, level models.AccessLevel) {
	if b.err == nil {
		b.err = b.s.Groups.AddGroupMember(b.ctx, &models.GroupMember{NamespaceID: g.ID, UserID: u.ID, AccessLevel: level,
			CreatedAt: at(-20, 0, 0), UpdatedAt: at(-20, 0, 0)})
	}
}

func (b *demoBuilder) user(username, name, email string, state models.UserState, admin, eeSeat bool, day int) *models.User {
	u := &models.User{
		Username: username, Name: name, Email: email, State: state,
		Admin: admin, EESeat: eeSeat, CreatedAt: at(day-30, 0, 0), UpdatedAt: at(day-30, 0, 0),
	}
	if b.err == nil {
		b.err = b.s.Users.CreateUser(b.ctx, u)
	}
	return u
}

func (b *demoBuilder) group(name, path, description string, v models.Visibility) *models.Group {
	g := &models.Group{Name: name, Path: path, Description: description, Visibility: v,
		CreatedAt: at(-29, 0, 0), UpdatedAt: at(-29, 0, 0)}
	if b.err == nil {
		b.err = b.s.Groups.CreateGroup(b.ctx, g)
		b.w.Groups[path] = g
	}
	return g
}

func (b *demoBuilder) project(ns *models.Group, name, path, description string, v models.Visibility, day int) *models.Project {
	p := &models.Project{Name: name, Path: path, NamespaceID: ns.ID, Description: description,
		Visibility: v, DefaultBranch: "main", CreatedAt: at(day-28, 0, 0), UpdatedAt: at(day, 0, 0)}
	if b.err == nil {
		b.err = b.s.Projects.CreateProject(b.ctx, p)
		b.w.Projects[p.PathWithNamespace] = p
	}
	return p
}

func (b *demoBuilder) member(p *models.Project, u *models.User, level models.AccessLevel) {
	if b.err == nil {
		b.err = b.s.Groups.AddProjectMember(b.ctx, &models.ProjectMember{
			ProjectID: p.ID, UserID: u.ID, AccessLevel: level,
			CreatedAt: at(-27, 0, 0), UpdatedAt: at(-27, 0, 0),
		})
	}
}

func (b *demoBuilder) labels(p *models.Project, labels ...models.Label) {
	for _, l := range labels {
		if b.err != nil {
			return
		}
		l.ProjectID, l.CreatedAt, l.UpdatedAt = p.ID, at(-25, 0, 0), at(-25, 0, 0)
		b.err = b.s.Issues.CreateLabel(b.ctx, &l)
	}
}

// issue creates i in p; assignees are given as users.
func (b *demoBuilder) issue(p *models.Project, i models.Issue, assignees ...*models.User) *models.Issue {
	i.ProjectID = p.ID
	for _, u := range assignees {
		i.Assignees = append(i.Assignees, models.User{ID: u.ID})
	}
	if i.UpdatedAt.IsZero() {
		i.UpdatedAt = i.CreatedAt
	}
	if b.err == nil {
		b.err = b.s.Issues.CreateIssue(b.ctx, &i)
	}
	return &i
}

// milestone creates m in p.
func (b *demoBuilder) milestone(p *models.Project, m models.Milestone) {
	m.ProjectID, m.CreatedAt, m.UpdatedAt = p.ID, at(-20, 0, 0), at(-20, 0, 0)
	if b.err == nil {
		b.err = b.s.Issues.CreateMilestone(b.ctx, &m)
	}
}

// workItem creates i in p as a child of parent.
func (b *demoBuilder) workItem(p *models.Project, parent *models.Issue, i models.Issue, assignees ...*models.User) {
	i.ProjectID = p.ID
	for _, u := range assignees {
		i.Assignees = append(i.Assignees, models.User{ID: u.ID})
	}
	if i.UpdatedAt.IsZero() {
		i.UpdatedAt = i.CreatedAt
	}
	if b.err == nil {
		b.err = b.s.At(i.CreatedAt).Issues.CreateWorkItem(b.ctx, &i, &parent.ID)
	}
}

// link links two work items, at the later one's creation.
func (b *demoBuilder) link(from, to *models.Issue, t models.LinkType) {
	if b.err == nil {
		b.err = b.s.At(to.CreatedAt).Issues.LinkWorkItems(b.ctx, from.ID, []int64{to.ID}, t)
	}
}

// wikiPage adds a page to p's wiki.
func (b *demoBuilder) wikiPage(p *models.Project, w models.WikiPage) {
	w.ProjectID, w.CreatedAt, w.UpdatedAt = p.ID, at(-10, 0, 0), at(-10, 0, 0)
	if b.err == nil {
		b.err = b.s.Releases.CreateWikiPage(b.ctx, &w)
	}
}

// note adds a note by author on an issue or merge request of p. An empty
// discussion starts a stand-alone comment.
func (b *demoBuilder) note(p *models.Project, on any, author *models.User, n models.Note) {
	n.ProjectID, n.AuthorID = p.ID, author.ID
	switch o := on.(type) {
	case *models.Issue:
		n.NoteableType, n.NoteableID = models.NoteableIssue, o.ID
	case *models.MergeRequest:
		n.NoteableType, n.NoteableID = models.NoteableMergeRequest, o.ID
	}
	if n.DiscussionID == "" {
		n.DiscussionID = demoSHA("note", p.PathWithNamespace, n.CreatedAt.Format(time.RFC3339), n.Body)
	}
	n.UpdatedAt = n.CreatedAt
	if b.err == nil {
		b.err = b.s.Notes.CreateNote(b.ctx, &n)
	}
}

// thread returns a function adding notes to one discussion (the first call
// starts it).
func (b *demoBuilder) thread(p *models.Project, on any, name string) func(author *models.User, n models.Note) {
	id := demoSHA("discussion", p.PathWithNamespace, name)
	return func(author *models.User, n models.Note) {
		n.DiscussionID, n.Type = id, models.NoteTypeDiscussion
		b.note(p, on, author, n)
	}
}

// release records a release of tag in p, by author, released at when.
func (b *demoBuilder) release(p *models.Project, author *models.User, r models.Release) {
	r.ProjectID, r.AuthorID = p.ID, &author.ID
	r.CreatedAt, r.UpdatedAt = r.ReleasedAt, r.ReleasedAt
	if b.err == nil {
		b.err = b.s.Releases.CreateRelease(b.ctx, &r)
	}
}
