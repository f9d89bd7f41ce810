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
// relation at a time (convert_*.go), counting what it wrote and what it
// left out in the summary.
type converter struct {
	ctx context.Context
	a   *Archive
	um  *userMap
	sum *Summary
	r   *store.ProjectRecords

	labels    map[string]bool  // the titles of the labels written
	labelByID map[int64]string // a source label id's title

	milestones map[string]bool // the titles of the milestones written
	maxIID     int64           // the highest milestone iid given
	usedIIDs   map[int64]bool  // the milestone iids written
}

// convert turns the archive's relations into the store's records.
func convert(ctx context.Context, a *Archive, um *userMap, sum *Summary) (*store.ProjectRecords, error) {
	c := &converter{ctx: ctx, a: a, um: um, sum: sum, r: &store.ProjectRecords{Members: um.memberRows},
		labels: map[string]bool{}, labelByID: map[int64]string{}, milestones: map[string]bool{}}
	sum.Imported[relMembers] = len(um.memberRows)
	if n := len(a.Members) - countMembersMapped(um); n > 0 {
		sum.Skipped["project_members (placeholder users get no membership)"] += n
	}
	c.convertLabels()
	c.convertMilestones()
	for _, step := range []func() error{c.convertIssues, c.convertMergeRequests, c.convertPipelines, c.convertReleases} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	c.r.WikiPages = a.WikiPages
	sum.Imported["wiki pages"] = len(c.r.WikiPages)
	for k, v := range sum.Skipped {
		if v == 0 {
			delete(sum.Skipped, k)
		}
	}
	return c.r, nil
}

// skippedRelations counts the relations of an issue or a merge request
// glmcp does not model.
func (c *converter) skippedRelations(x exSkippedIssueRelations) {
	for name, raw := range map[string][]byte{"resource_label_events": x.ResourceLabelEvents,
		"resource_milestone_events": x.ResourceMilestoneEvents, "resource_iteration_events": x.ResourceIterationEvents,
		"designs": x.Designs, "design_versions": x.DesignVersions, "zoom_meetings": x.ZoomMeetings,
		"sentry_issue": x.SentryIssue, "issuable_sla": x.IssuableSLA} {
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
