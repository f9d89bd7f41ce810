package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"gitlab.com/glmcp/glmcp/models"
)

// ListMergeRequests returns up to q.Limit merge requests matching q,
// newest first, with their authors, and whether more follow. It reads
// Limit+1 rows, whatever the size of the table.
func (s *MergeRequests) ListMergeRequests(ctx context.Context, q models.MergeRequestQuery) ([]models.MergeRequest, bool, error) {
	out := []models.MergeRequest{}
	if len(q.ProjectIDs) == 0 || q.Limit <= 0 {
		return out, false, nil
	}
	db := s.conn(ctx).Model(&models.MergeRequest{}).Where("merge_requests.project_id IN ?", q.ProjectIDs)
	if q.State != "" && q.State != "all" {
		db = db.Where("merge_requests.state = ?", q.State)
	}
	if q.AuthorID > 0 {
		db = db.Where("merge_requests.author_id = ?", q.AuthorID)
	}
	if q.AssigneeID > 0 {
		db = db.Where("EXISTS (SELECT 1 FROM merge_request_assignees a WHERE a.merge_request_id = merge_requests.id AND a.user_id = ?)", q.AssigneeID)
	}
	if q.ReviewerID > 0 {
		db = db.Where("EXISTS (SELECT 1 FROM merge_request_reviewers r WHERE r.merge_request_id = merge_requests.id AND r.user_id = ?)", q.ReviewerID)
	}
	if q.MilestoneID > 0 {
		db = db.Where("merge_requests.milestone_id = ?", q.MilestoneID)
	}
	for _, l := range q.Labels {
		db = db.Where(`merge_requests.labels LIKE ? ESCAPE '\'`, "%"+likeEscape(jsonString(l))+"%")
	}
	if t := strings.TrimSpace(q.Search); t != "" {
		db = matchAny(db, t, "merge_requests.title", "merge_requests.description")
		db = lockdownTitleOrTrusted(db, q.Lockdown, t, "merge_requests")
	}
	if q.BeforeID > 0 {
		db = db.Where("merge_requests.id < ?", q.BeforeID)
	}
	order := "merge_requests.id DESC"
	if strings.TrimSpace(q.Search) != "" && pgFewMatches(s.limits, db) {
		// Few matches: the trigram indexes find them and a sort orders
		// them (id + 0 is the id, in an order no index gives), instead of
		// a walk of the newest rows testing each one (pgFewMatches).
		order = "merge_requests.id + 0 DESC"
	}
	if err := db.Preload("Author").Order(order).Limit(q.Limit + 1).Find(&out).Error; err != nil {
		return nil, false, fmt.Errorf("list merge requests: %w", translate(err))
	}
	more := len(out) > q.Limit
	if more {
		out = out[:q.Limit]
	}
	return out, more, nil
}

// jsonString is s as a JSON string literal, the form a label takes inside
// the labels column.
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// UpdateMergeRequest applies u to merge request mr (its ID and ProjectID
// are read) in one transaction, under a row lock, and returns the merge
// request as stored after the change, with its people. Reopening a merge
// request when another open one has the same branches, an unknown user, or
// a state change a merged merge request cannot take is
// models.ErrInvalidInput or models.ErrConflict; nothing is written then.
func (s *MergeRequests) UpdateMergeRequest(ctx context.Context, projectID, iid int64, u models.MergeRequestUpdate) (*models.MergeRequest, error) {
	var out *models.MergeRequest
	err := s.st.WithTx(ctx, func(tx *Store) error {
		var mr models.MergeRequest
		q := tx.forUpdate(tx.conn(ctx).Where("project_id = ? AND iid = ?", projectID, iid))
		if err := q.Take(&mr).Error; err != nil {
			return translate(err)
		}
		now := tx.clock()
		set := map[string]any{"updated_at": now}
		if u.Title != nil {
			if strings.TrimSpace(*u.Title) == "" {
				return fmt.Errorf("empty title: %w", models.ErrInvalidInput)
			}
			set["title"] = *u.Title
		}
		if u.Description != nil {
			set["description"] = *u.Description
		}
		if u.TargetBranch != nil {
			if strings.TrimSpace(*u.TargetBranch) == "" {
				return fmt.Errorf("empty target branch: %w", models.ErrInvalidInput)
			}
			if *u.TargetBranch == mr.SourceBranch {
				return fmt.Errorf("target branch equals the source branch: %w", models.ErrInvalidInput)
			}
			set["target_branch"] = *u.TargetBranch
		}
		switch u.StateEvent {
		case "":
		case "close":
			if mr.State == models.MergeRequestMerged {
				return fmt.Errorf("a merged merge request cannot be closed: %w", models.ErrInvalidInput)
			}
			if mr.State == models.MergeRequestOpened {
				set["state"], set["closed_at"] = models.MergeRequestClosed, now
			}
		case "reopen":
			if mr.State == models.MergeRequestMerged {
				return fmt.Errorf("a merged merge request cannot be reopened: %w", models.ErrInvalidInput)
			}
			if mr.State == models.MergeRequestClosed {
				set["state"], set["closed_at"] = models.MergeRequestOpened, nil
			}
		default:
			return fmt.Errorf("state_event %q: %w", u.StateEvent, models.ErrInvalidInput)
		}
		labels := slices.Clone([]string(mr.Labels))
		if u.Labels != nil {
			labels = slices.Clone(u.Labels)
		}
		for _, l := range u.AddLabels {
			if !slices.Contains(labels, l) {
				labels = append(labels, l)
			}
		}
		labels = slices.DeleteFunc(labels, func(l string) bool { return slices.Contains(u.RemoveLabels, l) })
		if u.Labels != nil || u.AddLabels != nil || u.RemoveLabels != nil {
			set["labels"] = models.StringList(labels)
		}
		if u.MilestoneID != nil {
			set["milestone_id"] = *u.MilestoneID
		}
		for col, v := range map[string]*string{"sha": u.HeadSHA, "diff_base_sha": u.DiffBaseSHA} {
			if v != nil {
				set[col] = *v
			}
		}
		for col, v := range map[string]*bool{"squash": u.Squash, "force_remove_source_branch": u.RemoveSourceBranch,
			"discussion_locked": u.DiscussionLocked, "allow_collaboration": u.AllowCollaboration, "draft": u.Draft} {
			if v != nil {
				set[col] = *v
			}
		}
		if err := tx.conn(ctx).Model(&models.MergeRequest{}).Where("id = ?", mr.ID).Updates(set).Error; err != nil {
			return translate(err)
		}
		for _, l := range []struct {
			ids  []int64
			link userLink
		}{{u.AssigneeIDs, mergeRequestAssignees}, {u.ReviewerIDs, mergeRequestReviewers}} {
			if l.ids == nil {
				continue
			}
			if err := tx.conn(ctx).Exec("DELETE FROM "+l.link.table+" WHERE merge_request_id = ?", mr.ID).Error; err != nil {
				return translate(err)
			}
			if err := tx.insertUserLinks(ctx, l.link.table, l.link.col, mr.ID, l.ids); err != nil {
				return err
			}
		}
		var err error
		out, err = tx.MergeRequests.LoadMergeRequest(ctx, projectID, iid)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("update merge request !%d of project %d: %w", iid, projectID, err)
	}
	return out, nil
}

// ApproveMergeRequest records userID's approval of merge request mrID. It
// reports false (and writes nothing) when the user had already approved,
// also when two approvals by the same user race: the unique index decides.
func (s *MergeRequests) ApproveMergeRequest(ctx context.Context, mrID, userID int64) (bool, error) {
	return s.ApproveMergeRequestAt(ctx, mrID, userID, s.clock())
}

// ApproveMergeRequestAt is ApproveMergeRequest with the approval's time
// given (imports and the demo world).
func (s *MergeRequests) ApproveMergeRequestAt(ctx context.Context, mrID, userID int64, at time.Time) (bool, error) {
	a := models.Approval{MergeRequestID: mrID, UserID: userID, CreatedAt: at.UTC()}
	res := s.conn(ctx).Clauses(clause.OnConflict{DoNothing: true}).Omit(clause.Associations).Create(&a)
	if res.Error != nil {
		return false, fmt.Errorf("approve merge request %d: %w", mrID, translate(res.Error))
	}
	return res.RowsAffected == 1, nil
}

// UnapproveMergeRequest removes userID's approval of merge request mrID and
// reports whether there was one.
func (s *MergeRequests) UnapproveMergeRequest(ctx context.Context, mrID, userID int64) (bool, error) {
	res := s.conn(ctx).Where("merge_request_id = ? AND user_id = ?", mrID, userID).Delete(&models.Approval{})
	if res.Error != nil {
		return false, fmt.Errorf("unapprove merge request %d: %w", mrID, translate(res.Error))
	}
	return res.RowsAffected > 0, nil
}

// MergeRequestApprovals returns the approvals of merge request mrID with
// their users, oldest first.
func (s *MergeRequests) MergeRequestApprovals(ctx context.Context, mrID int64) ([]models.Approval, error) {
	out := []models.Approval{}
	err := s.conn(ctx).Preload("User").Where("merge_request_id = ?", mrID).Order("created_at, id").Find(&out).Error
	if err != nil {
		return nil, fmt.Errorf("approvals of merge request %d: %w", mrID, translate(err))
	}
	return out, nil
}

// PageDiscussions returns up to q.Limit discussions (each with all its
// visible notes, oldest first, with authors) and whether more follow.
// q.Filter chooses the notes: by default system notes are left out, as
// GitLab's discussions API shows them only with the notes.
func (s *MergeRequests) PageDiscussions(ctx context.Context, q models.DiscussionPageQuery) ([]models.Discussion, bool, error) {
	visible := func(db *gorm.DB) *gorm.DB {
		db = db.Where("noteable_type = ? AND noteable_id = ?", q.NoteableType, q.NoteableID)
		switch q.Filter {
		case models.AllNotes:
		case models.OnlyActivity:
			db = db.Where("system")
		default:
			db = db.Where("NOT system")
		}
		if !q.IncludeInternal {
			db = db.Where("NOT internal")
		}
		return db
	}
	var heads []struct {
		DiscussionID string
		First        int64
	}
	h := visible(s.conn(ctx).Model(&models.Note{})).Select("discussion_id, MIN(id) AS first").Group("discussion_id")
	if q.AfterNoteID > 0 {
		h = h.Having("MIN(id) > ?", q.AfterNoteID)
	}
	if err := h.Order("first").Limit(q.Limit + 1).Scan(&heads).Error; err != nil {
		return nil, false, fmt.Errorf("page discussions: %w", translate(err))
	}
	more := len(heads) > q.Limit
	if more {
		heads = heads[:q.Limit]
	}
	out := make([]models.Discussion, 0, len(heads))
	if len(heads) == 0 {
		return out, false, nil
	}
	ids := make([]string, len(heads))
	for k, hd := range heads {
		ids[k] = hd.DiscussionID
	}
	var notes []models.Note
	err := visible(s.conn(ctx).Preload("Author")).Where("discussion_id IN ?", ids).Order("id").Find(&notes).Error
	if err != nil {
		return nil, false, fmt.Errorf("notes of discussions: %w", translate(err))
	}
	byID := map[string][]models.Note{}
	for _, n := range notes {
		byID[n.DiscussionID] = append(byID[n.DiscussionID], n)
	}
	for _, id := range ids {
		ns := byID[id]
		out = append(out, models.Discussion{ID: id, Notes: ns,
			Individual: len(ns) == 1 && ns[0].Type == ""})
	}
	return out, more, nil
}

// ResolveDiscussion resolves (or unresolves) discussion id of merge
// request mrID as userID and returns its notes. A discussion of another
// merge request is models.ErrNotFound; one that cannot be resolved (a
// stand-alone comment) is models.ErrInvalidInput.
func (s *MergeRequests) ResolveDiscussion(ctx context.Context, mrID int64, id string, userID int64, resolved bool) ([]models.Note, error) {
	return s.ResolveDiscussionAt(ctx, mrID, id, userID, resolved, s.clock())
}

// ResolveDiscussionAt is ResolveDiscussion at a given time (imports and
// the demo world).
func (s *MergeRequests) ResolveDiscussionAt(ctx context.Context, mrID int64, id string, userID int64, resolved bool, at time.Time) ([]models.Note, error) {
	var notes []models.Note
	err := s.st.WithTx(ctx, func(tx *Store) error {
		q := tx.forUpdate(tx.conn(ctx).Where("discussion_id = ? AND noteable_type = ? AND noteable_id = ?",
			id, models.NoteableMergeRequest, mrID))
		if err := q.Order("id").Find(&notes).Error; err != nil {
			return translate(err)
		}
		if len(notes) == 0 {
			return models.ErrNotFound
		}
		d := models.Discussion{ID: id, Notes: notes}
		if !d.Resolvable() {
			return fmt.Errorf("a stand-alone comment cannot be resolved: %w", models.ErrInvalidInput)
		}
		now := at.UTC()
		set := map[string]any{"resolved_at": nil, "resolved_by_id": nil, "updated_at": now}
		if resolved {
			set = map[string]any{"resolved_at": now, "resolved_by_id": userID, "updated_at": now}
		}
		upd := tx.conn(ctx).Model(&models.Note{}).
			Where("discussion_id = ? AND NOT system AND type IN ?", id, []string{models.NoteTypeDiscussion, models.NoteTypeDiff})
		if resolved {
			upd = upd.Where("resolved_at IS NULL") // keep the first resolver of each note
		}
		if err := upd.Updates(set).Error; err != nil {
			return translate(err)
		}
		notes = nil
		return translate(tx.conn(ctx).Preload("Author").Where("discussion_id = ?", id).Order("id").Find(&notes).Error)
	})
	if err != nil {
		return nil, fmt.Errorf("resolve discussion %s: %w", id, err)
	}
	s.changedViews(projectViews(notes[0].ProjectID))
	return notes, nil
}
