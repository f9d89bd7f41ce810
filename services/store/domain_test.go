package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"gorm.io/gorm"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

type gormDB = gorm.DB

func TestStore_GroupsAndProjects(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		org := &models.Group{Name: "GitLab.org", Path: "gitlab-org", Visibility: models.VisibilityInternal}
		wantErr(t, "CreateGroup", s.Groups.CreateGroup(ctx, org), nil)
		sub := &models.Group{Name: "AI", Path: "ai", ParentID: &org.ID}
		wantErr(t, "CreateGroup(sub)", s.Groups.CreateGroup(ctx, sub), nil)
		if sub.FullPath != "gitlab-org/ai" || sub.Visibility != models.VisibilityPrivate {
			t.Errorf("subgroup full path %q visibility %q, want gitlab-org/ai private", sub.FullPath, sub.Visibility)
		}
		proj := &models.Project{Name: "Duo", Path: "duo", NamespaceID: sub.ID}
		wantErr(t, "CreateProject", s.Projects.CreateProject(ctx, proj), nil)
		if proj.PathWithNamespace != "gitlab-org/ai/duo" || proj.DefaultBranch != "main" {
			t.Errorf("project path %q branch %q", proj.PathWithNamespace, proj.DefaultBranch)
		}
		if got, err := s.Projects.FindProjectByPath(ctx, "GitLab-Org/AI/Duo"); err != nil || got.ID != proj.ID {
			t.Errorf("FindProjectByPath(mixed case) = %+v, %v", got, err)
		}
		if got, err := s.Groups.FindGroupByFullPath(ctx, "gitlab-org/ai"); err != nil || got.ID != sub.ID {
			t.Errorf("FindGroupByFullPath = %+v, %v", got, err)
		}
		if got := proj.WebURL("https://gitlab.example.com/"); got != "https://gitlab.example.com/gitlab-org/ai/duo" {
			t.Errorf("WebURL = %q", got)
		}

		missing := int64(999)
		groupTests := []struct {
			name  string
			group models.Group
			want  error
		}{
			{"same full path, other case", models.Group{Name: "x", Path: "GitLab-Org"}, models.ErrConflict},
			{"slash in path", models.Group{Name: "x", Path: "a/b"}, models.ErrInvalidInput},
			{"no name", models.Group{Path: "x"}, models.ErrInvalidInput},
			{"unknown parent", models.Group{Name: "x", Path: "x", ParentID: &missing}, models.ErrInvalidInput},
			{"wider than parent", models.Group{Name: "x", Path: "x", ParentID: &org.ID, Visibility: models.VisibilityPublic}, models.ErrInvalidInput},
			{"unknown visibility", models.Group{Name: "x", Path: "x", Visibility: "secret"}, models.ErrInvalidInput},
		}
		for _, tt := range groupTests {
			wantErr(t, "CreateGroup("+tt.name+")", s.Groups.CreateGroup(ctx, &tt.group), tt.want)
		}
		projectTests := []struct {
			name    string
			project models.Project
			want    error
		}{
			{"same path, other case", models.Project{Name: "x", Path: "DUO", NamespaceID: sub.ID}, models.ErrConflict},
			{"unknown namespace", models.Project{Name: "x", Path: "x", NamespaceID: 999}, models.ErrInvalidInput},
			{"wider than namespace", models.Project{Name: "x", Path: "x", NamespaceID: org.ID, Visibility: models.VisibilityPublic}, models.ErrInvalidInput},
			{"dot-dot path", models.Project{Name: "x", Path: "..", NamespaceID: org.ID}, models.ErrInvalidInput},
			{"inner space", models.Project{Name: "x", Path: "has space", NamespaceID: org.ID}, models.ErrInvalidInput},
			{"leading dash", models.Project{Name: "x", Path: "-x", NamespaceID: org.ID}, models.ErrInvalidInput},
			{"ends with .git", models.Project{Name: "x", Path: "repo.git", NamespaceID: org.ID}, models.ErrInvalidInput},
			{"non-ASCII", models.Project{Name: "x", Path: "café", NamespaceID: org.ID}, models.ErrInvalidInput},
		}
		for _, tt := range projectTests {
			wantErr(t, "CreateProject("+tt.name+")", s.Projects.CreateProject(ctx, &tt.project), tt.want)
		}

		// A name is unique in its namespace, exactly (GitLab's
		// unique_projects_on_name_namespace_id); a path ignoring case.
		takenTests := []struct {
			name    string
			project models.Project
			want    string
		}{
			{"same name", models.Project{Name: "Duo", Path: "duo-2", NamespaceID: sub.ID}, "Name has already been taken"},
			{"same path", models.Project{Name: "Duo 2", Path: "Duo", NamespaceID: sub.ID}, "Path has already been taken"},
			{"both", models.Project{Name: "Duo", Path: "DUO", NamespaceID: sub.ID}, "Name has already been taken, Path has already been taken"},
		}
		for _, tt := range takenTests {
			err := s.Projects.CreateProject(ctx, &tt.project)
			var taken *models.TakenError
			if !errors.As(err, &taken) || !errors.Is(err, models.ErrConflict) || taken.CallerMessage() != tt.want {
				t.Errorf("CreateProject(%s) = %v, want a TakenError %q", tt.name, err, tt.want)
			}
		}
		for _, p := range []models.Project{
			{Name: "duo", Path: "duo-lower", NamespaceID: sub.ID}, // another name: case counts
			{Name: "Duo", Path: "duo", NamespaceID: org.ID},       // another namespace
		} {
			wantErr(t, "CreateProject("+p.Name+" in "+p.Path+")", s.Projects.CreateProject(ctx, &p), nil)
		}
		// A creation racing past the checks is refused by the database,
		// and the index that refused it names the field.
		for _, tt := range []struct {
			project models.Project
			want    string
		}{
			{models.Project{Name: "Duo", Path: "duo-3", PathWithNamespace: "gitlab-org/ai/duo-3"}, "Name has already been taken"},
			{models.Project{Name: "Duo 3", Path: "DUO", PathWithNamespace: "gitlab-org/ai/DUO"}, "Path has already been taken"},
		} {
			p := tt.project
			p.NamespaceID, p.Visibility, p.DefaultBranch, p.MergeMethod = sub.ID, models.VisibilityPrivate, "main", models.MergeMethodMerge
			err := s.Projects.InsertProject(ctx, &p)
			var taken *models.TakenError
			if !errors.As(err, &taken) || taken.CallerMessage() != tt.want {
				t.Errorf("InsertProject(%s, %s) = %v, want the database's %q", p.Name, p.Path, err, tt.want)
			}
		}
	})
}

func TestStore_MembersAndLabels(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		u := mustCreateUser(t, s, "alice")
		p := mustCreateProject(t, s, "g", "p")
		wantErr(t, "AddProjectMember", s.Groups.AddProjectMember(ctx, &models.ProjectMember{ProjectID: p.ID, UserID: u.ID, AccessLevel: models.Developer}), nil)
		m, err := s.Groups.FindProjectMember(ctx, p.ID, u.ID)
		if err != nil || m.AccessLevel != models.Developer {
			t.Errorf("FindProjectMember = %+v, %v; want developer", m, err)
		}
		_, err = s.Groups.FindProjectMember(ctx, p.ID, 999)
		wantErr(t, "FindProjectMember(non-member)", err, models.ErrNotFound)
		wantErr(t, "AddProjectMember(again)", s.Groups.AddProjectMember(ctx, &models.ProjectMember{ProjectID: p.ID, UserID: u.ID, AccessLevel: models.Owner}), models.ErrConflict)
		wantErr(t, "AddProjectMember(level 0)", s.Groups.AddProjectMember(ctx, &models.ProjectMember{ProjectID: p.ID, UserID: u.ID}), models.ErrInvalidInput)
		wantErr(t, "AddProjectMember(unknown user)", s.Groups.AddProjectMember(ctx, &models.ProjectMember{ProjectID: p.ID, UserID: 999, AccessLevel: models.Guest}), models.ErrInvalidInput)

		l := &models.Label{ProjectID: p.ID, Name: "bug"}
		wantErr(t, "CreateLabel", s.Issues.CreateLabel(ctx, l), nil)
		if l.Color != store.DefaultLabelColor {
			t.Errorf("label color = %q, want the default", l.Color)
		}
		wantErr(t, "CreateLabel(dup)", s.Issues.CreateLabel(ctx, &models.Label{ProjectID: p.ID, Name: "bug", Color: "#000000"}), models.ErrConflict)
		wantErr(t, "CreateLabel(bad color)", s.Issues.CreateLabel(ctx, &models.Label{ProjectID: p.ID, Name: "x", Color: "red"}), models.ErrInvalidInput)
		wantErr(t, "CreateLabel(no name)", s.Issues.CreateLabel(ctx, &models.Label{ProjectID: p.ID}), models.ErrInvalidInput)
		wantErr(t, "CreateLabel(unknown project)", s.Issues.CreateLabel(ctx, &models.Label{ProjectID: 999, Name: "x"}), models.ErrInvalidInput)

		// EnsureLabel: insert-or-get, the existing row unchanged.
		got := &models.Label{ProjectID: p.ID, Name: "bug", Color: "#000000"}
		wantErr(t, "EnsureLabel(existing)", s.Issues.EnsureLabel(ctx, got), nil)
		if got.ID != l.ID || got.Color != store.DefaultLabelColor {
			t.Errorf("EnsureLabel(existing) = %+v, want label %d with its color kept", got, l.ID)
		}
		fresh := &models.Label{ProjectID: p.ID, Name: "ensured", Description: "d"}
		wantErr(t, "EnsureLabel(new)", s.Issues.EnsureLabel(ctx, fresh), nil)
		if fresh.ID == 0 || fresh.ID == l.ID || fresh.Description != "d" || fresh.CreatedAt.IsZero() {
			t.Errorf("EnsureLabel(new) = %+v", fresh)
		}
		wantErr(t, "EnsureLabel(no name)", s.Issues.EnsureLabel(ctx, &models.Label{ProjectID: p.ID}), models.ErrInvalidInput)
		wantErr(t, "EnsureLabel(unknown project)", s.Issues.EnsureLabel(ctx, &models.Label{ProjectID: 999, Name: "x"}), models.ErrInvalidInput)
	})
}

func TestStore_MergeRequestsAndPipelines(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		alice := mustCreateUser(t, s, "alice")
		bob := mustCreateUser(t, s, "bob")
		p := mustCreateProject(t, s, "g", "p")
		other := mustCreateProject(t, s, "g", "other")

		mr := &models.MergeRequest{
			ProjectID: p.ID, Title: "Fix", SourceBranch: "fix", TargetBranch: "main", AuthorID: alice.ID,
			State: models.MergeRequestMerged, Assignees: []models.User{{ID: alice.ID}}, Reviewers: []models.User{{ID: bob.ID}},
			SHA: "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", DiffBaseSHA: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
			MergeCommitSHA: "cccccccccccccccccccccccccccccccccccccccc", MergeUserID: &bob.ID,
		}
		wantErr(t, "CreateMergeRequest", s.MergeRequests.CreateMergeRequest(ctx, mr), nil)
		if mr.IID != 1 || mr.MergedAt == nil || mr.MergeStatus != models.MergeStatusUnchecked {
			t.Errorf("merge request iid %d merged_at %v status %q", mr.IID, mr.MergedAt, mr.MergeStatus)
		}
		var back models.MergeRequest
		err := s.DB().Preload("Assignees").Preload("Reviewers").Take(&back, mr.ID).Error
		if err != nil {
			t.Fatal(err)
		}
		if back.SHA != mr.SHA || back.DiffBaseSHA != mr.DiffBaseSHA || back.MergeCommitSHA != mr.MergeCommitSHA ||
			back.MergeUserID == nil || *back.MergeUserID != bob.ID || back.AssigneeIDs()[0] != alice.ID || back.ReviewerIDs()[0] != bob.ID {
			t.Errorf("stored %+v", back)
		}
		mr2 := &models.MergeRequest{ProjectID: p.ID, Title: "Next", SourceBranch: "next", TargetBranch: "main", AuthorID: alice.ID}
		wantErr(t, "CreateMergeRequest(second)", s.MergeRequests.CreateMergeRequest(ctx, mr2), nil)
		if mr2.IID != 2 {
			t.Errorf("second merge request iid = %d, want 2", mr2.IID)
		}
		mrTests := []struct {
			name string
			mr   models.MergeRequest
			want error
		}{
			{"no source branch", models.MergeRequest{ProjectID: p.ID, Title: "x", TargetBranch: "main", AuthorID: alice.ID}, models.ErrInvalidInput},
			{"unknown state", models.MergeRequest{ProjectID: p.ID, Title: "x", SourceBranch: "a", TargetBranch: "main", AuthorID: alice.ID, State: "locked"}, models.ErrInvalidInput},
			{"unknown reviewer", models.MergeRequest{ProjectID: p.ID, Title: "x", SourceBranch: "a", TargetBranch: "main", AuthorID: alice.ID,
				Reviewers: []models.User{{ID: 999}}}, models.ErrInvalidInput},
		}
		for _, tt := range mrTests {
			wantErr(t, "CreateMergeRequest("+tt.name+")", s.MergeRequests.CreateMergeRequest(ctx, &tt.mr), tt.want)
		}
		if n := countRows(t, s, "merge_requests"); n != 2 {
			t.Errorf("merge_requests = %d after refused creates, want 2", n)
		}

		pl := &models.Pipeline{ProjectID: p.ID, SHA: mr.SHA, Ref: "fix", Status: models.StatusFailed, MergeRequestID: &mr.ID,
			Jobs: []models.CIJob{{Name: "test", Status: models.StatusFailed}, {Name: "lint", Ref: "other", Stage: "lint"}}}
		wantErr(t, "CreatePipeline", s.CI.CreatePipeline(ctx, pl), nil)
		if pl.IID != 1 || pl.Source != models.PipelineSourcePush || pl.Jobs[0].PipelineID != pl.ID ||
			pl.Jobs[0].ProjectID != p.ID || pl.Jobs[0].Ref != "fix" || pl.Jobs[0].Stage != "test" ||
			pl.Jobs[1].Ref != "other" || pl.Jobs[1].Status != models.StatusCreated {
			t.Errorf("pipeline %+v jobs %+v", pl, pl.Jobs)
		}
		plTests := []struct {
			name string
			p    models.Pipeline
			want error
		}{
			{"merge request of another project", models.Pipeline{ProjectID: other.ID, SHA: "x", Ref: "main", MergeRequestID: &mr.ID}, models.ErrInvalidInput},
			{"unknown status", models.Pipeline{ProjectID: p.ID, SHA: "x", Ref: "main", Status: "exploded"}, models.ErrInvalidInput},
			{"job without name", models.Pipeline{ProjectID: p.ID, SHA: "x", Ref: "main", Jobs: []models.CIJob{{}}}, models.ErrInvalidInput},
			{"no ref", models.Pipeline{ProjectID: p.ID, SHA: "x"}, models.ErrInvalidInput},
		}
		for _, tt := range plTests {
			wantErr(t, "CreatePipeline("+tt.name+")", s.CI.CreatePipeline(ctx, &tt.p), tt.want)
		}
		if n := countRows(t, s, "ci_jobs"); n != 2 {
			t.Errorf("ci_jobs = %d after refused creates, want 2", n)
		}
	})
}

func TestStore_ReplaceCodeIndex(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		p := mustCreateProject(t, s, "g", "p")
		if _, err := s.CodeIndex.IndexStatus(ctx, p.ID); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("IndexStatus of a project never indexed: %v, want ErrNotFound", err)
		}
		file := func(path, content string) models.RepositoryFile {
			return models.RepositoryFile{FilePath: path, Content: content, Size: int64(len(content)), BlobID: models.GitBlobID(content)}
		}
		replace := func(desc string, prev *models.IndexStatus, sha string, want bool, files ...models.RepositoryFile) {
			t.Helper()
			won, err := s.CodeIndex.ReplaceCodeIndex(ctx, prev, &models.IndexStatus{ProjectID: p.ID, Ref: "main", LastCommit: sha}, files)
			if err != nil || won != want {
				t.Fatalf("%s: won %v, %v; want %v", desc, won, err, want)
			}
		}
		a, b := strings.Repeat("a", 40), strings.Repeat("b", 40)
		replace("first index", nil, a, true, file("README.md", "hello\n"), file("src/x.go", "package x\n"))
		replace("first index again (lost the race)", nil, b, false, file("lost.txt", "x"))
		st, err := s.CodeIndex.IndexStatus(ctx, p.ID)
		if err != nil || st.LastCommit != a || st.Ref != "main" || st.Files != 2 {
			t.Fatalf("IndexStatus = %+v, %v", st, err)
		}
		if n := countRows(t, s, "repository_files"); n != 2 {
			t.Errorf("repository_files = %d rows after a lost race, want the winner's 2", n)
		}
		stale := *st
		replace("from the current index", st, b, true, file("README.md", "bye\n"))
		replace("from a stale index", &stale, a, false)
		if n := countRows(t, s, "repository_files"); n != 1 {
			t.Errorf("repository_files = %d rows, want the winner's 1", n)
		}
		hits, err := s.Search.SearchCode(ctx, models.CodeSearchQuery{ProjectID: p.ID, Ref: "main", Terms: []string{"bye"}})
		if err != nil || len(hits) != 1 || hits[0].File.BlobID != models.GitBlobID("bye\n") {
			t.Errorf("SearchCode(bye) = %+v, %v", hits, err)
		}
	})
}

func TestStore_UpdateCodeIndex(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		p := mustCreateProject(t, s, "g", "p")
		file := func(path, content string) models.RepositoryFile {
			return models.RepositoryFile{FilePath: path, Content: content, Size: int64(len(content)), BlobID: models.GitBlobID(content)}
		}
		a, b, c := strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("c", 40)
		if won, err := s.CodeIndex.ReplaceCodeIndex(ctx, nil, &models.IndexStatus{ProjectID: p.ID, Ref: "main", LastCommit: a},
			[]models.RepositoryFile{file("a.txt", "aaa"), file("b.txt", "bb"), file("c.txt", "c")}); err != nil || !won {
			t.Fatalf("first index: %v, %v", won, err)
		}
		atA, err := s.CodeIndex.IndexStatus(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		contents := func() string {
			t.Helper()
			var out []string
			if err := s.DB().Model(&models.RepositoryFile{}).Where("project_id = ?", p.ID).Order("file_path").
				Pluck("file_path || '=' || content", &out).Error; err != nil {
				t.Fatal(err)
			}
			return strings.Join(out, ",")
		}
		if _, err := s.CodeIndex.UpdateCodeIndex(ctx, nil, &models.IndexStatus{ProjectID: p.ID, Ref: "main", LastCommit: b}, nil, nil, nil); !errors.Is(err, models.ErrInvalidInput) {
			t.Errorf("update from no index: %v, want ErrInvalidInput", err)
		}
		if _, err := s.CodeIndex.UpdateCodeIndex(ctx, atA, &models.IndexStatus{ProjectID: p.ID, Ref: "topic", LastCommit: b}, nil, nil, nil); !errors.Is(err, models.ErrInvalidInput) {
			t.Errorf("update to another ref: %v, want ErrInvalidInput", err)
		}
		// check refuses: nothing changes.
		refused := errors.New("refused")
		var sizes []models.CodeIndexSize
		next := &models.IndexStatus{ProjectID: p.ID, Ref: "main", LastCommit: b}
		won, err := s.CodeIndex.UpdateCodeIndex(ctx, atA, next, []string{"a.txt", "gone.txt"}, []models.RepositoryFile{file("b.txt", "bbbb"), file("d.txt", "dddddd")},
			func(before, after models.CodeIndexSize) error { sizes = append(sizes, before, after); return refused })
		if won || !errors.Is(err, refused) {
			t.Errorf("refused by check: %v, %v", won, err)
		}
		want := []models.CodeIndexSize{{Files: 3, Bytes: 6}, {Files: 3, Bytes: 11}} // - a, b; + b, d
		if fmt.Sprint(sizes) != fmt.Sprint(want) {
			t.Errorf("check saw %v, want %v", sizes, want)
		}
		if st, err := s.CodeIndex.IndexStatus(ctx, p.ID); err != nil || *st != *atA || contents() != "a.txt=aaa,b.txt=bb,c.txt=c" {
			t.Errorf("after a refused update: %+v, %v, %s", st, err, contents())
		}
		// Accepted: only the named rows change.
		var cID int64
		s.DB().Model(&models.RepositoryFile{}).Where("project_id = ? AND file_path = 'c.txt'", p.ID).Pluck("id", &cID)
		won, err = s.CodeIndex.UpdateCodeIndex(ctx, atA, next, []string{"a.txt", "gone.txt"}, []models.RepositoryFile{file("b.txt", "bbbb"), file("d.txt", "dddddd")}, nil)
		if !won || err != nil || next.Files != 3 {
			t.Fatalf("update: %v, %v, %+v", won, err, next)
		}
		if st, err := s.CodeIndex.IndexStatus(ctx, p.ID); err != nil || st.LastCommit != b || st.Files != 3 || contents() != "b.txt=bbbb,c.txt=c,d.txt=dddddd" {
			t.Errorf("after the update: %+v, %v, %s", st, err, contents())
		}
		var cAfter int64
		s.DB().Model(&models.RepositoryFile{}).Where("project_id = ? AND file_path = 'c.txt'", p.ID).Pluck("id", &cAfter)
		if cAfter != cID {
			t.Errorf("the unchanged row was rewritten: id %d, was %d", cAfter, cID)
		}
		// From a stale index: nothing changes, no row is inserted.
		lost := []models.RepositoryFile{file("e.txt", "e")}
		won, err = s.CodeIndex.UpdateCodeIndex(ctx, atA, &models.IndexStatus{ProjectID: p.ID, Ref: "main", LastCommit: c}, []string{"b.txt"}, lost, nil)
		if won || err != nil || lost[0].ID != 0 {
			t.Errorf("update from a stale index: %v, %v, inserted id %d", won, err, lost[0].ID)
		}
		if st, err := s.CodeIndex.IndexStatus(ctx, p.ID); err != nil || st.LastCommit != b || contents() != "b.txt=bbbb,c.txt=c,d.txt=dddddd" {
			t.Errorf("after a lost update: %+v, %v, %s", st, err, contents())
		}
	})
}
