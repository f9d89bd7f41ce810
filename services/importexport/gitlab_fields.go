package importexport

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

// This file reads and writes the fields GitLab's importer needs to read an
// archive back as glmcp holds it (doc/import-export.md, "Export that GitLab
// reads back"): merge_params, the legacy issue_type beside work_item_type,
// a diff note's original_position and line_code, label priorities, release
// milestones, and the source identity of placeholder users.

// forceRemoveSourceBranch is a merge request's force_remove_source_branch:
// GitLab's merge_params entry ("1", "0", true, false) when the record has
// one, else glmcp's older top-level field; ok false when neither says.
func forceRemoveSourceBranch(x *exMergeRequest) (value, ok bool) {
	if x.MergeParams != nil {
		raw := bytes.TrimSpace(x.MergeParams.ForceRemoveSourceBranch)
		var b bool
		var s string
		switch {
		case len(raw) == 0 || string(raw) == "null":
		case json.Unmarshal(raw, &b) == nil:
			return b, true
		case json.Unmarshal(raw, &s) == nil:
			// GitLab's Gitlab::Utils.to_boolean: "1", "true", "yes", "on".
			switch strings.ToLower(s) {
			case "1", "true", "t", "yes", "y", "on":
				return true, true
			case "0", "false", "f", "no", "n", "off", "":
				return false, true
			}
		}
	}
	if x.ForceRemoveSourceBranch != nil {
		return *x.ForceRemoveSourceBranch, true
	}
	return false, false
}

// mergeParamsOut is merge_params as GitLab writes them.
func mergeParamsOut(force bool) *exMergeParams {
	v := `"0"`
	if force {
		v = `"1"`
	}
	return &exMergeParams{ForceRemoveSourceBranch: json.RawMessage(v)}
}

// diffNoteFields reads a diff note's original position and line code
// into n (whose Position is set; d its merge request's diff, nil none).
func diffNoteFields(x *exNote, n *models.Note, d *exMergeRequestDiff) {
	if x.OriginalPosition != nil {
		pos := models.DiffPosition(*x.OriginalPosition)
		if pos.PositionType == "" {
			pos.PositionType = "text"
		}
		if !samePosition(&pos, n.Position) {
			n.OriginalPosition = &pos
		}
	}
	// A line code the export would compute again is not kept.
	if x.LineCode != nil && *x.LineCode != diffLineCode(d, n.Position) {
		n.LineCode = *x.LineCode
	}
}

// samePosition reports whether two positions name the same line.
func samePosition(a, b *models.DiffPosition) bool {
	line := func(x, y *int) bool { return x == nil && y == nil || x != nil && y != nil && *x == *y }
	return a.BaseSHA == b.BaseSHA && a.StartSHA == b.StartSHA && a.HeadSHA == b.HeadSHA && a.OldPath == b.OldPath &&
		a.NewPath == b.NewPath && a.PositionType == b.PositionType && line(a.OldLine, b.OldLine) && line(a.NewLine, b.NewLine)
}

// diffNoteOut writes a diff note's original position (its position when
// none was kept: GitLab sets them equal when a note is written) and its
// line code (when none was kept, found in the merge request's diff d as
// GitLab finds it, else computed from the position alone).
func diffNoteOut(n *models.Note, x *exNote, d *exMergeRequestDiff) {
	if n.Position == nil {
		return
	}
	orig := *n.Position
	if n.OriginalPosition != nil {
		orig = *n.OriginalPosition
	}
	o := exPosition(orig)
	x.OriginalPosition = &o
	code := n.LineCode
	if code == "" {
		code = diffLineCode(d, n.Position)
	}
	x.LineCode = &code
}

// lineCode is GitLab's line code of a position's line (Gitlab::Git
// diff_line_code): the SHA-1 of the file's path, the old line and the new
// line, a line missing on one side written 0 (GitLab counts its place
// in the diff there; only the format is checked on import).
func lineCode(p *models.DiffPosition) string {
	h := sha1.Sum([]byte(positionPath(p)))
	line := func(l *int) int {
		if l == nil {
			return 0
		}
		return *l
	}
	return fmt.Sprintf("%s_%d_%d", hex.EncodeToString(h[:]), line(p.OldLine), line(p.NewLine))
}

// diffLineCode is the line code of the position's line as GitLab's diff
// parser numbers it (Gitlab::Diff::Parser): every line of a hunk carries
// the old and the new line counters where it stands, so an added line has
// the old counter of its place and a removed one the new counter. Without
// the line in d, lineCode.
func diffLineCode(d *exMergeRequestDiff, p *models.DiffPosition) string {
	if d == nil || p.OldLine == nil && p.NewLine == nil {
		return lineCode(p)
	}
	for _, f := range d.Files {
		if f.NewPath != p.NewPath && (p.NewPath != "" || f.OldPath != p.OldPath) {
			continue
		}
		patch := f.UTF8Diff
		if patch == "" {
			patch = f.Diff
		}
		oldN, newN, in := 1, 1, false
		for _, l := range strings.Split(patch, "\n") {
			if strings.HasPrefix(l, "@@ -") {
				oldN, newN, in = hunkStart(l, '-'), hunkStart(l, '+'), true
				continue
			}
			if !in || l == "" || l[0] == '\\' {
				continue
			}
			var hit bool
			switch l[0] {
			case '+':
				hit = p.OldLine == nil && p.NewLine != nil && *p.NewLine == newN
			case '-':
				hit = p.NewLine == nil && p.OldLine != nil && *p.OldLine == oldN
			default:
				hit = p.OldLine != nil && p.NewLine != nil && *p.OldLine == oldN && *p.NewLine == newN
			}
			if hit {
				h := sha1.Sum([]byte(positionPath(p)))
				return fmt.Sprintf("%s_%d_%d", hex.EncodeToString(h[:]), oldN, newN)
			}
			switch l[0] {
			case '+':
				newN++
			case '-':
				oldN++
			default:
				oldN++
				newN++
			}
		}
	}
	return lineCode(p)
}

// hunkStart is the old ('-') or new ('+') start line of a hunk header
// "@@ -a,b +c,d @@" (0 when it has none).
func hunkStart(header string, side byte) int {
	k := strings.IndexByte(header[2:], side)
	if k < 0 {
		return 0
	}
	rest := header[2+k+1:]
	end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(rest)
	}
	n, _ := strconv.Atoi(rest[:end])
	return n
}

// positionPath is GitLab's Position#file_path: the new path, else the old.
func positionPath(p *models.DiffPosition) string {
	if p.NewPath != "" {
		return p.NewPath
	}
	return p.OldPath
}

// labelPriority is a label's priority (nil none).
func labelPriority(l *exLabel) *int {
	if len(l.Priorities) == 0 || l.Priorities[0].Priority < 0 {
		return nil
	}
	p := l.Priorities[0].Priority
	return &p
}

// labelPrioritiesOut is a label's priorities as GitLab writes them.
func labelPrioritiesOut(l *models.Label) []exLabelPriority {
	if l.Priority == nil {
		return nil
	}
	return []exLabelPriority{{Priority: *l.Priority, CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt}}
}

// issueOut is an issue as the export writes it: GitLab's record with the
// legacy issue_type beside work_item_type, which GitLab before 16 reads.
type issueOut struct {
	exIssue
	IssueType string `json:"issue_type,omitempty"`
}

// legacyIssueTypes are the work item types GitLab's issue_type column
// could name.
var legacyIssueTypes = map[string]bool{"issue": true, "incident": true, "test_case": true, "requirement": true,
	"task": true, "objective": true, "key_result": true}

func legacyIssueType(base string) string {
	if legacyIssueTypes[base] {
		return base
	}
	return ""
}

// sourceIdentity is how an export names user u: a placeholder user by the
// source user it stands for (username, name), so that an import of the
// archive, GitLab's or glmcp's, maps or names it after the source user
// again; anyone else as itself.
func sourceIdentity(u models.User, src map[int64]models.ImportSourceUser) models.User {
	s, ok := src[u.ID]
	if !ok {
		return u
	}
	if s.SourceUsername != "" {
		u.Username = s.SourceUsername
	}
	if s.SourceName != "" {
		u.Name = s.SourceName
	}
	return u
}

// placeholderSources indexes a project's source users by placeholder.
func placeholderSources(list []models.ImportSourceUser) map[int64]models.ImportSourceUser {
	out := map[int64]models.ImportSourceUser{}
	for _, s := range list {
		if s.PlaceholderUserID != nil && s.Status != models.SourceUserCompleted {
			out[*s.PlaceholderUserID] = s
		}
	}
	return out
}

// sourceUser is the source identity of archive user src for placeholder
// user id.
func (um *userMap) sourceUser(src, id int64) models.ImportSourceUser {
	s := models.ImportSourceUser{PlaceholderUserID: &id, SourceUserIdentifier: strconv.FormatInt(src, 10),
		SourceName: um.names[src], Status: models.SourceUserPending}
	if m, ok := um.members[src]; ok && m.User != nil {
		s.SourceUsername = m.User.Username
	} else if c, ok := um.contrib[src]; ok {
		s.SourceUsername = c.Username
		if s.SourceName == "" {
			s.SourceName = c.Name
		}
	}
	return s
}

// placeholderRole keeps source user src's role in the project (GitLab's
// access level) on its source user: its placeholder gets no membership,
// the user it is reassigned to does.
func (um *userMap) placeholderRole(src int64, level int) {
	lvl, err := accessLevel(level)
	if err != nil {
		return
	}
	id := strconv.FormatInt(src, 10)
	for k := range um.sources {
		if s := &um.sources[k]; s.SourceUserIdentifier == id && (s.AccessLevel == nil || *s.AccessLevel < lvl) {
			s.AccessLevel = &lvl
		}
	}
}

// placeholderMembers are the members the project had in its archive whose
// users are placeholders here (a role kept on the source user, not yet
// reassigned): written back as members, named as the source users, so
// that a later import gives the role to whom it maps them to.
func placeholderMembers(r *store.ProjectRecords, users map[int64]models.User) []any {
	member := map[int64]bool{}
	for _, m := range r.Members {
		member[m.UserID] = true
	}
	var out []any
	for _, s := range r.SourceUsers {
		if s.PlaceholderUserID == nil || s.AccessLevel == nil || s.Status != models.SourceUserPending || member[*s.PlaceholderUserID] {
			continue
		}
		id := *s.PlaceholderUserID
		member[id] = true
		out = append(out, exMember{AccessLevel: int(*s.AccessLevel), SourceType: "Project", UserID: id,
			CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, User: &exUser{ID: id, Username: users[id].Username}})
	}
	return out
}
