package importexport

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

// converter turns the archive's relations into the store's records, one
// relation at a time (convert_*.go), and writes them in parts of
// recordsPerWrite issues, merge requests or pipelines, counting what it
// wrote and what it left out in the summary.
type converter struct {
	ctx   context.Context
	a     *Archive
	um    *userMap
	sum   *Summary
	r     *store.ProjectRecords // the part being converted
	w     *store.RecordWriter
	diffs *diffKeeper

	labels    map[string]bool  // the titles of the labels written
	labelByID map[int64]string // a source label id's title

	milestones map[string]bool // the titles of the milestones written
	maxIID     int64           // the highest milestone iid given
	usedIIDs   map[int64]bool  // the milestone iids written

	releaseMilestones []releaseMilestone // linked after the merge requests
}

// recordsPerWrite is how many issues, merge requests or pipelines (with
// their notes, approvals, jobs) one part holds: the import's memory.
const recordsPerWrite = 500

// convert turns the archive's relations into the store's records and
// writes them with w, part by part.
func convert(ctx context.Context, a *Archive, um *userMap, sum *Summary, w *store.RecordWriter, diffs *diffKeeper) error {
	c := &converter{ctx: ctx, a: a, um: um, sum: sum, r: &store.ProjectRecords{Members: um.memberRows}, w: w, diffs: diffs,
		labels: map[string]bool{}, labelByID: map[int64]string{}, milestones: map[string]bool{}}
	sum.Imported[relMembers] = len(um.memberRows)
	if n := len(a.Members) - countMembersMapped(um); n > 0 {
		sum.Skipped["project_members (placeholder users get no membership)"] += n
	}
	c.convertLabels()
	c.convertMilestones()
	if err := c.convertReleases(); err != nil {
		return err
	}
	c.r.WikiPages = a.WikiPages
	sum.Imported["wiki pages"] = len(c.r.WikiPages)
	// The placeholders' source users, made as the relations named them,
	// go with the last part.
	sources := func() error { c.r.SourceUsers = um.sources; return nil }
	for _, step := range []func() error{c.flush, c.convertIssues, c.flush, c.convertMergeRequests, c.flush, c.convertPipelines, c.convertReleaseMilestones, sources, c.flush} {
		if err := step(); err != nil {
			return err
		}
	}
	for k, v := range sum.Skipped {
		if v == 0 {
			delete(sum.Skipped, k)
		}
	}
	return w.Finish(ctx)
}

// flushEvery writes the part once it holds n ≥ recordsPerWrite records.
func (c *converter) flushEvery(n int) error {
	if n >= recordsPerWrite {
		return c.flush()
	}
	return nil
}

// flush writes the part converted so far (the merge requests' diffs
// kept only where git lacks their commits) and starts the next.
func (c *converter) flush() error {
	if err := c.diffs.keep(c.ctx, c.r, c.sum); err != nil {
		return err
	}
	if err := c.w.Write(c.ctx, c.r); err != nil {
		return err
	}
	c.r = &store.ProjectRecords{}
	return nil
}

// skippedRelations counts the relations of an issue or a merge request
// glmcp does not model.
func (c *converter) skippedRelations(x exSkippedIssueRelations) {
	for name, raw := range map[string][]byte{"resource_label_events": x.ResourceLabelEvents,
		"resource_milestone_events": x.ResourceMilestoneEvents, "resource_iteration_events": x.ResourceIterationEvents,
		"designs": x.Designs, "design_versions": x.DesignVersions, "zoom_meetings": x.ZoomMeetings,
		"sentry_issue": x.SentryIssue, "issuable_sla": x.IssuableSLA, "work_item_description": x.WorkItemDescription} {
		c.sum.Skipped[name] += countRecords(raw)
	}
}

// users are the users of this instance the references name, each once.
func (c *converter) users(refs []exUserRef) ([]models.User, error) {
	var out []models.User
	seen := map[int64]bool{}
	for _, x := range refs {
		id, err := c.um.user(c.ctx, x.UserID)
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

// countRecords is the length of a JSON array, 1 for an object, 0 for
// anything else.
func countRecords(raw json.RawMessage) int {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '{' {
		return 1
	}
	return countArray(raw)
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
