package importexport

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/repository/gitcmd"
	"gitlab.com/glmcp/glmcp/services/store"
)

// ExportSummary is what an export wrote, by relation.
type ExportSummary struct {
	Written map[string]int
	Bundle  bool // the repository had branches or tags
}

// Export writes project p as a GitLab project export (the format Read
// takes, and GitLab imports) to w: VERSION, tree/project.json, the
// relations glmcp models as tree/project/<relation>.ndjson, and the
// repository's branches, tags and HEAD as project.bundle. tmp ("" the
// system's) holds the pieces while they are written.
func Export(ctx context.Context, st *store.Store, repos *repository.Storage, p *models.Project, w io.Writer, tmp string) (*ExportSummary, error) {
	dir, err := os.MkdirTemp(tmp, "glmcp-export-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	recs, users, err := st.Imports.LoadProjectRecords(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	sum := &ExportSummary{Written: map[string]int{}}
	files := []string{versionFile, gitlabVersion, gitlabRevision, projectFile}
	write := func(name string, body []byte) error {
		full := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o700); err != nil {
			return err
		}
		return os.WriteFile(full, body, 0o600)
	}
	if err := write(versionFile, []byte(Version+"\n")); err != nil {
		return nil, err
	}
	if err := write(gitlabVersion, []byte(exportedVersion+"\n")); err != nil {
		return nil, err
	}
	if err := write(gitlabRevision, []byte("glmcp\n")); err != nil {
		return nil, err
	}
	level := visibilityLevel(p.Visibility)
	proj, err := json.Marshal(exProject{Description: p.Description, VisibilityLevel: &level, Archived: p.Archived,
		MergeRequestsFFOnlyEnabled: p.MergeMethod == models.MergeMethodFastForward,
		MergeRequestsRebaseEnabled: p.MergeMethod == models.MergeMethodRebaseMerge})
	if err != nil {
		return nil, err
	}
	if err := write(projectFile, proj); err != nil {
		return nil, err
	}

	diffs, err := mergeRequestDiffs(ctx, repos, p, recs)
	if err != nil {
		return nil, err
	}
	rels, err := exportRelations(recs, users, p.CreatedAt, diffs)
	if err != nil {
		return nil, err
	}
	for _, rel := range modelled {
		lines := rels[rel]
		name := relationDir + rel + relationSuffix
		full := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o700); err != nil {
			return nil, err
		}
		f, err := os.Create(full)
		if err != nil {
			return nil, err
		}
		bw := bufio.NewWriter(f)
		for _, rec := range lines {
			b, err := json.Marshal(rec)
			if err != nil {
				f.Close()
				return nil, err
			}
			bw.Write(b)
			bw.WriteByte('\n')
		}
		if err := bw.Flush(); err != nil {
			f.Close()
			return nil, err
		}
		if err := f.Close(); err != nil {
			return nil, err
		}
		files = append(files, name)
		sum.Written[rel] = len(lines)
	}

	if repos.Exists(p.ID) {
		bundle := filepath.Join(dir, projectBundle)
		ok, err := writeBundle(ctx, repos.Git(), repos.Path(p.ID), bundle)
		if err != nil {
			return nil, err
		}
		if ok {
			files = append(files, projectBundle)
			sum.Bundle = true
		}
	}

	wiki := filepath.Join(dir, wikiBundle)
	ok, err := writeWikiBundle(ctx, repos.Git(), recs.WikiPages, dir, wiki)
	if err != nil {
		return nil, err
	}
	if ok {
		files = append(files, wikiBundle)
		sum.Written["wiki pages"] = len(recs.WikiPages)
	}

	zw := gzip.NewWriter(w)
	tw := tar.NewWriter(zw)
	for _, name := range files {
		if err := addFile(tw, dir, name); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return sum, nil
}

func addFile(tw *tar.Writer, dir, name string) error {
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	h := &tar.Header{Name: name, Mode: 0o600, Size: info.Size(), ModTime: info.ModTime(), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	_, err = io.Copy(tw, f)
	return err
}

// writeBundle bundles the branches, tags and HEAD of the repository
// gitDir into file; false when it has neither branches nor tags.
func writeBundle(ctx context.Context, git *gitcmd.Runner, gitDir, file string) (bool, error) {
	out, err := git.Output(ctx, gitcmd.Cmd{Dir: gitDir, Name: "for-each-ref", Flags: []string{"--count=1", "--format=%(refname)"},
		Args: []string{"refs/heads/", "refs/tags/"}})
	if err != nil {
		return false, fmt.Errorf("export the repository: %w", err)
	}
	if strings.TrimSpace(string(out)) == "" {
		return false, nil
	}
	refs := []string{"--branches", "--tags"}
	if _, err := git.Output(ctx, gitcmd.Cmd{Dir: gitDir, Name: "rev-parse", Flags: []string{"--verify", "--quiet", "HEAD"}}); err == nil {
		refs = append([]string{"HEAD"}, refs...)
	}
	// The bundle's path and the ref selectors are glmcp's own.
	if err := git.Run(ctx, gitcmd.Cmd{Dir: gitDir, Name: "bundle", Flags: append([]string{"create", "--quiet", file}, refs...)}); err != nil {
		return false, fmt.Errorf("export the repository: git bundle: %w", err)
	}
	return true, nil
}

func visibilityLevel(v models.Visibility) int {
	switch v {
	case models.VisibilityPublic:
		return levelPublic
	case models.VisibilityInternal:
		return levelInternal
	}
	return levelPrivate
}

// exportRelations turns the store's records into the archive's lines, by
// relation.
func exportRelations(r *store.ProjectRecords, users map[int64]models.User, projectCreated time.Time, diffs map[int64]*exMergeRequestDiff) (map[string][]any, error) {
	out := map[string][]any{}
	// Placeholder users go out as the source users they stand for.
	src := placeholderSources(r.SourceUsers)
	named := make(map[int64]models.User, len(users))
	for id, u := range users {
		named[id] = sourceIdentity(u, src)
	}
	users = named
	for _, m := range r.Members {
		u := users[m.UserID]
		if m.CreatedAt.IsZero() {
			m.CreatedAt, m.UpdatedAt = projectCreated, projectCreated
		}
		out[relMembers] = append(out[relMembers], exMember{AccessLevel: int(m.AccessLevel), SourceType: "Project",
			UserID: m.UserID, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt,
			User: &exUser{ID: m.UserID, Username: u.Username}})
	}
	out[relMembers] = append(out[relMembers], placeholderMembers(r, users)...)
	labels := map[string]exLabel{}
	for _, l := range r.Labels {
		x := exLabel{ID: l.ID, Title: l.Name, Color: l.Color, Description: l.Description, Type: "ProjectLabel",
			CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt, Priorities: labelPrioritiesOut(&l)}
		labels[l.Name] = x
		out[relLabels] = append(out[relLabels], x)
	}
	milestones := map[string]exMilestone{}
	for _, m := range r.Milestones {
		x := exMilestone{ID: m.ID, IID: m.IID, Title: m.Title, Description: m.Description, State: string(m.State),
			StartDate: dateString(m.StartDate), DueDate: dateString(m.DueDate), CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt}
		milestones[m.Title] = x
		out[relMilestones] = append(out[relMilestones], x)
	}
	labelLinks := func(kind string, names models.StringList) []exLabelLink {
		links := []exLabelLink{}
		for _, n := range names {
			l, ok := labels[n]
			if !ok { // a label name without a label row
				l = exLabel{Title: n, Color: "#6699cc", Type: "ProjectLabel"}
			}
			l2 := l
			links = append(links, exLabelLink{LabelID: l.ID, TargetType: kind, Label: &l2})
		}
		return links
	}
	milestone := func(title string) *exMilestone {
		if title == "" {
			return nil
		}
		m, ok := milestones[title]
		if !ok {
			return nil
		}
		return &m
	}
	notesOf := map[string][]exNote{}
	for _, n := range r.Notes {
		key := fmt.Sprintf("%s/%d", n.NoteableType, n.NoteableIID)
		x := exNote{ID: n.ID, Note: n.Body, NoteableType: string(n.NoteableType), AuthorID: n.AuthorID,
			CreatedAt: n.CreatedAt, UpdatedAt: n.UpdatedAt, System: n.System, DiscussionID: n.DiscussionID,
			Internal: n.Internal, Confidential: &n.Internal, ResolvedAt: n.ResolvedAt, ResolvedByID: n.ResolvedByID,
			Author: &exAuthor{Name: users[n.AuthorID].Name}}
		if n.Type != "" {
			t := n.Type
			x.Type = &t
		}
		if n.Position != nil {
			pos := exPosition(*n.Position)
			x.Position = &pos
			var d *exMergeRequestDiff
			if n.NoteableType == models.NoteableMergeRequest {
				d = diffs[n.NoteableIID]
			}
			diffNoteOut(&n.Note, &x, d)
		}
		notesOf[key] = append(notesOf[key], x)
	}
	refs := func(us []models.User) []exUserRef {
		out := []exUserRef{}
		for _, u := range us {
			out = append(out, exUserRef{UserID: u.ID})
		}
		return out
	}
	for _, ri := range r.Issues {
		i := ri.Issue
		x := exIssue{ID: i.ID, IID: i.IID, Title: i.Title, Description: i.Description, AuthorID: i.AuthorID,
			State: string(i.State), Confidential: i.Confidential, DueDate: dateString(i.DueDate), StartDate: dateString(i.StartDate),
			CreatedAt: i.CreatedAt, UpdatedAt: i.UpdatedAt, ClosedAt: i.ClosedAt,
			WorkItemType: &exWorkItemType{BaseType: baseType(i.WorkItemTypeID)},
			Notes:        orEmpty(notesOf[fmt.Sprintf("%s/%d", models.NoteableIssue, i.IID)]),
			LabelLinks:   labelLinks("Issue", i.Labels), Milestone: milestone(i.Milestone),
			IssueAssignees: refs(i.Assignees)}
		out[relIssues] = append(out[relIssues], issueOut{exIssue: x, IssueType: legacyIssueType(x.WorkItemType.BaseType)})
	}
	approvals := map[int64][]exUserRef{}
	for _, a := range r.Approvals {
		at := a.CreatedAt
		approvals[a.MergeRequestIID] = append(approvals[a.MergeRequestIID], exUserRef{UserID: a.UserID, CreatedAt: &at, UpdatedAt: &at})
	}
	for _, rm := range r.MergeRequests {
		m := rm.MergeRequest
		mcs, scs := m.MergeCommitSHA, m.SquashCommitSHA
		dl, ac, fr := m.DiscussionLocked, m.AllowCollaboration, m.ForceRemoveSourceBranch
		x := exMergeRequest{ID: m.ID, IID: m.IID, Title: m.Title, Description: m.Description, State: string(m.State),
			SourceBranch: m.SourceBranch, TargetBranch: m.TargetBranch, AuthorID: m.AuthorID, MergeStatus: m.MergeStatus,
			MergeUserID: m.MergeUserID, MergeCommitSHA: nonEmpty(mcs), SquashCommitSHA: nonEmpty(scs), Squash: m.Squash,
			Draft: m.Draft, DiscussionLocked: &dl, AllowMaintainerToPush: &ac, MergeParams: mergeParamsOut(fr),
			DiffHeadSHA: m.SHA, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt, MergedAt: m.MergedAt, ClosedAt: m.ClosedAt,
			Notes:      orEmpty(notesOf[fmt.Sprintf("%s/%d", models.NoteableMergeRequest, m.IID)]),
			LabelLinks: labelLinks("MergeRequest", m.Labels), Milestone: milestone(rm.MilestoneTitle),
			Assignees: refs(m.Assignees), Reviewers: refs(m.Reviewers), Approvals: orEmptyRefs(approvals[m.IID]),
			Diff: diffs[m.IID]}
		if x.Diff == nil {
			x.Diff = &exMergeRequestDiff{State: "collected", BaseCommitSHA: m.DiffBaseSHA, StartCommitSHA: m.DiffBaseSHA,
				HeadCommitSHA: m.SHA, Commits: []exDiffCommit{}, Files: []exDiffFile{}}
		}
		metrics := map[string]*time.Time{"merged_at": m.MergedAt, "latest_closed_at": m.ClosedAt}
		if b, err := json.Marshal(metrics); err == nil {
			x.Metrics = b
		}
		out[relMergeRequests] = append(out[relMergeRequests], x)
	}
	for _, rp := range r.Pipelines {
		p := rp.Pipeline
		x := exPipeline{ID: p.ID, IID: p.IID, Ref: p.Ref, SHA: p.SHA, Tag: p.Tag, Status: statusValue(p.Status), Source: p.Source,
			UserID: p.UserID, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, StartedAt: p.StartedAt, FinishedAt: p.FinishedAt,
			Stages: []exStage{}}
		if p.Name != "" {
			x.Metadata = &struct {
				Name string `json:"name"`
			}{Name: p.Name}
		}
		if rp.MergeRequestIID != 0 {
			x.MergeRequest = &struct {
				IID int64 `json:"iid"`
			}{IID: rp.MergeRequestIID}
		}
		stageAt := map[string]int{}
		for _, j := range p.Jobs {
			k, ok := stageAt[j.Stage]
			if !ok {
				k = len(x.Stages)
				stageAt[j.Stage] = k
				x.Stages = append(x.Stages, exStage{Name: j.Stage, Status: statusValue(p.Status), Position: k})
			}
			retried := j.Retried
			s := exStatus{ID: j.ID, Name: j.Name, Stage: j.Stage, Status: statusValue(j.Status), Ref: j.Ref, Tag: p.Tag, Type: j.Type,
				AllowFailure: j.AllowFailure, FailureReason: nonEmpty(j.FailureReason), Retried: &retried, UserID: j.UserID,
				CreatedAt: j.CreatedAt, UpdatedAt: j.CreatedAt, StartedAt: j.StartedAt, FinishedAt: j.FinishedAt}
			if j.Type == models.JobTypeBridge {
				x.Stages[k].Bridges = append(x.Stages[k].Bridges, s)
			} else {
				x.Stages[k].Builds = append(x.Stages[k].Builds, s)
			}
		}
		out[relPipelines] = append(out[relPipelines], x)
	}
	for _, rel := range r.Releases {
		released := rel.ReleasedAt
		x := exRelease{Tag: rel.Tag, Name: rel.Name, Description: rel.Description, AuthorID: rel.AuthorID,
			CreatedAt: rel.CreatedAt, UpdatedAt: rel.UpdatedAt, ReleasedAt: &released, Links: []exReleaseLink{}}
		for _, l := range rel.Links {
			x.Links = append(x.Links, exReleaseLink{Name: l.Name, URL: l.URL, LinkType: l.LinkType, CreatedAt: l.CreatedAt, UpdatedAt: l.CreatedAt})
		}
		for _, rm := range r.ReleaseMilestones {
			if m := milestone(rm.MilestoneTitle); rm.Tag == rel.Tag && m != nil {
				x.MilestoneReleases = append(x.MilestoneReleases, exMilestoneRelease{Milestone: m})
			}
		}
		out[relReleases] = append(out[relReleases], x)
	}
	// Every user the records name, member or not, as GitLab lists its
	// contributors: the importer maps or names them by it.
	ids := make([]int64, 0, len(users))
	for id := range users {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		u := users[id]
		out[relContributions] = append(out[relContributions], exContributor{ID: u.ID, Username: u.Username, Name: u.Name})
	}
	return out, nil
}

func baseType(t models.WorkItemTypeID) string {
	for name, id := range workItemTypes {
		if id == t {
			return name
		}
	}
	return "issue"
}

func dateString(d *models.Date) *string {
	if d == nil {
		return nil
	}
	s := d.String()
	return &s
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func orEmpty(xs []exNote) []exNote {
	if xs == nil {
		return []exNote{}
	}
	return xs
}

func orEmptyRefs(xs []exUserRef) []exUserRef {
	if xs == nil {
		return []exUserRef{}
	}
	return xs
}

// mergeRequestDiffs returns each merge request's diff as the archive's
// merge_request_diff, by iid: computed in git as the tools read it (an
// open merge request's source branch against its target branch, another
// one's head against its merge base), or the diff kept for it when git
// lacks its commits; none (an empty diff) when neither has it.
func mergeRequestDiffs(ctx context.Context, repos *repository.Storage, p *models.Project, r *store.ProjectRecords) (map[int64]*exMergeRequestDiff, error) {
	out := map[int64]*exMergeRequestDiff{}
	var repo *repository.Local
	if repos.Exists(p.ID) {
		var err error
		if repo, err = repos.Open(ctx, p.ID); err != nil {
			return nil, err
		}
		defer repo.Close()
	}
	for k := range r.MergeRequests {
		m := &r.MergeRequests[k]
		var cmp *repository.Comparison
		err := models.ErrNotFound
		switch {
		case repo == nil:
		case m.State == models.MergeRequestOpened:
			cmp, err = repo.Compare(ctx, "refs/heads/"+m.TargetBranch, "refs/heads/"+m.SourceBranch, repository.CompareOptions{})
		case m.SHA != "":
			base := m.DiffBaseSHA
			if base == "" {
				base = m.SHA
			}
			cmp, err = repo.Compare(ctx, base, m.SHA, repository.CompareOptions{})
		}
		switch {
		case err == nil:
			out[m.IID] = comparisonDiff(cmp, m.DiffBaseSHA)
		case !errors.Is(err, models.ErrNotFound):
			return nil, fmt.Errorf("export the diff of merge request !%d: %w", m.IID, err)
		case m.Diff != nil:
			out[m.IID] = keptDiffOut(m.Diff)
		}
	}
	return out, nil
}

// comparisonDiff is a comparison as the archive's merge_request_diff.
func comparisonDiff(cmp *repository.Comparison, base string) *exMergeRequestDiff {
	if cmp.MergeBaseSHA != "" {
		base = cmp.MergeBaseSHA
	}
	d := &exMergeRequestDiff{State: "collected", BaseCommitSHA: base, StartCommitSHA: cmp.BaseSHA, HeadCommitSHA: cmp.HeadSHA,
		Commits: make([]exDiffCommit, 0, len(cmp.Commits)), Files: make([]exDiffFile, 0, len(cmp.Files))}
	for k, c := range cmp.Commits {
		d.Commits = append(d.Commits, exDiffCommit{SHA: c.ID, RelativeOrder: k, Message: c.Message,
			AuthoredDate: c.Author.When, CommittedDate: c.Committer.When,
			CommitAuthor: &exCommitUser{Name: c.Author.Name, Email: c.Author.Email},
			Committer:    &exCommitUser{Name: c.Committer.Name, Email: c.Committer.Email}})
	}
	for k, f := range cmp.Files {
		d.Files = append(d.Files, exDiffFile{RelativeOrder: k, NewFile: f.NewFile, RenamedFile: f.RenamedFile, DeletedFile: f.DeletedFile,
			TooLarge: f.TooLarge, Binary: f.Binary, AMode: f.AMode, BMode: f.BMode, NewPath: f.NewPath, OldPath: f.OldPath, UTF8Diff: f.Diff})
	}
	return d
}

// keptDiffOut is a kept diff as the archive's merge_request_diff.
func keptDiffOut(kd *models.MergeRequestDiff) *exMergeRequestDiff {
	d := &exMergeRequestDiff{State: "collected", BaseCommitSHA: kd.BaseSHA, StartCommitSHA: kd.StartSHA, HeadCommitSHA: kd.HeadSHA,
		Commits: make([]exDiffCommit, 0, len(kd.Commits)), Files: make([]exDiffFile, 0, len(kd.Files))}
	for k, c := range kd.Commits {
		d.Commits = append(d.Commits, exDiffCommit{SHA: c.SHA, RelativeOrder: k, Message: c.Message,
			AuthoredDate: c.AuthoredDate, CommittedDate: c.CommittedDate,
			CommitAuthor: &exCommitUser{Name: c.AuthorName, Email: c.AuthorEmail},
			Committer:    &exCommitUser{Name: c.CommitterName, Email: c.CommitterEmail}})
	}
	for k, f := range kd.Files {
		d.Files = append(d.Files, exDiffFile{RelativeOrder: k, NewFile: f.NewFile, RenamedFile: f.RenamedFile, DeletedFile: f.DeletedFile,
			TooLarge: f.TooLarge, Binary: f.Binary, AMode: f.AMode, BMode: f.BMode, NewPath: f.NewPath, OldPath: f.OldPath, UTF8Diff: f.Diff})
	}
	return d
}
