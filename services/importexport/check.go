package importexport

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository/gitcmd"
)

// check records as failures the records GitLab's importer would fail to
// save — numbers given twice, titles missing, states and statuses GitLab
// does not write, references to labels and merge requests that are not
// in the archive — and leaves them (or the part of them at fault) out;
// the rest of the archive comes in. Records without a number get the
// next free one, as GitLab gives them. What GitLab refuses whole (a line
// that is not JSON, or not the relation's shape) is refused here too.
// The streamed relations are read through once; the import reads them
// again and repeats the repairs (checker's fix methods).
func (a *Archive) check(ctx context.Context) error {
	c := &checker{a: a, labelIDs: map[int64]bool{}, threads: map[string]noteable{}, mrIIDs: map[int64]bool{}}
	a.ck = c
	a.noteAuthors = map[int64]string{}
	fail := c.fail

	labelTitles := map[string]int{}
	a.Labels = keep(a.Labels, func(l line[exLabel]) bool {
		switch first, dup := labelTitles[l.Rec.Title]; {
		case strings.TrimSpace(l.Rec.Title) == "":
			fail(relLabels, l.N, "a label without a title")
		case dup:
			fail(relLabels, l.N, "label %q is already the label on line %d", truncate(l.Rec.Title, 100), first)
		default:
			labelTitles[l.Rec.Title] = l.N
			c.labelIDs[l.Rec.ID] = true
			return true
		}
		return false
	})

	milestoneTitles := map[string]int{}
	a.Milestones = keep(a.Milestones, func(m line[exMilestone]) bool {
		if msg := milestoneProblem(m.Rec); msg != "" {
			fail(relMilestones, m.N, "milestone %q: %s", truncate(m.Rec.Title, 100), msg)
			return false
		}
		if first, dup := milestoneTitles[m.Rec.Title]; dup {
			fail(relMilestones, m.N, "milestone %q is already the milestone on line %d", truncate(m.Rec.Title, 100), first)
			return false
		}
		milestoneTitles[m.Rec.Title] = m.N
		return true
	})
	a.Milestones = numbered(relMilestones, a.Milestones, fail, "milestone", func(m *exMilestone) *int64 { return &m.IID })
	nested := map[string]bool{}
	named := func(m *exMilestone) {
		if m != nil && m.GroupID == nil && m.IID > 0 && !nested[m.Title] {
			nested[m.Title] = true
			a.nestedMilestones = append(a.nestedMilestones, *m)
		}
	}
	authors := func(ns []exNote) {
		for _, n := range ns {
			if n.Author != nil && n.Author.Name != "" {
				a.noteAuthors[n.AuthorID] = n.Author.Name
			}
		}
	}

	seen := map[int64]int{}
	err := plan(ctx, a.Issues, seen, fail, func(x *exIssue) int64 { return x.IID }, func(n int, x *exIssue) bool {
		switch {
		case strings.TrimSpace(x.Title) == "":
			fail(relIssues, n, "%s has no title", issueName(x.IID))
			return false
		case x.State != "opened" && x.State != "closed":
			fail(relIssues, n, "%s: state %q is not opened or closed", issueName(x.IID), truncate(x.State, 40))
			return false
		}
		for _, d := range []*string{x.DueDate, x.StartDate} {
			if d != nil && *d != "" {
				if _, err := models.ParseDate(*d); err != nil {
					fail(relIssues, n, "%s: date %q is not YYYY-MM-DD", issueName(x.IID), truncate(*d, 40))
					return false
				}
			}
		}
		return true
	}, func(p planned, x *exIssue) {
		c.fixIssue(p, x)
		named(x.Milestone)
		authors(x.Notes)
	}, "issue")
	if err != nil {
		return err
	}

	seen = map[int64]int{}
	err = plan(ctx, a.MergeRequests, seen, fail, func(x *exMergeRequest) int64 { return x.IID }, func(n int, x *exMergeRequest) bool {
		switch {
		case strings.TrimSpace(x.Title) == "":
			fail(relMergeRequests, n, "%s has no title", mrName(x.IID))
		case x.State != "opened" && x.State != "closed" && x.State != "merged" && x.State != "locked":
			fail(relMergeRequests, n, "%s: state %q is not opened, closed, merged or locked", mrName(x.IID), truncate(x.State, 40))
		case x.SourceBranch == "" || x.TargetBranch == "":
			fail(relMergeRequests, n, "%s has no source or target branch", mrName(x.IID))
		default:
			return true
		}
		return false
	}, func(p planned, x *exMergeRequest) {
		c.fixMergeRequest(p, x)
		named(x.Milestone)
		authors(x.Notes)
	}, "merge request")
	if err != nil {
		return err
	}
	if a.MergeRequests != nil {
		for _, p := range a.MergeRequests.plan {
			if p.keep {
				c.mrIIDs[p.iid] = true
			}
		}
	}

	seen = map[int64]int{}
	err = plan(ctx, a.Pipelines, seen, fail, func(x *exPipeline) int64 { return x.IID }, func(n int, x *exPipeline) bool {
		if !knownStatus(string(x.Status)) {
			fail(relPipelines, n, "%s: status %q is not one GitLab writes", pipelineName(x.IID), truncate(string(x.Status), 40))
			return false
		}
		return true
	}, nil, "pipeline")
	if err != nil {
		return err
	}
	// The pipelines' repairs name merge requests by their final numbers:
	// a second pass over the relation, after the merge requests'.
	if err := a.Pipelines.each(ctx, func(planned, *exPipeline) {}, func(p planned, x *exPipeline) error {
		c.fixPipeline(p, x)
		return nil
	}); err != nil {
		return err
	}

	tags := map[string]int{}
	a.Releases = keep(a.Releases, func(r line[exRelease]) bool {
		if strings.TrimSpace(r.Rec.Tag) == "" {
			fail(relReleases, r.N, "a release without a tag")
			return false
		}
		if first, dup := tags[r.Rec.Tag]; dup {
			fail(relReleases, r.N, "release %s: the tag's release is already the one on line %d", truncate(r.Rec.Tag, 100), first)
			return false
		}
		tags[r.Rec.Tag] = r.N
		return true
	})
	for k := range a.Releases {
		r := &a.Releases[k]
		var out []exReleaseLink
		for _, l := range r.Rec.Links {
			switch l.LinkType {
			case "", "other", "runbook", "image", "package":
				if strings.TrimSpace(l.Name) != "" && strings.TrimSpace(l.URL) != "" {
					out = append(out, l)
					continue
				}
				fail(relReleases, r.N, "release %s: a link without a name or a URL is left out", truncate(r.Rec.Tag, 100))
			default:
				fail(relReleases, r.N, "release %s: link %q is left out: link type %q", truncate(r.Rec.Tag, 100), truncate(l.Name, 100), truncate(l.LinkType, 40))
			}
		}
		r.Rec.Links = out
	}

	users := map[int64]int{}
	a.Members = keep(a.Members, func(m line[exMember]) bool {
		id := m.Rec.UserID
		if m.Rec.User != nil && m.Rec.User.ID != 0 {
			id = m.Rec.User.ID
		}
		first, dup := users[id]
		switch _, err := accessLevel(m.Rec.AccessLevel); {
		case err != nil:
			fail(relMembers, m.N, "access level %d is not 10, 20, 30, 40 or 50", m.Rec.AccessLevel)
		case id == 0:
			fail(relMembers, m.N, "a member without a user")
		case dup:
			fail(relMembers, m.N, "user %d is already the member on line %d", id, first)
		default:
			users[id] = m.N
			return true
		}
		return false
	})
	order := map[string]int{}
	for k, rel := range modelled {
		order[rel] = k
	}
	sort.SliceStable(a.Failures, func(i, j int) bool {
		x, y := a.Failures[i], a.Failures[j]
		if x.Relation != y.Relation {
			return order[x.Relation] < order[y.Relation]
		}
		return x.Line < y.Line
	})
	// From here on the repairs are repeated, not recorded again.
	c.quiet = true
	return nil
}

// plan reads the streamed relation r through once: ok checks a record
// (false: left out, its failure recorded), a number an earlier record
// has leaves it out too, and fix repairs its parts (nil: none); records
// without a number get the next free ones after the highest given.
func plan[T any](ctx context.Context, r *relation[T], seen map[int64]int, fail func(string, int, string, ...any), iidOf func(*T) int64,
	ok func(n int, rec *T) bool, fix func(p planned, rec *T), noun string) error {
	if r == nil {
		return nil
	}
	var last int64
	bad := func(n int, msg string) error {
		fail(relationNoun(r.entry), n, "%s", msg)
		r.plan = append(r.plan, planned{n: n})
		return nil
	}
	err := scanNDJSON(ctx, r.entry, r.file, r.lim, bad, func(n int, rec *T) error {
		iid := iidOf(rec)
		p := planned{n: n, iid: iid}
		last = max(last, iid)
		if ok(n, rec) {
			if first, dup := seen[iid]; iid > 0 && dup {
				fail(relationNoun(r.entry), n, "%s %d: its number is already the one on line %d", noun, iid, first)
			} else {
				if iid > 0 {
					seen[iid] = n
				}
				p.keep = true
				r.kept++
				if fix != nil {
					fix(p, rec)
				}
			}
		}
		r.plan = append(r.plan, p)
		return nil
	})
	if err != nil {
		return err
	}
	for k := range r.plan {
		if r.plan[k].keep && r.plan[k].iid <= 0 {
			last++
			r.plan[k].iid = last
		}
	}
	return nil
}

// checker holds what the checks learnt to repair the streamed records the
// same way when the import reads them again: the labels there are, the
// discussion threads and whose they are, the merge requests' numbers.
type checker struct {
	a        *Archive
	labelIDs map[int64]bool
	threads  map[string]noteable
	mrIIDs   map[int64]bool
	quiet    bool // the failures are recorded: repeat the repairs only
}

// noteable is an issue or a merge request, by its relation and line.
type noteable struct {
	mr   bool
	line int
}

func (c *checker) fail(rel string, n int, format string, args ...any) {
	if !c.quiet {
		c.a.Failures = append(c.a.Failures, Failure{Relation: rel, Line: n, Message: fmt.Sprintf(format, args...)})
	}
}

func issueName(iid int64) string { return recordName("issue #", iid) }

func mrName(iid int64) string { return recordName("merge request !", iid) }

func pipelineName(iid int64) string { return recordName("pipeline #", iid) }

func recordName(prefix string, iid int64) string {
	if iid <= 0 {
		return strings.TrimRight(prefix, " #!") + " without a number"
	}
	return fmt.Sprintf("%s%d", prefix, iid)
}

// fixIssue leaves out the parts of issue x (line p.n) GitLab would fail
// to save: label links, its milestone, notes.
func (c *checker) fixIssue(p planned, x *exIssue) {
	x.IID = p.iid
	what := issueName(p.iid)
	x.LabelLinks = c.links(relIssues, p.n, what, x.LabelLinks)
	x.Milestone = c.milestone(relIssues, p.n, what, x.Milestone)
	x.Notes = c.notes(relIssues, p.n, what, noteable{false, p.n}, x.Notes)
}

// fixMergeRequest is fixIssue for merge request x.
func (c *checker) fixMergeRequest(p planned, x *exMergeRequest) {
	x.IID = p.iid
	what := mrName(p.iid)
	x.LabelLinks = c.links(relMergeRequests, p.n, what, x.LabelLinks)
	x.Milestone = c.milestone(relMergeRequests, p.n, what, x.Milestone)
	x.Notes = c.notes(relMergeRequests, p.n, what, noteable{true, p.n}, x.Notes)
}

// fixPipeline leaves out a link to a merge request that is not imported
// and the jobs GitLab would fail to save.
func (c *checker) fixPipeline(p planned, x *exPipeline) {
	x.IID = p.iid
	if x.MergeRequest != nil && !c.mrIIDs[x.MergeRequest.IID] {
		c.fail(relPipelines, p.n, "%s: its link to merge request !%d, which is not in the archive, is left out", pipelineName(p.iid), x.MergeRequest.IID)
		x.MergeRequest = nil
	}
	for s := range x.Stages {
		st := &x.Stages[s]
		job := func(js []exStatus) []exStatus {
			var out []exStatus
			for _, j := range js {
				switch {
				case strings.TrimSpace(j.Name) == "":
					c.fail(relPipelines, p.n, "%s: a job without a name is left out", pipelineName(p.iid))
				case !knownStatus(string(j.Status)):
					c.fail(relPipelines, p.n, "%s: job %q is left out: status %q is not one GitLab writes", pipelineName(p.iid), truncate(j.Name, 100), truncate(string(j.Status), 40))
				default:
					out = append(out, j)
				}
			}
			return out
		}
		st.Statuses, st.Builds, st.Bridges, st.Generic = job(st.Statuses), job(st.Builds), job(st.Bridges), job(st.Generic)
	}
}

func (c *checker) links(rel string, n int, what string, ls []exLabelLink) []exLabelLink {
	var out []exLabelLink
	for _, l := range ls {
		switch {
		case l.Label == nil && !c.labelIDs[l.LabelID]:
			c.fail(rel, n, "%s: a label link to label id %d, which is not in the archive, is left out", what, l.LabelID)
		case l.Label != nil && strings.TrimSpace(l.Label.Title) == "":
			c.fail(rel, n, "%s: a label link to a label without a title is left out", what)
		default:
			out = append(out, l)
		}
	}
	return out
}

func (c *checker) milestone(rel string, n int, what string, m *exMilestone) *exMilestone {
	if m == nil {
		return nil
	}
	if msg := milestoneProblem(*m); msg != "" {
		c.fail(rel, n, "%s: its milestone %q is left out: %s", what, truncate(m.Title, 100), msg)
		return nil
	}
	return m
}

func (c *checker) notes(rel string, n int, what string, self noteable, ns []exNote) []exNote {
	var out []exNote
	for k, x := range ns {
		note := fmt.Sprintf("%s: note %d", what, k+1)
		if at, ok := c.threads[x.DiscussionID]; x.DiscussionID != "" && ok && at != self {
			c.fail(rel, n, "%s is left out: its discussion %s is another issue's or merge request's", note, truncate(x.DiscussionID, 64))
			continue
		}
		switch {
		case strings.TrimSpace(x.Note) == "":
			c.fail(rel, n, "%s is left out: it has no text", note)
			continue
		case x.Type != nil && *x.Type == models.NoteTypeDiff && !self.mr:
			c.fail(rel, n, "%s is left out: a diff note on an issue", note)
			continue
		case x.Type != nil && *x.Type == models.NoteTypeDiff && (x.Position == nil || x.Position.NewPath == "" && x.Position.OldPath == ""):
			c.fail(rel, n, "%s is left out: a diff note without a position", note)
			continue
		}
		if x.DiscussionID != "" {
			c.threads[x.DiscussionID] = self
		}
		out = append(out, x)
	}
	return out
}

// milestoneProblem says what GitLab's validations refuse in a milestone
// ("" nothing).
func milestoneProblem(m exMilestone) string {
	if strings.TrimSpace(m.Title) == "" {
		return "no title"
	}
	if m.State != "" && m.State != "active" && m.State != "closed" {
		return fmt.Sprintf("state %q is not active or closed", truncate(m.State, 40))
	}
	var dates []models.Date
	for _, d := range []*string{m.StartDate, m.DueDate} {
		if d != nil && *d != "" {
			v, err := models.ParseDate(*d)
			if err != nil {
				return fmt.Sprintf("date %q is not YYYY-MM-DD", truncate(*d, 40))
			}
			dates = append(dates, v)
		}
	}
	if len(dates) == 2 && m.StartDate != nil && m.DueDate != nil && *m.StartDate > *m.DueDate {
		return "its due date is before its start date"
	}
	return ""
}

// keep is the records ok keeps, in order.
func keep[T any](recs []line[T], ok func(line[T]) bool) []line[T] {
	out := recs[:0]
	for _, r := range recs {
		if ok(r) {
			out = append(out, r)
		}
	}
	clear(recs[len(out):])
	return out
}

// numbered leaves out (as failures) the records whose number an earlier
// record of the relation has, and numbers the records without one (0 or
// missing) after the highest given, in order, as GitLab does.
func numbered[T any](rel string, recs []line[T], fail func(string, int, string, ...any), noun string, iid func(*T) *int64) []line[T] {
	seen := map[int64]int{}
	var last int64
	for k := range recs {
		last = max(last, *iid(&recs[k].Rec))
	}
	recs = keep(recs, func(r line[T]) bool {
		n := *iid(&r.Rec)
		if n <= 0 {
			return true
		}
		if first, dup := seen[n]; dup {
			fail(rel, r.N, "%s %d: its number is already the one on line %d", noun, n, first)
			return false
		}
		seen[n] = r.N
		return true
	})
	for k := range recs {
		if p := iid(&recs[k].Rec); *p <= 0 {
			last++
			*p = last
		}
	}
	return recs
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
