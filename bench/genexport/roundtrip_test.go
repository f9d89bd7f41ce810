package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/importexport"
	reposPkg "gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// importArchiveAs imports file into group/name as an administrator.
func importArchiveAs(t *testing.T, s *store.Store, repos *reposPkg.Storage, file, group, name string) *importexport.Summary {
	t.Helper()
	ctx := context.Background()
	a, err := importexport.Read(ctx, repos.Git(), file, t.TempDir(), importexport.Limits{})
	if err != nil {
		t.Fatalf("read %s: %v", file, err)
	}
	defer a.Close()
	sum, err := importexport.Import(ctx, s, repos, a, importexport.ImportOptions{GroupPath: group, ProjectPath: name,
		CreateProject: func(ctx context.Context, tx *store.Store, group string, p *models.Project) (*models.Project, error) {
			g, err := tx.Groups.FindGroupByFullPath(ctx, group)
			if errors.Is(err, models.ErrNotFound) {
				g = &models.Group{Name: group, Path: group, Visibility: models.VisibilityPrivate}
				err = tx.Groups.CreateGroup(ctx, g)
			}
			if err != nil {
				return nil, err
			}
			p.NamespaceID = g.ID
			return p, tx.Projects.CreateProject(ctx, p)
		}})
	if err != nil {
		t.Fatalf("import %s: %v", file, err)
	}
	return sum
}

// canonical is a project's records as JSON with every database id blanked
// and every user named by who it stands for: a placeholder by its source
// user's username, anyone else by username. Two imports of one archive
// read the same.
func canonical(t *testing.T, s *store.Store, projectID int64) string {
	t.Helper()
	r, users, err := s.Imports.LoadProjectRecords(context.Background(), projectID)
	if err != nil {
		t.Fatal(err)
	}
	source := map[int64]string{}
	for _, su := range r.SourceUsers {
		if su.PlaceholderUserID != nil {
			source[*su.PlaceholderUserID] = "source:" + su.SourceUsername + "/" + su.SourceName
		}
	}
	who := func(id int64) string {
		if s, ok := source[id]; ok {
			return s
		}
		return "user:" + users[id].Username
	}
	// Users become numbers by the sorted names they stand for.
	var names []string
	for id := range users {
		names = append(names, who(id))
	}
	sort.Strings(names)
	num := map[string]int64{}
	for k, n := range names {
		num[n] = int64(k + 1)
	}
	id := func(p *int64) {
		if p != nil && *p != 0 {
			*p = num[who(*p)]
		}
	}
	refs := func(us []models.User) []models.User {
		out := make([]models.User, len(us))
		for k, u := range us {
			out[k] = models.User{ID: num[who(u.ID)]}
		}
		sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
		return out
	}
	for k := range r.Members {
		m := &r.Members[k]
		m.ID, m.ProjectID = 0, 0
		id(&m.UserID)
	}
	for k := range r.Labels {
		r.Labels[k].ID, r.Labels[k].ProjectID = 0, 0
	}
	for k := range r.Milestones {
		r.Milestones[k].ID, r.Milestones[k].ProjectID = 0, 0
	}
	for k := range r.Issues {
		i := &r.Issues[k]
		i.ID, i.ProjectID, i.MilestoneID = 0, 0, nil
		id(&i.AuthorID)
		i.Assignees = refs(i.Assignees)
	}
	for k := range r.MergeRequests {
		m := &r.MergeRequests[k]
		m.ID, m.ProjectID, m.MilestoneID = 0, 0, nil
		id(&m.AuthorID)
		id(m.MergeUserID)
		m.Assignees, m.Reviewers = refs(m.Assignees), refs(m.Reviewers)
	}
	type noteExtra struct {
		LineCode         string
		OriginalPosition *models.DiffPosition
	}
	var extras []noteExtra
	for k := range r.Notes {
		n := &r.Notes[k]
		n.ID, n.ProjectID, n.NoteableID = 0, 0, 0
		id(&n.AuthorID)
		id(n.ResolvedByID)
		if n.Type == models.NoteTypeDiff {
			extras = append(extras, noteExtra{n.LineCode, n.OriginalPosition})
		}
	}
	for k := range r.Approvals {
		id(&r.Approvals[k].UserID)
	}
	for k := range r.Pipelines {
		p := &r.Pipelines[k]
		p.ID, p.ProjectID, p.MergeRequestID = 0, 0, nil
		id(p.UserID)
		for j := range p.Jobs {
			p.Jobs[j].ID, p.Jobs[j].PipelineID, p.Jobs[j].ProjectID = 0, 0, 0
			id(p.Jobs[j].UserID)
		}
	}
	for k := range r.Releases {
		rel := &r.Releases[k]
		rel.ID, rel.ProjectID = 0, 0
		id(rel.AuthorID)
		for j := range rel.Links {
			rel.Links[j].ID, rel.Links[j].ReleaseID = 0, 0
		}
	}
	for k := range r.SourceUsers {
		su := &r.SourceUsers[k]
		id(su.PlaceholderUserID)
		// The source user's id is the previous instance's.
		su.ID, su.ProjectID, su.SourceUserIdentifier, su.CreatedAt, su.UpdatedAt = 0, 0, "", time.Time{}, time.Time{}
	}
	sort.Slice(r.SourceUsers, func(i, j int) bool { return r.SourceUsers[i].SourceUsername < r.SourceUsers[j].SourceUsername })
	for k := range r.WikiPages {
		w := &r.WikiPages[k]
		w.ID, w.ProjectID, w.CreatedAt, w.UpdatedAt = 0, 0, time.Time{}, time.Time{}
	}
	priorities := map[string]*int{}
	for _, l := range r.Labels {
		priorities[l.Name] = l.Priority
	}
	b, err := json.MarshalIndent(struct {
		Records         *store.ProjectRecords
		LabelPriorities map[string]*int
		DiffNotes       []noteExtra
	}{r, priorities, extras}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Ensure a generated archive in GitLab's shape keeps every record and
// field glmcp models through glmcp: imported, exported, imported again,
// the two imports hold the same records — merge_params, tasks, diff
// notes' original positions and line codes, label priorities, release
// milestones, and the placeholders' source users among them — on SQLite
// and PostgreSQL.
func TestGenerated_roundTrip(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		repos := storetest.Repositories(t, s)
		file := filepath.Join(t.TempDir(), "gen.tar.gz")
		if err := run(opts{issues: 30, mrs: 7, notes: 2, pipelines: 4, users: 3, out: file}); err != nil {
			t.Fatal(err)
		}
		first := importArchiveAs(t, s, repos, file, "gen", "first")
		var buf bytes.Buffer
		if _, err := importexport.Export(context.Background(), s, repos, first.Project, &buf, t.TempDir()); err != nil {
			t.Fatalf("export: %v", err)
		}
		again := filepath.Join(t.TempDir(), "again.tar.gz")
		if err := os.WriteFile(again, buf.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		second := importArchiveAs(t, s, repos, again, "gen", "second")
		a, b := canonical(t, s, first.Project.ID), canonical(t, s, second.Project.ID)
		if a != b {
			al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
			for k := 0; k < len(al) && k < len(bl); k++ {
				if al[k] != bl[k] {
					t.Fatalf("the second import differs from the first at line %d:\n%s\nwant\n%s", k+1, bl[k], al[k])
				}
			}
			t.Fatalf("the second import has %d lines, the first %d", len(bl), len(al))
		}
		// What the round trip kept is there at all.
		for _, want := range []string{`"bug": 0`, `"feature": 1`, `"docs": null`, `"source_username": "gen-user-1"`, `"source_name": "Gen User 1"`, `"access_level": 40`,
			`"force_remove_source_branch": true`, `"MilestoneTitle": "Milestone 2"`, `"OriginalPosition": {`} {
			if !strings.Contains(a, want) {
				t.Errorf("the imported records lack %s", want)
			}
		}
		for _, sum := range []*importexport.Summary{first, second} {
			if sum.Placeholders != 3 || sum.Imported["release milestones"] != 2 {
				t.Errorf("placeholders %d (want 3), release milestones %d (want 2)", sum.Placeholders, sum.Imported["release milestones"])
			}
		}
		tasks := storetest.Int(t, s, "SELECT count(*) FROM issues WHERE project_id = ? AND work_item_type_id = ?", second.Project.ID, models.TypeTask)
		if tasks != 4 {
			t.Errorf("%d tasks after the round trip, want 4", tasks)
		}
	})
}
