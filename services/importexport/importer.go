package importexport

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/repository/gitcmd"
	"gitlab.com/glmcp/glmcp/services/store"
)

// ImportOptions say where an archive goes and who imports it.
type ImportOptions struct {
	// GroupPath and ProjectPath name the new project (GROUP/NAME).
	GroupPath, ProjectPath string
	// Name is the project's display name ("": ProjectPath).
	Name string
	// Visibility overrides the archive's visibility level ("": the
	// archive's, narrowed to the group's).
	Visibility models.Visibility
	// Importer is the user who imports; nil is the instance's
	// administrator (the CLI's operator). An administrator's import maps
	// source users to existing users by username or public e-mail; any
	// other importer's makes a placeholder user of every source user,
	// and the importer becomes a maintainer of the project.
	Importer *models.User
	// Progress receives one line per step (nil: none).
	Progress io.Writer
	// CreateProject creates p in the top-level group groupPath (creating
	// the group when needed) inside tx.
	CreateProject func(ctx context.Context, tx *store.Store, groupPath string, p *models.Project) (*models.Project, error)
}

// Summary is what an import wrote and what it left out, by relation.
type Summary struct {
	Project    *models.Project
	Repository *repository.ImportResult // nil: the archive had no bundle
	Imported   map[string]int
	Skipped    map[string]int
	// MappedUsers are source users matched to existing users;
	// Placeholders the placeholder users made for the others.
	MappedUsers, Placeholders int
}

// Import writes the archive a into a new project: the repository staged
// first, then every row in one transaction, the repository moved into
// place last inside it. An import that fails or is interrupted leaves
// neither the project nor its repository nor any user it made.
func Import(ctx context.Context, st *store.Store, repos *repository.Storage, a *Archive, opt ImportOptions) (*Summary, error) {
	sum := &Summary{Imported: map[string]int{}, Skipped: map[string]int{}}
	for k, v := range a.Skipped {
		sum.Skipped[k] += v
	}
	progress := func(format string, args ...any) {
		if opt.Progress != nil {
			fmt.Fprintf(opt.Progress, format+"\n", args...)
		}
	}
	var staged *repository.StagedImport
	if a.Repository != "" {
		progress("copying the repository from %s", projectBundle)
		var err error
		staged, err = repos.StageImport(ctx, a.Repository, repository.ImportOptions{Progress: opt.Progress})
		if err != nil && !errors.Is(err, models.ErrInvalidInput) {
			return nil, err
		}
		if err != nil { // a bundle without branches or tags: an empty repository
			staged = nil
		} else {
			defer staged.Discard()
			sum.Repository = staged.Result
		}
	}

	full := opt.GroupPath + "/" + opt.ProjectPath
	var p *models.Project
	err := st.WithTx(ctx, func(tx *store.Store) error {
		if _, err := tx.Projects.FindProjectByPath(ctx, full); err == nil {
			return fmt.Errorf("project %s already exists; an archive is imported into a new project: %w", full, models.ErrConflict)
		} else if !errors.Is(err, models.ErrNotFound) {
			return err
		}
		vis := opt.Visibility
		if vis == "" {
			vis = archiveVisibility(a.Project.VisibilityLevel)
			if g, err := tx.Projects.FindGroupByFullPath(ctx, opt.GroupPath); err == nil && g.Visibility.Rank() < vis.Rank() {
				vis = g.Visibility
			}
		}
		name := opt.Name
		if name == "" {
			name = opt.ProjectPath
		}
		np := &models.Project{Name: name, Path: opt.ProjectPath, Description: a.Project.Description,
			Visibility: vis, Archived: a.Project.Archived, MergeMethod: mergeMethod(a.Project)}
		var err error
		if p, err = opt.CreateProject(ctx, tx, opt.GroupPath, np); err != nil {
			return err
		}
		if staged != nil && staged.Result.DefaultBranch != "" && staged.Result.DefaultBranch != p.DefaultBranch {
			if err := tx.Projects.SetProjectDefaultBranch(ctx, p.ID, staged.Result.DefaultBranch); err != nil {
				return err
			}
			p.DefaultBranch = staged.Result.DefaultBranch
		}
		progress("mapping users")
		um := newUserMap(tx, a, opt.Importer)
		if err := um.mapMembers(ctx); err != nil {
			return err
		}
		progress("converting %d issues, %d merge requests, %d pipelines", len(a.Issues), len(a.MergeRequests), len(a.Pipelines))
		recs, err := convert(ctx, a, um, sum)
		if err != nil {
			return err
		}
		if err := keepMissingDiffs(ctx, repos.Git(), a.Repository, recs, sum); err != nil {
			return err
		}
		sum.MappedUsers, sum.Placeholders = um.mapped, um.placeholders
		recs.SourceUsers = um.sources
		progress("writing the project's records")
		if err := tx.Projects.InsertProjectRecords(ctx, p.ID, recs); err != nil {
			return err
		}
		if staged != nil {
			// Last: nothing of the transaction can fail after it but the
			// commit, and Discard undoes it then.
			return staged.Install(ctx, p.ID)
		}
		return nil
	})
	if err != nil {
		if staged != nil {
			_ = staged.Discard()
		}
		if p != nil && p.ID > 0 {
			// The project's row is rolled back; so is its repository.
			_ = repos.Remove(p.ID)
		}
		return nil, err
	}
	if staged != nil {
		if err := staged.Commit(); err != nil {
			progress("warning: %v", err)
		}
	}
	sum.Project = p
	return sum, nil
}

func archiveVisibility(level *int) models.Visibility {
	if level == nil {
		return models.VisibilityPrivate
	}
	switch *level {
	case levelPublic:
		return models.VisibilityPublic
	case levelInternal:
		return models.VisibilityInternal
	}
	return models.VisibilityPrivate
}

func mergeMethod(p exProject) string {
	switch {
	case p.MergeRequestsFFOnlyEnabled:
		return models.MergeMethodFastForward
	case p.MergeRequestsRebaseEnabled:
		return models.MergeMethodRebaseMerge
	}
	return models.MergeMethodMerge
}

// userMap maps the archive's user ids to users of this instance.
type userMap struct {
	tx       *store.Store
	admin    bool
	importer *models.User
	members  map[int64]exMember
	contrib  map[int64]exContributor // user_contributions: who authored what, member or not
	names    map[int64]string        // a source user's name, from the notes' authors
	ids      map[int64]int64
	isPH     map[int64]bool
	a        *Archive

	mapped, placeholders int
	memberRows           []models.ProjectMember
	// sources are the source identities of the placeholders made.
	sources []models.ImportSourceUser
}

func newUserMap(tx *store.Store, a *Archive, importer *models.User) *userMap {
	um := &userMap{tx: tx, admin: importer == nil || importer.Admin, importer: importer,
		members: map[int64]exMember{}, contrib: map[int64]exContributor{}, names: map[int64]string{}, ids: map[int64]int64{}, isPH: map[int64]bool{}, a: a}
	for _, m := range a.Members {
		id := m.Rec.UserID
		if m.Rec.User != nil && m.Rec.User.ID != 0 {
			id = m.Rec.User.ID
		}
		um.members[id] = m.Rec
	}
	for _, c := range a.Contributors {
		um.contrib[c.Rec.ID] = c.Rec
		if c.Rec.Name != "" {
			um.names[c.Rec.ID] = c.Rec.Name
		}
	}
	note := func(notes []exNote) {
		for _, n := range notes {
			if n.Author != nil && n.Author.Name != "" {
				um.names[n.AuthorID] = n.Author.Name
			}
		}
	}
	for _, i := range a.Issues {
		note(i.Rec.Notes)
	}
	for _, m := range a.MergeRequests {
		note(m.Rec.Notes)
	}
	return um
}

// mapMembers maps every member (existing users when an administrator
// imports) and makes the memberships of the users it found; placeholder
// users get none.
func (um *userMap) mapMembers(ctx context.Context) error {
	ids := make([]int64, 0, len(um.members))
	for id := range um.members {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	seen := map[int64]bool{}
	for _, src := range ids {
		m := um.members[src]
		uid, err := um.user(ctx, src)
		if err != nil {
			return err
		}
		if um.isPH[src] {
			um.placeholderRole(src, m.AccessLevel)
			continue
		}
		if seen[uid] {
			continue
		}
		seen[uid] = true
		lvl, _ := accessLevel(m.AccessLevel)
		um.memberRows = append(um.memberRows, models.ProjectMember{UserID: uid, AccessLevel: lvl, CreatedAt: orNow(m.CreatedAt), UpdatedAt: orNow(m.UpdatedAt)})
	}
	if um.importer != nil && !seen[um.importer.ID] {
		now := orNow(time.Time{})
		um.memberRows = append(um.memberRows, models.ProjectMember{UserID: um.importer.ID, AccessLevel: models.AccessLevel(40), CreatedAt: now, UpdatedAt: now})
	}
	return nil
}

// user is the user of this instance source user src stands for.
func (um *userMap) user(ctx context.Context, src int64) (int64, error) {
	if id, ok := um.ids[src]; ok {
		return id, nil
	}
	var username string
	var emails []string
	if m, ok := um.members[src]; ok && m.User != nil {
		username, emails = m.User.Username, []string{m.User.PublicEmail, m.User.Email}
	} else if c, ok := um.contrib[src]; ok {
		username, emails = c.Username, []string{c.PublicEmail}
	}
	if um.admin && (username != "" || len(emails) > 0) {
		var u *models.User
		var err error
		if username != "" {
			u, err = um.tx.Users.FindUserByUsername(ctx, username)
		}
		for _, email := range emails {
			if u == nil && email != "" {
				u, err = um.tx.Users.FindUserByEmail(ctx, email)
			}
		}
		if err != nil && !errors.Is(err, models.ErrNotFound) {
			return 0, err
		}
		if u != nil {
			um.ids[src] = u.ID
			um.mapped++
			return u.ID, nil
		}
	}
	id, err := um.placeholder(ctx, src)
	if err != nil {
		return 0, err
	}
	um.ids[src] = id
	um.isPH[src] = true
	um.placeholders++
	return id, nil
}

var unsafeUsername = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// placeholder makes the blocked user that stands for source user src:
// named after the source's username or name, never able to sign in.
func (um *userMap) placeholder(ctx context.Context, src int64) (int64, error) {
	base, display := "", ""
	if m, ok := um.members[src]; ok && m.User != nil {
		base, display = m.User.Username, m.User.Username
	} else if c, ok := um.contrib[src]; ok && c.Username != "" {
		base, display = c.Username, c.Username
	}
	if n := um.names[src]; n != "" {
		display = n
		if base == "" {
			base = n
		}
	}
	base = strings.Trim(unsafeUsername.ReplaceAllString(base, "_"), "_.-")
	if base == "" {
		base = fmt.Sprintf("user%d", src)
	}
	if display == "" {
		display = fmt.Sprintf("source user %d", src)
	}
	for n := 1; n < 1000; n++ {
		username := fmt.Sprintf("%s_placeholder_%d", truncate(base, 40), n)
		if _, err := um.tx.Users.FindUserByUsername(ctx, username); err == nil {
			continue
		} else if !errors.Is(err, models.ErrNotFound) {
			return 0, err
		}
		u := &models.User{Username: username, Name: "Placeholder " + display,
			Email: username + "@placeholder.glmcp.invalid", State: models.UserBlocked}
		err := um.tx.Users.CreateUser(ctx, u)
		if errors.Is(err, models.ErrConflict) {
			continue
		}
		if err != nil {
			return 0, err
		}
		um.sources = append(um.sources, um.sourceUser(src, u.ID))
		return u.ID, nil
	}
	return 0, fmt.Errorf("no free placeholder username for source user %d: %w", src, models.ErrConflict)
}

func (um *userMap) ptr(ctx context.Context, src *int64) (*int64, error) {
	if src == nil || *src == 0 {
		return nil, nil
	}
	id, err := um.user(ctx, *src)
	if err != nil {
		return nil, err
	}
	return &id, nil
}

// convert turns the archive's relations into the store's records.
func convert(ctx context.Context, a *Archive, um *userMap, sum *Summary) (*store.ProjectRecords, error) {
	r := &store.ProjectRecords{Members: um.memberRows}
	sum.Imported[relMembers] = len(um.memberRows)
	if n := len(a.Members) - countMembersMapped(um); n > 0 {
		sum.Skipped["project_members (placeholder users get no membership)"] += n
	}
	labels := map[string]bool{}
	labelByID := map[int64]string{}
	addLabel := func(l exLabel) {
		labelByID[l.ID] = l.Title
		if labels[l.Title] {
			return
		}
		labels[l.Title] = true
		color := l.Color
		if color == "" {
			color = "#6699cc"
		}
		r.Labels = append(r.Labels, models.Label{Name: l.Title, Color: color, Description: l.Description,
			Priority: labelPriority(&l), CreatedAt: orNow(l.CreatedAt), UpdatedAt: orNow(l.UpdatedAt)})
	}
	for _, l := range a.Labels {
		addLabel(l.Rec)
	}
	sum.Imported[relLabels] = len(r.Labels)
	labelTitles := func(links []exLabelLink) models.StringList {
		out := models.StringList{}
		for _, l := range links {
			if l.Label != nil {
				if !labels[l.Label.Title] {
					addLabel(*l.Label)
					sum.Imported["labels (group labels copied)"]++
				}
				out = append(out, l.Label.Title)
			} else {
				out = append(out, labelByID[l.LabelID])
			}
		}
		return out
	}

	milestones := map[string]bool{}
	var maxIID int64
	for _, m := range a.Milestones {
		maxIID = max(maxIID, m.Rec.IID)
	}
	addMilestone := func(m exMilestone, keepIID bool) {
		if milestones[m.Title] {
			return
		}
		milestones[m.Title] = true
		iid := m.IID
		if !keepIID {
			maxIID++
			iid = maxIID
		}
		state := models.MilestoneState(m.State)
		if state == "" {
			state = models.MilestoneActive
		}
		r.Milestones = append(r.Milestones, models.Milestone{IID: iid, Title: m.Title, Description: m.Description,
			State: state, StartDate: date(m.StartDate), DueDate: date(m.DueDate),
			CreatedAt: orNow(m.CreatedAt), UpdatedAt: orNow(m.UpdatedAt)})
	}
	for _, m := range a.Milestones {
		addMilestone(m.Rec, true)
	}
	sum.Imported[relMilestones] = len(r.Milestones)
	milestoneTitle := func(m *exMilestone) string {
		if m == nil || m.Title == "" {
			return ""
		}
		if !milestones[m.Title] {
			addMilestone(*m, false)
			sum.Imported["milestones (group milestones copied)"]++
		}
		return m.Title
	}

	users := func(refs []exUserRef) ([]models.User, error) {
		var out []models.User
		seen := map[int64]bool{}
		for _, x := range refs {
			id, err := um.user(ctx, x.UserID)
			if err != nil {
				return nil, err
			}
			if !seen[id] {
				seen[id] = true
				out = append(out, models.User{ID: id})
			}
		}
		return out, nil
	}
	// The merge requests' diffs, where diff notes' lines are.
	mrDiffs := map[int64]*exMergeRequestDiff{}
	for _, l := range a.MergeRequests {
		mrDiffs[l.Rec.IID] = l.Rec.Diff
	}
	notes := func(kind models.NoteableType, iid int64, list []exNote) error {
		for k, x := range list {
			author, err := um.user(ctx, x.AuthorID)
			if err != nil {
				return err
			}
			n := models.Note{NoteableType: kind, AuthorID: author, Body: x.Note, System: x.System,
				Internal:     x.Internal || (x.Confidential != nil && *x.Confidential),
				DiscussionID: x.DiscussionID, CreatedAt: orNow(x.CreatedAt), UpdatedAt: orNow(x.UpdatedAt), ResolvedAt: x.ResolvedAt}
			if x.Type != nil {
				switch *x.Type {
				case models.NoteTypeDiff:
					n.Type = models.NoteTypeDiff
					pos := models.DiffPosition(*x.Position)
					if pos.PositionType == "" {
						pos.PositionType = "text"
					}
					n.Position = &pos
					var d *exMergeRequestDiff
					if kind == models.NoteableMergeRequest {
						d = mrDiffs[iid]
					}
					diffNoteFields(&x, &n, d)
				case models.NoteTypeDiscussion:
					n.Type = models.NoteTypeDiscussion
				default:
					sum.Skipped["notes: "+*x.Type+" kept as plain notes"]++
				}
			}
			if n.DiscussionID == "" {
				// A note of its own (GitLab exports no note ids).
				h := sha1.Sum([]byte(fmt.Sprintf("%s/%d/%d", kind, iid, k)))
				n.DiscussionID = hex.EncodeToString(h[:])
			}
			if n.ResolvedByID, err = um.ptr(ctx, x.ResolvedByID); err != nil {
				return err
			}
			sum.Skipped["award_emoji"] += countArray(x.AwardEmoji)
			r.Notes = append(r.Notes, store.RecordNote{Note: n, NoteableIID: iid})
			sum.Imported["notes"]++
		}
		return nil
	}

	for _, l := range a.Issues {
		x := l.Rec
		author, err := um.user(ctx, x.AuthorID)
		if err != nil {
			return nil, err
		}
		assignees, err := users(x.IssueAssignees)
		if err != nil {
			return nil, err
		}
		i := models.Issue{IID: x.IID, Title: x.Title, Description: x.Description, State: models.IssueState(x.State),
			Labels: labelTitles(x.LabelLinks), Milestone: milestoneTitle(x.Milestone), Confidential: x.Confidential,
			AuthorID: author, CreatedAt: orNow(x.CreatedAt), UpdatedAt: orNow(x.UpdatedAt), ClosedAt: x.ClosedAt,
			DueDate: date(x.DueDate), StartDate: date(x.StartDate), Assignees: assignees, WorkItemTypeID: models.TypeIssue}
		if x.WorkItemType != nil {
			i.WorkItemTypeID = workItemTypes[x.WorkItemType.BaseType]
		}
		if i.State == models.IssueClosed && i.ClosedAt == nil {
			t := i.UpdatedAt
			i.ClosedAt = &t
		}
		r.Issues = append(r.Issues, store.RecordIssue{Issue: i})
		if err := notes(models.NoteableIssue, x.IID, x.Notes); err != nil {
			return nil, err
		}
		sum.Skipped["award_emoji"] += countArray(x.AwardEmoji)
		sum.Skipped["resource_state_events"] += countArray(x.ResourceStateEvents)
		sum.Skipped["events"] += countArray(x.Events)
		sum.Skipped["timelogs"] += countArray(x.Timelogs)
	}
	sum.Imported[relIssues] = len(r.Issues)

	for _, l := range a.MergeRequests {
		x := l.Rec
		author, err := um.user(ctx, x.AuthorID)
		if err != nil {
			return nil, err
		}
		assignees, err := users(x.Assignees)
		if err != nil {
			return nil, err
		}
		reviewers, err := users(x.Reviewers)
		if err != nil {
			return nil, err
		}
		state := models.MergeRequestState(x.State)
		if x.State == "locked" {
			state = models.MergeRequestOpened
		}
		m := models.MergeRequest{IID: x.IID, Title: x.Title, Description: x.Description, State: state,
			SourceBranch: x.SourceBranch, TargetBranch: x.TargetBranch, AuthorID: author,
			Labels: labelTitles(x.LabelLinks), Draft: x.Draft, MergeStatus: x.MergeStatus, SHA: x.DiffHeadSHA,
			Squash: x.Squash, MergedAt: x.MergedAt, ClosedAt: x.ClosedAt,
			CreatedAt: orNow(x.CreatedAt), UpdatedAt: orNow(x.UpdatedAt), Assignees: assignees, Reviewers: reviewers}
		switch m.MergeStatus {
		case "", models.MergeStatusUnchecked, models.MergeStatusChecking, models.MergeStatusCanBeMerged, models.MergeStatusCannotBeMerged:
		default:
			m.MergeStatus = models.MergeStatusUnchecked
		}
		if x.Diff != nil {
			if m.SHA == "" {
				m.SHA = x.Diff.HeadCommitSHA
			}
			m.DiffBaseSHA = x.Diff.BaseCommitSHA
		}
		if x.MergeCommitSHA != nil {
			m.MergeCommitSHA = *x.MergeCommitSHA
		}
		if x.SquashCommitSHA != nil {
			m.SquashCommitSHA = *x.SquashCommitSHA
		}
		if x.DiscussionLocked != nil {
			m.DiscussionLocked = *x.DiscussionLocked
		}
		if x.AllowMaintainerToPush != nil {
			m.AllowCollaboration = *x.AllowMaintainerToPush
		}
		if force, ok := forceRemoveSourceBranch(&x); ok {
			m.ForceRemoveSourceBranch = force
		}
		if m.MergeUserID, err = um.ptr(ctx, x.MergeUserID); err != nil {
			return nil, err
		}
		metricsTimes(x.Metrics, &m)
		if m.State == models.MergeRequestMerged && m.MergedAt == nil {
			t := m.UpdatedAt
			m.MergedAt = &t
		}
		if m.State == models.MergeRequestClosed && m.ClosedAt == nil {
			t := m.UpdatedAt
			m.ClosedAt = &t
		}
		r.MergeRequests = append(r.MergeRequests, store.RecordMergeRequest{MergeRequest: m, MilestoneTitle: milestoneTitle(x.Milestone),
			Diff: keptDiff(x.Diff, m.SHA)})
		if err := notes(models.NoteableMergeRequest, x.IID, x.Notes); err != nil {
			return nil, err
		}
		approved := map[int64]bool{}
		for _, ap := range x.Approvals {
			id, err := um.user(ctx, ap.UserID)
			if err != nil {
				return nil, err
			}
			if approved[id] {
				continue
			}
			approved[id] = true
			at := m.UpdatedAt
			if ap.CreatedAt != nil {
				at = *ap.CreatedAt
			}
			r.Approvals = append(r.Approvals, store.RecordApproval{MergeRequestIID: x.IID, UserID: id, CreatedAt: at})
			sum.Imported["approvals"]++
		}
		sum.Skipped["award_emoji"] += countArray(x.AwardEmoji)
		sum.Skipped["resource_state_events"] += countArray(x.ResourceStateEvents)
		sum.Skipped["events"] += countArray(x.Events)
		sum.Skipped["timelogs"] += countArray(x.Timelogs)
	}
	sum.Imported[relMergeRequests] = len(r.MergeRequests)

	for _, l := range a.Pipelines {
		x := l.Rec
		uid, err := um.ptr(ctx, x.UserID)
		if err != nil {
			return nil, err
		}
		source := x.Source
		if source == "" {
			source = models.PipelineSourcePush
		}
		name := ""
		if x.Metadata != nil {
			name = x.Metadata.Name
		}
		p := models.Pipeline{IID: x.IID, SHA: x.SHA, Ref: x.Ref, Status: x.Status, Source: source, UserID: uid, Name: name,
			Tag: x.Tag, CreatedAt: orNow(x.CreatedAt), UpdatedAt: orNow(x.UpdatedAt), StartedAt: x.StartedAt, FinishedAt: x.FinishedAt}
		stages := append([]exStage(nil), x.Stages...)
		sort.SliceStable(stages, func(i, j int) bool { return stages[i].Position < stages[j].Position })
		for _, s := range stages {
			for _, j := range s.jobs() {
				juid, err := um.ptr(ctx, j.UserID)
				if err != nil {
					return nil, err
				}
				job := models.CIJob{Name: j.Name, Stage: j.Stage, Status: j.Status, Ref: j.Ref, AllowFailure: j.AllowFailure,
					CreatedAt: orNow(j.CreatedAt), StartedAt: j.StartedAt, FinishedAt: j.FinishedAt, Type: j.Type, UserID: juid}
				if job.Stage == "" {
					job.Stage = s.Name
				}
				if job.Ref == "" {
					job.Ref = x.Ref
				}
				if job.Type != models.JobTypeBridge {
					job.Type = models.JobTypeBuild
				}
				if j.FailureReason != nil {
					job.FailureReason = *j.FailureReason
				}
				if j.Retried != nil {
					job.Retried = *j.Retried
				}
				if j.StartedAt != nil && j.FinishedAt != nil {
					d := j.FinishedAt.Sub(*j.StartedAt).Seconds()
					job.Duration = &d
				}
				p.Jobs = append(p.Jobs, job)
				sum.Imported["jobs"]++
			}
		}
		rp := store.RecordPipeline{Pipeline: p}
		if x.MergeRequest != nil {
			rp.MergeRequestIID = x.MergeRequest.IID
		}
		r.Pipelines = append(r.Pipelines, rp)
	}
	sum.Imported[relPipelines] = len(r.Pipelines)

	for _, l := range a.Releases {
		x := l.Rec
		author, err := um.ptr(ctx, x.AuthorID)
		if err != nil {
			return nil, err
		}
		rel := models.Release{Tag: x.Tag, Name: x.Name, Description: x.Description, AuthorID: author,
			CreatedAt: orNow(x.CreatedAt), UpdatedAt: orNow(x.UpdatedAt)}
		if rel.Name == "" {
			rel.Name = x.Tag
		}
		rel.ReleasedAt = rel.CreatedAt
		if x.ReleasedAt != nil {
			rel.ReleasedAt = *x.ReleasedAt
		}
		for _, k := range x.Links {
			lt := k.LinkType
			if lt == "" {
				lt = "other"
			}
			rel.Links = append(rel.Links, models.ReleaseLink{Name: k.Name, URL: k.URL, LinkType: lt, CreatedAt: orNow(k.CreatedAt)})
			sum.Imported["release links"]++
		}
		r.Releases = append(r.Releases, rel)
		for _, mr := range x.MilestoneReleases {
			if title := milestoneTitle(mr.Milestone); title != "" {
				r.ReleaseMilestones = append(r.ReleaseMilestones, store.RecordReleaseMilestone{Tag: x.Tag, MilestoneTitle: title})
				sum.Imported["release milestones"]++
			}
		}
	}
	sum.Imported[relReleases] = len(r.Releases)
	r.WikiPages = a.WikiPages
	sum.Imported["wiki pages"] = len(r.WikiPages)
	for k, v := range sum.Skipped {
		if v == 0 {
			delete(sum.Skipped, k)
		}
	}
	return r, nil
}

func countMembersMapped(um *userMap) int {
	n := 0
	for src := range um.members {
		if !um.isPH[src] {
			n++
		}
	}
	return n
}

// metricsTimes reads merged_at and latest_closed_at from a merge request's
// exported metrics.
func metricsTimes(raw json.RawMessage, m *models.MergeRequest) {
	if len(raw) == 0 {
		return
	}
	var x struct {
		MergedAt *time.Time `json:"merged_at"`
		ClosedAt *time.Time `json:"latest_closed_at"`
	}
	if json.Unmarshal(raw, &x) != nil {
		return
	}
	if m.MergedAt == nil {
		m.MergedAt = x.MergedAt
	}
	if m.ClosedAt == nil {
		m.ClosedAt = x.ClosedAt
	}
}

// countArray is the length of a JSON array (0 for anything else).
func countArray(raw json.RawMessage) int {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return 0
	}
	var xs []json.RawMessage
	if json.Unmarshal(raw, &xs) != nil {
		return 0
	}
	return len(xs)
}

func date(s *string) *models.Date {
	if s == nil || *s == "" {
		return nil
	}
	d, err := models.ParseDate(*s)
	if err != nil {
		return nil
	}
	return &d
}

func orNow(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now().UTC().Truncate(time.Microsecond)
	}
	return t.UTC()
}

// keptDiff is the diff d carries for a merge request whose head is head,
// as glmcp keeps it; nil when d has neither commits nor files.
func keptDiff(d *exMergeRequestDiff, head string) *models.MergeRequestDiff {
	if d == nil || len(d.Commits) == 0 && len(d.Files) == 0 {
		return nil
	}
	out := &models.MergeRequestDiff{HeadSHA: head, BaseSHA: d.BaseCommitSHA, StartSHA: d.StartCommitSHA,
		Commits: make([]models.MergeRequestDiffCommit, 0, len(d.Commits)), Files: make([]models.MergeRequestDiffFile, 0, len(d.Files))}
	commits := append([]exDiffCommit(nil), d.Commits...)
	sort.SliceStable(commits, func(i, j int) bool { return commits[i].RelativeOrder < commits[j].RelativeOrder })
	for _, c := range commits {
		k := models.MergeRequestDiffCommit{SHA: c.SHA, Message: c.Message, AuthorName: c.AuthorName, AuthorEmail: c.AuthorEmail,
			AuthoredDate: c.AuthoredDate, CommitterName: c.CommitterName, CommitterEmail: c.CommitterEmail, CommittedDate: c.CommittedDate}
		if c.CommitAuthor != nil {
			k.AuthorName, k.AuthorEmail = c.CommitAuthor.Name, c.CommitAuthor.Email
		}
		if c.Committer != nil {
			k.CommitterName, k.CommitterEmail = c.Committer.Name, c.Committer.Email
		}
		if k.CommitterName == "" && k.CommitterEmail == "" {
			k.CommitterName, k.CommitterEmail = k.AuthorName, k.AuthorEmail
		}
		out.Commits = append(out.Commits, k)
	}
	files := append([]exDiffFile(nil), d.Files...)
	sort.SliceStable(files, func(i, j int) bool { return files[i].RelativeOrder < files[j].RelativeOrder })
	for _, f := range files {
		diff := f.UTF8Diff
		if diff == "" {
			diff = f.Diff
		}
		out.Files = append(out.Files, models.MergeRequestDiffFile{OldPath: f.OldPath, NewPath: f.NewPath, AMode: f.AMode, BMode: f.BMode,
			NewFile: f.NewFile, RenamedFile: f.RenamedFile, DeletedFile: f.DeletedFile, TooLarge: f.TooLarge, Binary: f.Binary, Diff: diff})
	}
	return out
}

// keepMissingDiffs keeps the exported diff of the merge requests whose
// commits the imported repository lacks: a head no branch or tag
// reaches (a deleted source branch, a head only in refs/merge-requests/*),
// or a missing branch of an open one. glmcp reads every other merge
// request's diff and commits from git, and drops its copy.
func keepMissingDiffs(ctx context.Context, git *gitcmd.Runner, repo string, r *store.ProjectRecords, sum *Summary) error {
	tips := map[string]string{} // ref → commit
	isTip := map[string]bool{}
	if repo != "" {
		out, err := git.Output(ctx, gitcmd.Cmd{Dir: repo, Name: "for-each-ref", Flags: []string{"--format=%(objectname) %(refname)"},
			Args: []string{"refs/heads/", "refs/tags/"}})
		if err != nil {
			return fmt.Errorf("list the repository's branches: %w", err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if sha, ref, ok := strings.Cut(l, " "); ok {
				tips[ref], isTip[sha] = sha, true
			}
		}
	}
	for k := range r.MergeRequests {
		m := &r.MergeRequests[k]
		if m.Diff == nil {
			continue
		}
		reached := isTip[m.SHA]
		if !reached && repo != "" {
			var err error
			if reached, err = reachable(ctx, git, repo, m.SHA); err != nil {
				return err
			}
		}
		if m.State == models.MergeRequestOpened {
			// An open merge request is read from its branches.
			_, src := tips["refs/heads/"+m.SourceBranch]
			_, dst := tips["refs/heads/"+m.TargetBranch]
			reached = reached && src && dst
		}
		if reached {
			sum.Skipped["merge_request_diff_commits (read from git)"] += len(m.Diff.Commits)
			sum.Skipped["merge_request_diff_files (read from git)"] += len(m.Diff.Files)
			m.Diff = nil
			continue
		}
		sum.Imported["merge_request_diffs (commits not in the repository)"]++
	}
	return nil
}

// reachable reports whether a branch or tag of the git directory repo
// reaches commit sha.
func reachable(ctx context.Context, git *gitcmd.Runner, repo, sha string) (bool, error) {
	if !isHexSHA(sha) {
		return false, nil
	}
	if _, err := git.Output(ctx, gitcmd.Cmd{Dir: repo, Name: "cat-file", Flags: []string{"-e"}, Args: []string{sha + "^{commit}"}}); err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return false, nil // not in the repository at all
	}
	out, err := git.Output(ctx, gitcmd.Cmd{Dir: repo, Name: "for-each-ref", Flags: []string{"--count=1", "--format=%(refname)", "--contains", sha},
		Args: []string{"refs/heads/", "refs/tags/"}})
	if err != nil {
		return false, fmt.Errorf("look for commit %s in the repository: %w", sha, err)
	}
	return strings.TrimSpace(string(out)) != "", nil
}

// isHexSHA reports whether s is a full commit id (SHA-1 or SHA-256).
func isHexSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
