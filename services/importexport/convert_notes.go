package importexport

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

// convertNotes writes the notes of the issue or merge request iid; d is
// the merge request's diff, where its diff notes' lines are (nil none).
func (c *converter) convertNotes(kind models.NoteableType, iid int64, list []exNote, d *exMergeRequestDiff) error {
	for k, x := range list {
		author, err := c.um.user(c.ctx, x.AuthorID)
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
				diffNoteFields(&x, &n, d)
			case models.NoteTypeDiscussion:
				n.Type = models.NoteTypeDiscussion
			default:
				c.sum.Skipped["notes: "+*x.Type+" kept as plain notes"]++
			}
		}
		if n.DiscussionID == "" {
			// A note of its own (GitLab exports no note ids).
			h := sha1.Sum([]byte(fmt.Sprintf("%s/%d/%d", kind, iid, k)))
			n.DiscussionID = hex.EncodeToString(h[:])
		}
		if n.ResolvedByID, err = c.um.ptr(c.ctx, x.ResolvedByID); err != nil {
			return err
		}
		c.sum.Skipped["award_emoji"] += countArray(x.AwardEmoji)
		c.sum.Skipped["suggestions"] += countArray(x.Suggestions)
		c.sum.Skipped["events"] += countArray(x.NoteEvents)
		c.sum.Skipped["note_diff_file"] += countRecords(x.NoteDiffFile)
		c.r.Notes = append(c.r.Notes, store.RecordNote{Note: n, NoteableIID: iid})
		c.sum.Imported["notes"]++
	}
	return nil
}
