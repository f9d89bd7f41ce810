package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"gitlab.com/glmcp/glmcp/app"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/store"
)

func newProjectsCommand(a *cli) *cobra.Command {
	cmd := &cobra.Command{Use: "projects", Short: "Manage projects and their members"}
	var path, visibility, name, description string
	create := &cobra.Command{
		Use:   "create --path GROUP/NAME --visibility private|internal|public [--name N] [--description D]",
		Short: "Create a project (and its group if needed) and print the project's id",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			vis, groupPath, projectPath, err := projectFlags(visibility, path)
			if err != nil {
				return err
			}
			if name == "" {
				name = projectPath
			}
			ctx := cmd.Context()
			e, err := a.openEnv(ctx)
			if err != nil {
				return err
			}
			defer e.Close()
			var p *models.Project
			err = e.Store.WithTx(ctx, func(tx *store.Store) error {
				p, err = createProjectIn(ctx, tx, groupPath, &models.Project{Name: name, Path: projectPath, Description: description, Visibility: vis})
				return err
			})
			var taken *models.TakenError
			if errors.As(err, &taken) && !slices.Contains(taken.Fields, "Path") {
				return fmt.Errorf("--name %q: a project with this name already exists in %s", name, groupPath)
			}
			if errors.Is(err, models.ErrConflict) {
				return fmt.Errorf("project %s already exists", path)
			}
			if errors.Is(err, models.ErrInvalidInput) {
				return fmt.Errorf("--path %q: %w", path, err)
			}
			if err != nil {
				return err
			}
			fmt.Fprintln(a.stdout, p.ID)
			return nil
		},
	}
	create.Flags().StringVar(&path, "path", "", "GROUP/NAME")
	create.Flags().StringVar(&visibility, "visibility", "private", "private, internal or public")
	create.Flags().StringVar(&name, "name", "", "display name (default: NAME)")
	create.Flags().StringVar(&description, "description", "", "description")
	_ = create.MarkFlagRequired("path")

	var project, user, level string
	addMember := &cobra.Command{
		Use:   "add-member --project GROUP/NAME --user U --access-level guest|reporter|developer|maintainer|owner",
		Short: "Add a user to a project with a role",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			lvl, err := models.ParseAccessLevel(level)
			if err != nil {
				return fmt.Errorf("--access-level: %q is not guest, reporter, developer, maintainer or owner", level)
			}
			ctx := cmd.Context()
			e, err := a.openEnv(ctx)
			if err != nil {
				return err
			}
			defer e.Close()
			p, err := projectNamed(ctx, e, project)
			if err != nil {
				return err
			}
			u, err := userNamed(ctx, e, user)
			if err != nil {
				return err
			}
			err = e.Store.Groups.AddProjectMember(ctx, &models.ProjectMember{ProjectID: p.ID, UserID: u.ID, AccessLevel: lvl})
			if errors.Is(err, models.ErrConflict) {
				return fmt.Errorf("%s is already a member of %s", user, project)
			}
			return err
		},
	}
	addMember.Flags().StringVar(&project, "project", "", "GROUP/NAME")
	addMember.Flags().StringVar(&user, "user", "", "username")
	addMember.Flags().StringVar(&level, "access-level", "", "guest, reporter, developer, maintainer or owner")
	for _, f := range []string{"project", "user", "access-level"} {
		_ = addMember.MarkFlagRequired(f)
	}
	cmd.AddCommand(create, addMember, newProjectsImportCommand(a), newProjectsExportCommand(a), newProjectsHousekeepCommand(a))
	cmd.AddCommand(newProjectsReassignCommand(a))
	cmd.AddCommand(newProjectsImportFailuresCommand(a))
	return cmd
}

func newProjectsHousekeepCommand(a *cli) *cobra.Command {
	var path string
	cmd := &cobra.Command{
		Use:   "housekeep --path GROUP/NAME",
		Short: "Maintain a project's repository now: packed refs, packs, and the commit-graph with Bloom filters",
		Long: "Housekeep runs now, and waits for, the maintenance glmcp runs in the background after imports, forks\n" +
			"and every 50 writes (doc/repositories.md): git pack-refs, a repack past the thresholds, and a\n" +
			"commit-graph with changed-path Bloom filters. Safe beside a running server: git's lock files keep two\n" +
			"maintainers of one repository apart.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.onProject(cmd.Context(), path, func(ctx context.Context, e *app.Env, p *models.Project) error {
				if err := e.Repositories.Housekeeping().Maintain(ctx, p.ID); err != nil {
					return fmt.Errorf("housekeeping of %s: %w", p.PathWithNamespace, err)
				}
				fmt.Fprintf(a.stderr, "maintained the repository of %s\n", p.PathWithNamespace)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&path, "path", "", "GROUP/NAME")
	_ = cmd.MarkFlagRequired("path")
	return cmd
}

func newProjectsImportCommand(a *cli) *cobra.Command {
	var path, from, file, as, visibility, name, description string
	cmd := &cobra.Command{
		Use:   "import --path GROUP/NAME (--from DIR | --file ARCHIVE.tar.gz [--as USER]) [--visibility private|internal|public] [--name N] [--description D]",
		Short: "Import a git repository (all branches and tags) into a new or empty project and print the project's id",
		Long: "Import copies every branch and tag of the git repository in DIR (a bare repository, a mirror or a\n" +
			"clone; in a clone, origin's remote-tracking branches count too) into the project GROUP/NAME with git\n" +
			"itself. The project (and its group) is created when it does not exist; an existing project must have\n" +
			"an empty repository. The project's default branch becomes the repository's HEAD branch. git's progress\n" +
			"is shown when stderr is a terminal. The project and its repository appear together or not at all: an\n" +
			"import that fails or is interrupted leaves neither.\n\n" +
			"With --file, the archive is a GitLab project export (.tar.gz) imported into a new project with its\n" +
			"repository, members, labels, milestones, issues, merge requests, pipelines and releases; --as names\n" +
			"the importing user (default: an administrator's import). See doc/import-export.md.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (from == "") == (file == "") {
				return fmt.Errorf(`required flag "from" or "file" not set: give --from DIR (a git repository) or --file ARCHIVE.tar.gz (a GitLab project export), one of them`)
			}
			if file != "" {
				if cmd.Flags().Changed("description") {
					return fmt.Errorf("--description: an archive brings its project's description")
				}
				x := archiveImport{path: path, file: file, name: name, as: as}
				if cmd.Flags().Changed("visibility") {
					x.visibility = visibility
				}
				return a.runArchiveImport(cmd, x)
			}
			if as != "" {
				return fmt.Errorf("--as goes with --file")
			}
			vis, groupPath, projectPath, err := projectFlags(visibility, path)
			if err != nil {
				return err
			}
			if info, err := os.Stat(from); err != nil || !info.IsDir() {
				return fmt.Errorf("--from %q: not a directory", from)
			}
			if name == "" {
				name = projectPath
			}
			ctx := cmd.Context()
			e, err := a.openEnv(ctx)
			if err != nil {
				return err
			}
			defer e.Close()
			full := groupPath + "/" + projectPath
			// A project with history is refused before anything is copied.
			if p, err := e.Store.Projects.FindProjectByPath(ctx, full); err == nil {
				if err := e.Repositories.RefuseRefs(ctx, p.ID); errors.Is(err, models.ErrConflict) {
					return fmt.Errorf("project %s already has branches or tags; import into a new project or an empty one", p.PathWithNamespace)
				} else if err != nil {
					return err
				}
			} else if !errors.Is(err, models.ErrNotFound) {
				return err
			}
			// The repository is copied whole into the staging directory
			// first; the project's row and the rename into place come in
			// one transaction after (see doc/repositories.md).
			opt := repository.ImportOptions{}
			if isTerminal(a.stderr) {
				opt.Progress = a.stderr
			}
			staged, err := e.Repositories.StageImport(ctx, from, opt)
			if errors.Is(err, models.ErrInvalidInput) {
				return fmt.Errorf("--from %q: %w", from, err)
			}
			if err != nil {
				return err
			}
			defer staged.Discard()
			res := staged.Result
			var p *models.Project
			created := false
			err = e.Store.WithTx(ctx, func(tx *store.Store) error {
				p, err = tx.Projects.FindProjectByPath(ctx, full)
				if errors.Is(err, models.ErrNotFound) {
					if p, err = createProjectIn(ctx, tx, groupPath, &models.Project{Name: name, Path: projectPath, Description: description, Visibility: vis}); err != nil {
						return err
					}
					created = true
				} else if err != nil {
					return err
				}
				if res.DefaultBranch != "" && res.DefaultBranch != p.DefaultBranch {
					if err := tx.Projects.SetProjectDefaultBranch(ctx, p.ID, res.DefaultBranch); err != nil {
						return err
					}
				}
				// Last: nothing of the transaction can fail after it but
				// the commit, and Discard undoes it then.
				return staged.Install(ctx, p.ID)
			})
			if err != nil {
				_ = staged.Discard()
				if created && p != nil && p.ID > 0 {
					// The project's row is rolled back; so is its repository.
					_ = e.Repositories.Remove(p.ID)
				}
			}
			switch {
			case errors.Is(err, models.ErrConflict) && p != nil:
				return fmt.Errorf("project %s already has branches or tags; import into a new project or an empty one", p.PathWithNamespace)
			case errors.Is(err, models.ErrInvalidInput):
				return fmt.Errorf("--path %q: %w", path, err)
			case err != nil:
				return err
			}
			if err := staged.Commit(); err != nil {
				// The import is in place; only the staging's tidying failed
				// (the next import sweeps it).
				fmt.Fprintf(a.stderr, "warning: %v\n", err)
			}
			// Its refs packed now (an import of 1,000 tags wrote 1,000 ref
			// files); the commit-graph is written by the first server that
			// opens the repository, in the background (doc/repositories.md).
			if err := e.Repositories.Housekeeping().PackRefs(ctx, p.ID); err != nil {
				fmt.Fprintf(a.stderr, "warning: packing the imported refs failed (the repository answers all the same): %v\n", err)
			}
			fmt.Fprintln(a.stdout, p.ID)
			fmt.Fprintf(a.stderr, "imported %d branches and %d tags (%d objects) into %s; default branch %s\n",
				len(res.Branches), len(res.Tags), res.Objects, p.PathWithNamespace, res.DefaultBranch)
			return nil
		},
	}
	cmd.Flags().StringVar(&path, "path", "", "GROUP/NAME")
	cmd.Flags().StringVar(&from, "from", "", "directory of the git repository to import")
	cmd.Flags().StringVar(&file, "file", "", "GitLab project export archive (.tar.gz) to import")
	cmd.Flags().StringVar(&as, "as", "", "with --file: the importing user (default: an administrator's import)")
	cmd.Flags().StringVar(&visibility, "visibility", "private", "private, internal or public (a new project)")
	cmd.Flags().StringVar(&name, "name", "", "display name of a new project (default: NAME)")
	cmd.Flags().StringVar(&description, "description", "", "description of a new project")
	_ = cmd.MarkFlagRequired("path")
	return cmd
}

// isTerminal reports whether w is a terminal (a person watches; a script
// reading a pipe or a file gets no progress meter).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// projectFlags checks the --visibility and --path (GROUP/NAME) flags of
// the project commands.
func projectFlags(visibility, path string) (vis models.Visibility, groupPath, projectPath string, err error) {
	if vis, err = models.ParseVisibility(visibility); err != nil {
		return "", "", "", fmt.Errorf("--visibility: %q is not private, internal or public", visibility)
	}
	groupPath, projectPath, ok := strings.Cut(strings.Trim(path, "/"), "/")
	if !ok || groupPath == "" || projectPath == "" || strings.Contains(projectPath, "/") {
		return "", "", "", fmt.Errorf("--path %q: want GROUP/NAME", path)
	}
	return vis, groupPath, projectPath, nil
}

// createProjectIn creates p (default branch main) in the top-level group
// groupPath, creating the group with p's visibility when it does not
// exist yet.
func createProjectIn(ctx context.Context, tx *store.Store, groupPath string, p *models.Project) (*models.Project, error) {
	g, err := tx.Groups.FindGroupByFullPath(ctx, groupPath)
	if errors.Is(err, models.ErrNotFound) {
		g = &models.Group{Name: groupPath, Path: groupPath, Visibility: p.Visibility}
		err = tx.Groups.CreateGroup(ctx, g)
	}
	if err != nil {
		return nil, err
	}
	p.NamespaceID, p.DefaultBranch = g.ID, "main"
	return p, tx.Projects.CreateProject(ctx, p)
}
