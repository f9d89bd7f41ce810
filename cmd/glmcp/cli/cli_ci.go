package cli

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

// recordedJob is one --job NAME:STATUS[:LOGFILE] (and its --artifacts).
type recordedJob struct {
	name, status, logFile, archive string
}

// finishedStatuses are the job statuses ci record accepts: a recorded
// pipeline has finished.
var finishedStatuses = []string{models.StatusSuccess, models.StatusFailed, models.StatusCanceled,
	models.StatusSkipped, models.StatusManual}

func newCICommand(a *cli) *cobra.Command {
	cmd := &cobra.Command{Use: "ci", Short: "Record CI pipelines"}
	var project, ref, sha, user, name, stage string
	var jobs, archives []string
	record := &cobra.Command{
		Use:   "record --project GROUP/NAME --ref REF --job NAME:STATUS[:LOGFILE]... [--artifacts NAME:ZIPFILE]...",
		Short: "Record a finished pipeline with its jobs, logs and artifacts, and print the pipeline's id",
		Long: "Record a finished pipeline (for imports, tests and demos). Each --job is NAME:STATUS with an optional " +
			"log file; STATUS is success, failed, canceled, skipped or manual. --artifacts NAME:ZIPFILE stores ZIPFILE " +
			"as the artifacts archive of job NAME. The pipeline's status follows GitLab's rule: failed if a job failed, " +
			"else canceled if one was canceled, else success. Everything is written in one transaction.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			parsed, err := parseRecordedJobs(jobs, archives)
			if err != nil {
				return err
			}
			if strings.TrimSpace(ref) == "" {
				return errors.New("--ref: empty")
			}
			if sha == "" {
				sha = strings.Repeat("0", 40)
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
			pl := &models.Pipeline{ProjectID: p.ID, Ref: ref, SHA: sha, Name: name, Source: models.PipelineSourcePush}
			if user != "" {
				u, err := userNamed(ctx, e, user)
				if err != nil {
					return err
				}
				pl.UserID = &u.ID
			}
			now := e.Store.Now()
			for _, j := range parsed {
				pl.Jobs = append(pl.Jobs, models.CIJob{Name: j.name, Stage: stage, Status: j.status,
					UserID: pl.UserID, StartedAt: &now, FinishedAt: &now})
			}
			pl.Status = compositeStatus(parsed)
			pl.StartedAt, pl.FinishedAt = &now, &now
			err = e.Store.WithTx(ctx, func(tx *store.Store) error {
				if err := tx.CI.CreatePipeline(ctx, pl); err != nil {
					return err
				}
				for k, j := range parsed {
					for _, f := range []struct{ path, typ, format, file string }{
						{j.logFile, models.ArtifactTrace, "raw", "job.log"},
						{j.archive, models.ArtifactArchive, "zip", "artifacts.zip"},
					} {
						if f.path == "" {
							continue
						}
						if err := writeArtifactFile(ctx, tx, pl.Jobs[k].ID, f.path, f.typ, f.format, f.file); err != nil {
							return err
						}
					}
				}
				return nil
			})
			if err != nil {
				return fmt.Errorf("record pipeline: %w", err)
			}
			fmt.Fprintln(a.stdout, pl.ID)
			return nil
		},
	}
	f := record.Flags()
	f.StringVar(&project, "project", "", "GROUP/NAME")
	f.StringVar(&ref, "ref", "", "branch or tag the pipeline ran for")
	f.StringVar(&sha, "sha", "", "commit the pipeline ran on (default: 40 zeros, unknown)")
	f.StringVar(&user, "user", "", "username who ran the pipeline (default: none)")
	f.StringVar(&name, "name", "", "pipeline name")
	f.StringVar(&stage, "stage", "test", "stage of every job")
	f.StringArrayVar(&jobs, "job", nil, "NAME:STATUS[:LOGFILE], repeatable, in order")
	f.StringArrayVar(&archives, "artifacts", nil, "NAME:ZIPFILE, repeatable")
	for _, n := range []string{"project", "ref", "job"} {
		_ = record.MarkFlagRequired(n)
	}
	cmd.AddCommand(record)
	return cmd
}

func parseRecordedJobs(jobs, archives []string) ([]recordedJob, error) {
	var out []recordedJob
	seen := map[string]int{}
	for _, spec := range jobs {
		parts := strings.SplitN(spec, ":", 3)
		if len(parts) < 2 || strings.TrimSpace(parts[0]) == "" {
			return nil, fmt.Errorf("--job %q: want NAME:STATUS[:LOGFILE]", spec)
		}
		j := recordedJob{name: strings.TrimSpace(parts[0]), status: parts[1]}
		if !slices.Contains(finishedStatuses, j.status) {
			return nil, fmt.Errorf("--job %q: status %q is not one of %s", spec, j.status, strings.Join(finishedStatuses, ", "))
		}
		if len(parts) == 3 {
			if parts[2] == "" {
				return nil, fmt.Errorf("--job %q: empty log file", spec)
			}
			j.logFile = parts[2]
			if _, err := os.Stat(j.logFile); err != nil {
				return nil, fmt.Errorf("--job %q: %w", spec, err)
			}
		}
		if _, dup := seen[j.name]; dup {
			return nil, fmt.Errorf("--job %q: job %s given twice", spec, j.name)
		}
		seen[j.name] = len(out)
		out = append(out, j)
	}
	for _, spec := range archives {
		jobName, file, ok := strings.Cut(spec, ":")
		k, known := seen[jobName]
		if !ok || file == "" || !known {
			return nil, fmt.Errorf("--artifacts %q: want NAME:ZIPFILE for a job given with --job", spec)
		}
		zr, err := zip.OpenReader(file)
		if err != nil {
			return nil, fmt.Errorf("--artifacts %q: not a zip archive: %w", spec, err)
		}
		_ = zr.Close()
		out[k].archive = file
	}
	return out, nil
}

// compositeStatus is the status of a finished pipeline with these jobs
// (GitLab's composite status, for finished jobs).
func compositeStatus(jobs []recordedJob) string {
	has := func(s string) bool {
		return slices.ContainsFunc(jobs, func(j recordedJob) bool { return j.status == s })
	}
	switch {
	case has(models.StatusFailed):
		return models.StatusFailed
	case has(models.StatusCanceled):
		return models.StatusCanceled
	case !slices.ContainsFunc(jobs, func(j recordedJob) bool { return j.status != models.StatusSkipped }):
		return models.StatusSkipped
	case has(models.StatusManual) && !has(models.StatusSuccess):
		return models.StatusManual
	}
	return models.StatusSuccess
}

// writeArtifactFile streams the file at path into the store as a file of
// job jobID.
func writeArtifactFile(ctx context.Context, tx *store.Store, jobID int64, path, fileType, format, name string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return tx.CI.WriteJobArtifact(ctx, &models.JobArtifact{JobID: jobID, FileType: fileType, FileFormat: format, FileName: name}, f)
}
