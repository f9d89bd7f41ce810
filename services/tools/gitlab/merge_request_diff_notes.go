package gitlab

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// Diff notes: save_merge_request_review's create_diff_note and
// submit_review, placed on the merge request's latest diff as git has it.

// mrDiff is a merge request's latest diff as positions need it: its
// changed files by new and old path, and its diff refs.
type mrDiff struct {
	files                      map[string]repository.FileDiff
	baseSHA, startSHA, headSHA string
}

// diffFiles reads the merge request's changed files from git.
func (r mrReview) diffFiles(ctx context.Context, c *reviewCall) (*mrDiff, error) {
	cmp, err := r.git.compare(ctx, c.pa.project, c.mr, repository.CompareOptions{SkipPatches: true, SkipCommits: true})
	if err != nil {
		return nil, err
	}
	out := &mrDiff{files: map[string]repository.FileDiff{}, baseSHA: cmp.MergeBaseSHA, startSHA: cmp.BaseSHA, headSHA: cmp.HeadSHA}
	for _, f := range cmp.Files {
		out.files["new:"+f.NewPath], out.files["old:"+f.OldPath] = f, f
	}
	return out, nil
}

// diffPosition builds the position of a diff note on the merge request's
// latest diff, checking that the file is part of it.
func diffPosition(c *reviewCall, d *mrDiff, field, oldPath, newPath string, oldLine, newLine intArg) (*models.DiffPosition, error) {
	if oldPath == "" && newPath == "" {
		return nil, invalidf("%s: provide old_path and/or new_path", field)
	}
	if oldLine <= 0 && newLine <= 0 {
		return nil, invalidf("%s: provide old_line and/or new_line", field)
	}
	var f repository.FileDiff
	var ok bool
	if newPath != "" {
		f, ok = d.files["new:"+newPath]
	} else {
		f, ok = d.files["old:"+oldPath]
	}
	if !ok {
		return nil, invalidf("%s: %q is not a file changed by merge request !%d", field, firstNonEmpty(newPath, oldPath), c.mr.IID)
	}
	switch {
	case oldLine > 0 && f.NewFile:
		return nil, invalidf("%s: %q is added by merge request !%d, so it has no old_line", field, f.NewPath, c.mr.IID)
	case newLine > 0 && f.DeletedFile:
		return nil, invalidf("%s: %q is deleted by merge request !%d, so it has no new_line", field, f.OldPath, c.mr.IID)
	}
	pos := &models.DiffPosition{BaseSHA: d.baseSHA, StartSHA: d.startSHA, HeadSHA: d.headSHA,
		OldPath: f.OldPath, NewPath: f.NewPath, PositionType: "text"}
	if oldLine > 0 {
		n := int(oldLine)
		pos.OldLine = &n
	}
	if newLine > 0 {
		n := int(newLine)
		pos.NewLine = &n
	}
	return pos, nil
}

func (r mrReview) diffNote(ctx context.Context, st reviewWriteStore, c *reviewCall) (*tools.Result, error) {
	if err := checkNoteBody("body", c.args.Body); err != nil {
		return nil, err
	}
	if err := canComment(c); err != nil {
		return nil, err
	}
	files, err := r.diffFiles(ctx, c)
	if err != nil {
		return nil, err
	}
	pos, err := diffPosition(c, files, "create_diff_note", c.args.OldPath, c.args.NewPath, c.args.OldLine, c.args.NewLine)
	if err != nil {
		return nil, err
	}
	if err := r.checkDiffLines(ctx, c, "create_diff_note", pos); err != nil {
		return nil, err
	}
	n := &models.Note{NoteableType: models.NoteableMergeRequest, NoteableID: c.mr.ID, ProjectID: c.pa.project.ID,
		AuthorID: c.u.ID, Body: c.args.Body, Type: models.NoteTypeDiff, Position: pos}
	if err := st.CreateNote(ctx, n); err != nil {
		return nil, err
	}
	return r.noteResult(ctx, st, "create_diff_note", n)
}

func (r mrReview) submit(ctx context.Context, st reviewWriteStore, c *reviewCall) (*tools.Result, error) {
	// Every comment is checked before anything is written; the writes share
	// the call's transaction, so a failure leaves no note behind.
	for k, cm := range c.args.Comments {
		field := "comments[" + itoa(k) + "]"
		if err := checkNoteBody(field+" body", cm.Body); err != nil {
			return nil, err
		}
		if cm.OldLine <= 0 && cm.NewLine <= 0 {
			return nil, invalidf("%s: Provide old_line and/or new_line", field)
		}
	}
	if c.args.Summary != "" {
		if err := checkNoteBody("summary", c.args.Summary); err != nil {
			return nil, err
		}
	}
	if err := canComment(c); err != nil {
		return nil, err
	}
	files, err := r.diffFiles(ctx, c)
	if err != nil {
		return nil, err
	}
	notes := make([]*models.Note, 0, len(c.args.Comments))
	for k, cm := range c.args.Comments {
		pos, err := diffPosition(c, files, "comments["+itoa(k)+"]", "", cm.File, cm.OldLine, cm.NewLine)
		if err != nil {
			return nil, err
		}
		if err := r.checkDiffLines(ctx, c, "comments["+itoa(k)+"]", pos); err != nil {
			return nil, err
		}
		body := cm.Body
		if cm.Suggestion != "" {
			body += "\n\n```suggestion:-0+0\n" + cm.Suggestion + "\n```"
		}
		notes = append(notes, &models.Note{NoteableType: models.NoteableMergeRequest, NoteableID: c.mr.ID,
			ProjectID: c.pa.project.ID, AuthorID: c.u.ID, Body: body, Type: models.NoteTypeDiff, Position: pos})
	}
	if c.args.Summary != "" || c.args.Verdict != "" {
		summary := strings.TrimSpace(strings.Join([]string{boldVerdict(c.args.Verdict), c.args.Summary}, "\n\n"))
		notes = append(notes, &models.Note{NoteableType: models.NoteableMergeRequest, NoteableID: c.mr.ID,
			ProjectID: c.pa.project.ID, AuthorID: c.u.ID, Body: summary, Internal: c.args.SummaryInternal})
	}
	out := obj{"method": "submit_review", "comments_created": len(c.args.Comments)}
	created := make([]*gqlNoteJSON, 0, len(notes))
	for _, n := range notes {
		if err := st.CreateNote(ctx, n); err != nil {
			return nil, err
		}
		stored, err := st.LoadNote(ctx, n.ID)
		if err != nil {
			return nil, err
		}
		created = append(created, r.links.gqlNote(stored))
	}
	out["notes"] = created[:len(c.args.Comments)]
	if len(created) > len(c.args.Comments) {
		out["summary"] = created[len(created)-1]
	}
	return jsonResult(out)
}

func boldVerdict(v string) string {
	if strings.TrimSpace(v) == "" {
		return ""
	}
	return "**" + strings.TrimSpace(v) + "**"
}

// checkDiffLines refuses a position on a line its file does not have: an
// old line past the end of the file at the merge base, a new line past its
// end at the head (a binary file has no lines to check).
func (r mrReview) checkDiffLines(ctx context.Context, c *reviewCall, field string, pos *models.DiffPosition) error {
	repo, err := r.git.open(ctx, c.pa.project)
	if err != nil {
		return err
	}
	defer repo.Close()
	for _, side := range []struct {
		line      *int
		rev, path string
		where     string
	}{{pos.OldLine, pos.BaseSHA, pos.OldPath, "in the merge base of"}, {pos.NewLine, pos.HeadSHA, pos.NewPath, "at the head of"}} {
		if side.line == nil || side.rev == "" { // no merge base: nothing to read the old side at
			continue
		}
		b, err := repo.Blob(ctx, side.rev, side.path, repository.BlobOptions{FromLine: *side.line, Lines: 1, MaxBytes: 64 << 10})
		if errors.Is(err, models.ErrInvalidInput) { // a binary file above the bound
			continue
		}
		if err != nil && !errors.Is(err, models.ErrNotFound) {
			return fmt.Errorf("%s: read %s at %.12s: %w", field, side.path, side.rev, err)
		}
		// A line cut at MaxBytes (longer than it) is one the file has:
		// Blob keeps none of it, so ToLine is below FromLine.
		if err != nil || !b.Binary && !b.Truncated && b.ToLine < b.FromLine {
			return invalidf("%s: %q has no line %d %s merge request !%d", field, side.path, *side.line, side.where, c.mr.IID)
		}
	}
	return nil
}
