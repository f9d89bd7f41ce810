package importexport

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository/gitcmd"
)

// check refuses what the parsed relations cannot mean: numbers missing or
// given twice, states glmcp does not know, and references to labels,
// milestones and merge requests that are not in the archive.
func (a *Archive) check() error {
	lbl := relationDir + relLabels + relationSuffix
	labelIDs := map[int64]bool{}
	labelTitles := map[string]int{}
	for _, l := range a.Labels {
		if strings.TrimSpace(l.Rec.Title) == "" {
			return refuse(lbl, l.N, "a label without a title")
		}
		if first, dup := labelTitles[l.Rec.Title]; dup {
			return refuse(lbl, l.N, "duplicate label %q (first on line %d)", l.Rec.Title, first)
		}
		labelTitles[l.Rec.Title] = l.N
		labelIDs[l.Rec.ID] = true
	}
	ms := relationDir + relMilestones + relationSuffix
	milestoneTitles := map[string]bool{}
	if err := uniqueIIDs(ms, a.Milestones, func(m exMilestone) int64 { return m.IID }); err != nil {
		return err
	}
	for _, m := range a.Milestones {
		if strings.TrimSpace(m.Rec.Title) == "" {
			return refuse(ms, m.N, "a milestone without a title")
		}
		if milestoneTitles[m.Rec.Title] {
			return refuse(ms, m.N, "duplicate milestone %q", m.Rec.Title)
		}
		if m.Rec.State != "" && m.Rec.State != "active" && m.Rec.State != "closed" {
			return refuse(ms, m.N, "milestone state %q is not active or closed", m.Rec.State)
		}
		for _, d := range []*string{m.Rec.StartDate, m.Rec.DueDate} {
			if d != nil && *d != "" {
				if _, err := models.ParseDate(*d); err != nil {
					return refuse(ms, m.N, "date %q is not YYYY-MM-DD", *d)
				}
			}
		}
		milestoneTitles[m.Rec.Title] = true
	}
	checkLinks := func(entry string, n int, links []exLabelLink) error {
		for _, l := range links {
			if l.Label == nil {
				if !labelIDs[l.LabelID] {
					return refuse(entry, n, "a label link to label id %d, which is not in the archive", l.LabelID)
				}
				continue
			}
			if strings.TrimSpace(l.Label.Title) == "" {
				return refuse(entry, n, "a label link to a label without a title")
			}
		}
		return nil
	}
	type noteable struct {
		mr  bool
		iid int64
	}
	threads := map[string]noteable{}
	checkNotes := func(entry string, n int, iid int64, notes []exNote, mr bool) error {
		for _, x := range notes {
			if x.DiscussionID != "" {
				if at, ok := threads[x.DiscussionID]; ok && at != (noteable{mr, iid}) {
					return refuse(entry, n, "discussion %s is also another issue's or merge request's", truncate(x.DiscussionID, 64))
				}
				threads[x.DiscussionID] = noteable{mr, iid}
			}
			if strings.TrimSpace(x.Note) == "" {
				return refuse(entry, n, "note %d has no text", x.ID)
			}
			if x.Type != nil && *x.Type == models.NoteTypeDiff {
				if !mr {
					return refuse(entry, n, "note %d is a diff note on an issue", x.ID)
				}
				if x.Position == nil || (x.Position.NewPath == "" && x.Position.OldPath == "") {
					return refuse(entry, n, "diff note %d has no position", x.ID)
				}
			}
		}
		return nil
	}

	is := relationDir + relIssues + relationSuffix
	if err := uniqueIIDs(is, a.Issues, func(i exIssue) int64 { return i.IID }); err != nil {
		return err
	}
	for _, i := range a.Issues {
		if strings.TrimSpace(i.Rec.Title) == "" {
			return refuse(is, i.N, "issue #%d has no title", i.Rec.IID)
		}
		if i.Rec.State != "opened" && i.Rec.State != "closed" {
			return refuse(is, i.N, "issue #%d: state %q is not opened or closed", i.Rec.IID, i.Rec.State)
		}
		if err := checkLinks(is, i.N, i.Rec.LabelLinks); err != nil {
			return err
		}
		if err := checkNotes(is, i.N, i.Rec.IID, i.Rec.Notes, false); err != nil {
			return err
		}
		for _, d := range []*string{i.Rec.DueDate, i.Rec.StartDate} {
			if d != nil && *d != "" {
				if _, err := models.ParseDate(*d); err != nil {
					return refuse(is, i.N, "issue #%d: date %q is not YYYY-MM-DD", i.Rec.IID, *d)
				}
			}
		}
		if i.Rec.WorkItemType != nil {
			if _, ok := workItemTypes[i.Rec.WorkItemType.BaseType]; !ok {
				return refuse(is, i.N, "issue #%d: work item type %q is not one glmcp knows", i.Rec.IID, i.Rec.WorkItemType.BaseType)
			}
		}
	}

	mrEntry := relationDir + relMergeRequests + relationSuffix
	if err := uniqueIIDs(mrEntry, a.MergeRequests, func(m exMergeRequest) int64 { return m.IID }); err != nil {
		return err
	}
	mrIIDs := map[int64]bool{}
	for _, m := range a.MergeRequests {
		mrIIDs[m.Rec.IID] = true
		if strings.TrimSpace(m.Rec.Title) == "" {
			return refuse(mrEntry, m.N, "merge request !%d has no title", m.Rec.IID)
		}
		switch m.Rec.State {
		case "opened", "closed", "merged", "locked":
		default:
			return refuse(mrEntry, m.N, "merge request !%d: state %q is not opened, closed, merged or locked", m.Rec.IID, m.Rec.State)
		}
		if m.Rec.SourceBranch == "" || m.Rec.TargetBranch == "" {
			return refuse(mrEntry, m.N, "merge request !%d has no source or target branch", m.Rec.IID)
		}
		if err := checkLinks(mrEntry, m.N, m.Rec.LabelLinks); err != nil {
			return err
		}
		if err := checkNotes(mrEntry, m.N, m.Rec.IID, m.Rec.Notes, true); err != nil {
			return err
		}
	}

	pe := relationDir + relPipelines + relationSuffix
	if err := uniqueIIDs(pe, a.Pipelines, func(p exPipeline) int64 { return p.IID }); err != nil {
		return err
	}
	for _, p := range a.Pipelines {
		if p.Rec.SHA == "" || p.Rec.Ref == "" {
			return refuse(pe, p.N, "pipeline #%d has no sha or ref", p.Rec.IID)
		}
		if !knownStatus(p.Rec.Status) {
			return refuse(pe, p.N, "pipeline #%d: status %q is not one GitLab writes", p.Rec.IID, p.Rec.Status)
		}
		if p.Rec.MergeRequest != nil && !mrIIDs[p.Rec.MergeRequest.IID] {
			return refuse(pe, p.N, "pipeline #%d ran for merge request !%d, which is not in the archive", p.Rec.IID, p.Rec.MergeRequest.IID)
		}
		for _, s := range p.Rec.Stages {
			for _, j := range s.jobs() {
				if strings.TrimSpace(j.Name) == "" {
					return refuse(pe, p.N, "pipeline #%d has a job without a name", p.Rec.IID)
				}
				if !knownStatus(j.Status) {
					return refuse(pe, p.N, "pipeline #%d: job %q: status %q is not one GitLab writes", p.Rec.IID, j.Name, j.Status)
				}
			}
		}
	}

	re := relationDir + relReleases + relationSuffix
	tags := map[string]int{}
	for _, r := range a.Releases {
		if strings.TrimSpace(r.Rec.Tag) == "" {
			return refuse(re, r.N, "a release without a tag")
		}
		if first, dup := tags[r.Rec.Tag]; dup {
			return refuse(re, r.N, "duplicate release of tag %q (first on line %d)", r.Rec.Tag, first)
		}
		tags[r.Rec.Tag] = r.N
		for _, l := range r.Rec.Links {
			if strings.TrimSpace(l.Name) == "" || strings.TrimSpace(l.URL) == "" {
				return refuse(re, r.N, "release %s has a link without a name or a URL", r.Rec.Tag)
			}
			switch l.LinkType {
			case "", "other", "runbook", "image", "package":
			default:
				return refuse(re, r.N, "release %s: link type %q", r.Rec.Tag, l.LinkType)
			}
		}
	}

	me := relationDir + relMembers + relationSuffix
	users := map[int64]int{}
	for _, m := range a.Members {
		if _, err := accessLevel(m.Rec.AccessLevel); err != nil {
			return refuse(me, m.N, "access level %d is not 10, 20, 30, 40 or 50", m.Rec.AccessLevel)
		}
		id := m.Rec.UserID
		if m.Rec.User != nil && m.Rec.User.ID != 0 {
			id = m.Rec.User.ID
		}
		if id == 0 {
			return refuse(me, m.N, "a member without a user")
		}
		if first, dup := users[id]; dup {
			return refuse(me, m.N, "user %d is a member twice (first on line %d)", id, first)
		}
		users[id] = m.N
	}
	return nil
}

// uniqueIIDs refuses a record without a number, or whose number an
// earlier record of the relation has.
func uniqueIIDs[T any](entry string, recs []line[T], iid func(T) int64) error {
	seen := map[int64]int{}
	for _, r := range recs {
		n := iid(r.Rec)
		if n <= 0 {
			return refuse(entry, r.N, "iid %d: every record needs a positive iid", n)
		}
		if first, dup := seen[n]; dup {
			return refuse(entry, r.N, "duplicate iid %d (first on line %d)", n, first)
		}
		seen[n] = r.N
	}
	return nil
}

// jobs are the stage's jobs, whichever key the exporting version used.
func (s exStage) jobs() []exStatus {
	out := make([]exStatus, 0, len(s.Statuses)+len(s.Builds)+len(s.Bridges)+len(s.Generic))
	out = append(out, s.Statuses...)
	out = append(out, s.Builds...)
	for _, b := range s.Bridges {
		if b.Type == "" {
			b.Type = models.JobTypeBridge
		}
		out = append(out, b)
	}
	return append(out, s.Generic...)
}

var statuses = map[string]bool{"created": true, "waiting_for_resource": true, "preparing": true,
	"waiting_for_callback": true, "pending": true, "running": true, "success": true, "failed": true,
	"canceling": true, "canceled": true, "skipped": true, "manual": true, "scheduled": true}

func knownStatus(s string) bool { return statuses[s] }

// workItemTypes map GitLab's base types to glmcp's.
var workItemTypes = map[string]models.WorkItemTypeID{
	"issue": models.TypeIssue, "incident": models.TypeIncident, "test_case": models.TypeTestCase,
	"requirement": models.TypeRequirement, "task": models.TypeTask, "objective": models.TypeObjective,
	"key_result": models.TypeKeyResult, "epic": models.TypeEpic, "ticket": models.TypeTicket,
}

func accessLevel(n int) (models.AccessLevel, error) {
	switch n {
	case 10, 20, 30, 40, 50:
		return models.AccessLevel(n), nil
	}
	return 0, fmt.Errorf("access level %d: %w", n, models.ErrInvalidInput)
}

// unbundle verifies the bundle entry (unpacked at file) with git and
// copies its branches and tags into a new bare repository dir, whose HEAD
// names the branch the bundle's HEAD points at (main or master first when
// several do).
func unbundle(ctx context.Context, git *gitcmd.Runner, entry, file, dir string) error {
	// A git command stopped by the context is an interruption, not a bad
	// bundle.
	refuse := func(entry string, line int, format string, args ...any) error {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("unpack %s: %w", entry, err)
		}
		return refuse(entry, line, format, args...)
	}
	if err := git.Run(ctx, gitcmd.Cmd{Name: "init", Flags: []string{"--bare", "--quiet"}, Args: []string{dir}}); err != nil {
		return fmt.Errorf("unpack %s: %w", entry, err)
	}
	if err := git.Run(ctx, gitcmd.Cmd{Dir: dir, Name: "bundle", Flags: []string{"verify", "--quiet"}, Args: []string{file}, NoEndOfOptions: true}); err != nil {
		msg := strings.TrimSpace(gitcmd.Stderr(err))
		if msg == "" {
			msg = err.Error()
		}
		return refuse(entry, 0, "not a git bundle git can read: %s", truncate(firstLine(msg), 300))
	}
	out, err := git.Output(ctx, gitcmd.Cmd{Dir: dir, Name: "bundle", Flags: []string{"list-heads"}, Args: []string{file}, NoEndOfOptions: true})
	if err != nil {
		return refuse(entry, 0, "its refs cannot be listed: %s", truncate(firstLine(gitcmd.Stderr(err)), 300))
	}
	var head string
	shas := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	refs := 0
	for sc.Scan() {
		sha, name, _ := strings.Cut(sc.Text(), " ")
		switch {
		case name == "HEAD":
			head = sha
		case strings.HasPrefix(name, "refs/heads/"), strings.HasPrefix(name, "refs/tags/"):
			shas[sha] = append(shas[sha], name)
			refs++
		}
	}
	if refs == 0 {
		return nil
	}
	err = git.Run(ctx, gitcmd.Cmd{Dir: dir, Name: "fetch",
		Flags: []string{"--quiet", "--no-tags", "--no-write-fetch-head", "--no-auto-gc", "--no-auto-maintenance", "--no-recurse-submodules"},
		Args:  []string{file, "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"}})
	if err != nil {
		return refuse(entry, 0, "git cannot unpack it: %s", truncate(firstLine(gitcmd.Stderr(err)), 300))
	}
	if head != "" {
		pick := ""
		for _, want := range []string{"refs/heads/main", "refs/heads/master"} {
			for _, n := range shas[head] {
				if n == want && pick == "" {
					pick = n
				}
			}
		}
		if pick == "" {
			for _, n := range shas[head] {
				if strings.HasPrefix(n, "refs/heads/") && (pick == "" || n < pick) {
					pick = n
				}
			}
		}
		if pick != "" {
			if err := git.Run(ctx, gitcmd.Cmd{Dir: dir, Name: "symbolic-ref", Args: []string{"HEAD", pick}}); err != nil {
				return fmt.Errorf("unpack %s: %w", entry, err)
			}
		}
	}
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
