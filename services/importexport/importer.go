package importexport

import (
	"context"
	"errors"
	"fmt"
	"io"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/store"
)

// ImportOptions say where an archive goes and who imports it.
type ImportOptions struct {
	// GroupPath and ProjectPath name the new project (GROUP/NAME).
	GroupPath, ProjectPath string
	// Name is the project's display name ("": ProjectPath).
	Name string
	// Visibility overrides the archive's visibility level ("": the
	// archive's, narrowed to the group's).
	Visibility models.Visibility
	// Importer is the user who imports; nil is the instance's
	// administrator (the CLI's operator). An administrator's import maps
	// source users to existing users by username or public e-mail; any
	// other importer's makes a placeholder user of every source user,
	// and the importer becomes a maintainer of the project.
	Importer *models.User
	// Progress receives one line per step (nil: none).
	Progress io.Writer
	// CreateProject creates p in the top-level group groupPath (creating
	// the group when needed) inside tx.
	CreateProject func(ctx context.Context, tx *store.Store, groupPath string, p *models.Project) (*models.Project, error)
}

// Summary is what an import wrote and what it left out, by relation.
type Summary struct {
	Project    *models.Project
	Repository *repository.ImportResult // nil: the archive had no bundle
	Imported   map[string]int
	Skipped    map[string]int
	// Failed counts by relation the records (or parts of records) left
	// out as GitLab's importer leaves out what it cannot save; Failures
	// say which and why (kept in the store: import_failures).
	Failed   map[string]int
	Failures []Failure
	// MappedUsers are source users matched to existing users;
	// Placeholders the placeholder users made for the others.
	MappedUsers, Placeholders int
}

// Import writes the archive a into a new project: the repository staged
// first, then every row in one transaction, the repository moved into
// place last inside it. An import that fails or is interrupted leaves
// neither the project nor its repository nor any user it made.
func Import(ctx context.Context, st *store.Store, repos *repository.Storage, a *Archive, opt ImportOptions) (*Summary, error) {
	sum := &Summary{Imported: map[string]int{}, Skipped: map[string]int{}, Failed: map[string]int{}, Failures: a.Failures}
	for _, f := range a.Failures {
		sum.Failed[f.Relation]++
	}
	for k, v := range a.Skipped {
		sum.Skipped[k] += v
	}
	progress := func(format string, args ...any) {
		if opt.Progress != nil {
			fmt.Fprintf(opt.Progress, format+"\n", args...)
		}
	}
	var staged *repository.StagedImport
	if a.Repository != "" {
		progress("copying the repository from %s", projectBundle)
		var err error
		staged, err = repos.StageImport(ctx, a.Repository, repository.ImportOptions{Progress: opt.Progress})
		if err != nil && !errors.Is(err, models.ErrInvalidInput) {
			return nil, err
		}
		if err != nil { // a bundle without branches or tags: an empty repository
			staged = nil
		} else {
			defer staged.Discard()
			sum.Repository = staged.Result
		}
	}

	full := opt.GroupPath + "/" + opt.ProjectPath
	var p *models.Project
	err := st.WithTx(ctx, func(tx *store.Store) error {
		if _, err := tx.Projects.FindProjectByPath(ctx, full); err == nil {
			return fmt.Errorf("project %s already exists; an archive is imported into a new project: %w", full, models.ErrConflict)
		} else if !errors.Is(err, models.ErrNotFound) {
			return err
		}
		vis := opt.Visibility
		if vis == "" {
			vis = archiveVisibility(a.Project.VisibilityLevel)
			if g, err := tx.Groups.FindGroupByFullPath(ctx, opt.GroupPath); err == nil && g.Visibility.Rank() < vis.Rank() {
				vis = g.Visibility
			}
		}
		name := opt.Name
		if name == "" {
			name = opt.ProjectPath
		}
		np := &models.Project{Name: name, Path: opt.ProjectPath, Description: a.Project.Description,
			Visibility: vis, Archived: a.Project.Archived, MergeMethod: mergeMethod(a.Project)}
		var err error
		if p, err = opt.CreateProject(ctx, tx, opt.GroupPath, np); err != nil {
			return err
		}
		if staged != nil && staged.Result.DefaultBranch != "" && staged.Result.DefaultBranch != p.DefaultBranch {
			if err := tx.Projects.SetProjectDefaultBranch(ctx, p.ID, staged.Result.DefaultBranch); err != nil {
				return err
			}
			p.DefaultBranch = staged.Result.DefaultBranch
		}
		progress("mapping users")
		um := newUserMap(tx, a, opt.Importer)
		if err := um.mapMembers(ctx); err != nil {
			return err
		}
		progress("writing %d issues, %d merge requests, %d pipelines", a.Issues.Len(), a.MergeRequests.Len(), a.Pipelines.Len())
		w := tx.Imports.NewRecordWriter(p.ID)
		if err := convert(ctx, a, um, sum, w, &diffKeeper{git: repos.Git(), repo: a.Repository}); err != nil {
			return err
		}
		sum.MappedUsers, sum.Placeholders = um.mapped, um.placeholders
		if err := tx.Imports.InsertImportFailures(ctx, p.ID, importFailures(a.Failures)); err != nil {
			return err
		}
		if staged != nil {
			// Last: nothing of the transaction can fail after it but the
			// commit, and Discard undoes it then.
			return staged.Install(ctx, p.ID)
		}
		return nil
	})
	if err != nil {
		if staged != nil {
			_ = staged.Discard()
		}
		if p != nil && p.ID > 0 {
			// The project's row is rolled back; so is its repository.
			_ = repos.Remove(p.ID)
		}
		return nil, err
	}
	if staged != nil {
		if err := staged.Commit(); err != nil {
			progress("warning: %v", err)
		}
	}
	// The planner's statistics still describe the tables without these
	// rows: refresh them now rather than when autovacuum gets to it.
	if err := st.Imports.AnalyzeBulkWrite(ctx); err != nil {
		progress("warning: %v", err)
	}
	sum.Project = p
	return sum, nil
}

func archiveVisibility(level *int) models.Visibility {
	if level == nil {
		return models.VisibilityPrivate
	}
	switch *level {
	case levelPublic:
		return models.VisibilityPublic
	case levelInternal:
		return models.VisibilityInternal
	}
	return models.VisibilityPrivate
}

func mergeMethod(p exProject) string {
	switch {
	case p.MergeRequestsFFOnlyEnabled:
		return models.MergeMethodFastForward
	case p.MergeRequestsRebaseEnabled:
		return models.MergeMethodRebaseMerge
	}
	return models.MergeMethodMerge
}

func importFailures(fs []Failure) []models.ImportFailure {
	out := make([]models.ImportFailure, len(fs))
	for k, f := range fs {
		out[k] = models.ImportFailure{RelationKey: f.Relation, Line: f.Line, Message: f.Message}
	}
	return out
}
