package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"gitlab.com/glmcp/glmcp/app"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/importexport"
)

// archiveImport is `projects import --file ARCHIVE.tar.gz`: a GitLab
// project export into the new project path.
type archiveImport struct {
	path, file, visibility, name, as string
}

func (a *cli) runArchiveImport(cmd *cobra.Command, x archiveImport) error {
	_, groupPath, projectPath, err := projectFlags("private", x.path)
	if err != nil {
		return err
	}
	var vis models.Visibility
	if x.visibility != "" {
		if vis, err = models.ParseVisibility(x.visibility); err != nil {
			return fmt.Errorf("--visibility: %q is not private, internal or public", x.visibility)
		}
	}
	if info, err := os.Stat(x.file); err != nil || info.IsDir() {
		return fmt.Errorf("--file %q: not a file", x.file)
	}
	ctx := cmd.Context()
	e, err := a.openEnv(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	full := groupPath + "/" + projectPath
	if _, err := e.Store.Projects.FindProjectByPath(ctx, full); err == nil {
		return fmt.Errorf("project %s already exists; an archive is imported into a new project", full)
	} else if !errors.Is(err, models.ErrNotFound) {
		return err
	}
	var importer *models.User
	if x.as != "" {
		if importer, err = userNamed(ctx, e, x.as); err != nil {
			return err
		}
	}
	terminal := isTerminal(a.stderr)
	if terminal {
		fmt.Fprintf(a.stderr, "reading %s\n", x.file)
	}
	// The archive is unpacked beside the repositories, on their disk.
	tmp := filepath.Join(e.Repositories.Root(), "+tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	arch, err := importexport.Read(ctx, e.Repositories.Git(), x.file, tmp, importexport.Limits{})
	if err != nil {
		return fmt.Errorf("--file %q: %w", x.file, err)
	}
	defer arch.Close()
	opt := importexport.ImportOptions{GroupPath: groupPath, ProjectPath: projectPath, Name: x.name,
		Visibility: vis, Importer: importer, CreateProject: createProjectIn}
	if terminal {
		opt.Progress = a.stderr
	}
	sum, err := importexport.Import(ctx, e.Store, e.Repositories, arch, opt)
	if errors.Is(err, models.ErrInvalidInput) {
		return fmt.Errorf("--file %q: %w", x.file, err)
	}
	if err != nil {
		return err
	}
	if err := e.Repositories.Housekeeping().Maintain(ctx, sum.Project.ID); err != nil && sum.Repository != nil {
		fmt.Fprintf(a.stderr, "warning: packing the imported refs failed (the repository answers all the same): %v\n", err)
	}
	fmt.Fprintln(a.stdout, sum.Project.ID)
	fmt.Fprintf(a.stderr, "imported %s into %s\n", x.file, sum.Project.PathWithNamespace)
	if r := sum.Repository; r != nil {
		fmt.Fprintf(a.stderr, "  repository: %d branches, %d tags (%d objects); default branch %s\n",
			len(r.Branches), len(r.Tags), r.Objects, r.DefaultBranch)
	} else {
		fmt.Fprintf(a.stderr, "  repository: none in the archive (empty)\n")
	}
	fmt.Fprintf(a.stderr, "  users: %d mapped to existing users, %d placeholder users\n", sum.MappedUsers, sum.Placeholders)
	if sum.Placeholders > 0 {
		fmt.Fprintf(a.stderr, "  (give a placeholder's contributions to its user with: glmcp projects reassign --path %s --from PLACEHOLDER --to USER)\n",
			sum.Project.PathWithNamespace)
	}
	printCounts(a, "imported", sum.Imported)
	printCounts(a, "skipped", sum.Skipped)
	printCounts(a, "failed", sum.Failed)
	for k, f := range sum.Failures {
		if k == maxFailuresShown {
			fmt.Fprintf(a.stderr, "    … and %d more: glmcp projects import-failures --path %s\n", len(sum.Failures)-k, sum.Project.PathWithNamespace)
			break
		}
		fmt.Fprintf(a.stderr, "    %s\n", failureLine(f.Relation, f.Line, f.Message))
	}
	return nil
}

// maxFailuresShown is how many import failures the summary lists; the
// import-failures command lists them all.
const maxFailuresShown = 10

func failureLine(relation string, line int, msg string) string {
	return fmt.Sprintf("%s line %d: %s", relation, line, msg)
}

func newProjectsImportFailuresCommand(a *cli) *cobra.Command {
	var path string
	cmd := &cobra.Command{
		Use:   "import-failures --path GROUP/NAME",
		Short: "List the archive records an import could not save (doc/import-export.md)",
		Long: "import-failures lists, one a line on stdout, the records of the archive `projects import --file`\n" +
			"brought GROUP/NAME from that were left out as GitLab's importer leaves out what it cannot save:\n" +
			"the relation, the line of its ndjson file, and what was wrong. Nothing is printed when there were none.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.onProject(cmd.Context(), path, func(ctx context.Context, e *app.Env, p *models.Project) error {
				fs, err := e.Store.Imports.ListImportFailures(ctx, p.ID)
				if err != nil {
					return err
				}
				for _, f := range fs {
					fmt.Fprintln(a.stdout, failureLine(f.RelationKey, f.Line, f.Message))
				}
				fmt.Fprintf(a.stderr, "%d import failures of %s\n", len(fs), p.PathWithNamespace)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&path, "path", "", "GROUP/NAME")
	_ = cmd.MarkFlagRequired("path")
	return cmd
}

func printCounts(a *cli, title string, counts map[string]int) {
	if len(counts) == 0 {
		fmt.Fprintf(a.stderr, "  %s: nothing\n", title)
		return
	}
	names := make([]string, 0, len(counts))
	for k := range counts {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
	}
	fmt.Fprintf(a.stderr, "  %s: %s\n", title, strings.Join(parts, ", "))
}

func newProjectsExportCommand(a *cli) *cobra.Command {
	var path, file string
	cmd := &cobra.Command{
		Use:   "export --path GROUP/NAME --file ARCHIVE.tar.gz",
		Short: "Write a project as a GitLab project export archive (doc/import-export.md)",
		Long: "Export writes the project GROUP/NAME as the .tar.gz GitLab's own project export writes: the VERSION\n" +
			"file GitLab's importer checks, tree/project.json, one tree/project/<relation>.ndjson per relation glmcp\n" +
			"models (members, labels, milestones, issues with notes, merge requests with notes, diff notes and\n" +
			"approvals, pipelines with jobs, releases with links) and the repository as project.bundle. GitLab and\n" +
			"`glmcp projects import --file` import it. The file is written whole or not at all.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.onProject(cmd.Context(), path, func(ctx context.Context, e *app.Env, p *models.Project) error {
				abs, err := filepath.Abs(file)
				if err != nil {
					return fmt.Errorf("--file %q: %w", file, err)
				}
				out, err := os.CreateTemp(filepath.Dir(abs), ".glmcp-export-*.tar.gz")
				if err != nil {
					return fmt.Errorf("--file %q: %w", file, err)
				}
				defer os.Remove(out.Name())
				sum, err := importexport.Export(ctx, e.Store, e.Repositories, p, out, "")
				if err == nil {
					err = out.Sync()
				}
				if cerr := out.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					return err
				}
				if err := os.Rename(out.Name(), abs); err != nil {
					return fmt.Errorf("--file %q: %w", file, err)
				}
				fmt.Fprintf(a.stderr, "exported %s to %s\n", p.PathWithNamespace, file)
				if !sum.Bundle {
					fmt.Fprintf(a.stderr, "  repository: empty (no project.bundle)\n")
				}
				printCounts(a, "written", sum.Written)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&path, "path", "", "GROUP/NAME")
	cmd.Flags().StringVar(&file, "file", "", "the archive to write")
	_ = cmd.MarkFlagRequired("path")
	_ = cmd.MarkFlagRequired("file")
	return cmd
}
