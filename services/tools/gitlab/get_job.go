package gitlab

import (
	"context"
	"errors"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// maxLogWindow is the most bytes of a job log one get_job call returns
// (GitLab's Gitlab::Ci::Trace::Stream::LIMIT_SIZE).
const maxLogWindow = 512_000

// getJob is GitLab 19.5's get_job (alias get_job_log, which always
// returns the log).
func getJob(g *gitlab) tools.Definition {
	t := getJobTool{store: g.store.CI, links: g.links}
	return tools.Definition{
		Name:  "get_job",
		Title: "Get job",
		Description: "Get a CI/CD job in a GitLab project. Add include: log to also get the job's trace/log, which you " +
			"can page through with byte_offset and byte_limit. Add include: artifacts to also list the artifacts the " +
			"job produced (name, size, file type); read one with the get_artifact_file tool.",
		InputSchema: argsSchema(t.run, obj{
			"id":     projectIDProp(),
			"job_id": iidProp("ID of the job"),
			"include": withDesc(obj{"type": "array", "items": obj{"type": "string", "enum": []string{"log", "artifacts"}}, "maxItems": 1, "uniqueItems": true},
				"Facet to include alongside the job, one per call: log or artifacts."),
			"byte_offset": withDesc(obj{"type": "integer", "minimum": 0}, "Byte offset to start reading the job's log from. Only applies when include is log. Default is 0."),
			"byte_limit": withDesc(obj{"type": "integer", "minimum": 1, "maximum": maxLogWindow},
				"Maximum number of bytes of the job's log to return. Only applies when include is log. Default and max is 512000."),
		}, "id", "job_id"),
		Annotations: readOnlyTool("Get job"),
		Toolset:     models.ToolsetCI,
		Edition:     models.EditionCE,
		Source:      "app/services/mcp/tools/jobs/get_job_service.rb",
		Aliases:     []string{"get_job_log"},
		Target:      ciTarget(g, "id", nil, "Job"),
		Run:         tools.Typed(t.run),
	}
}

// getJobStore is what get_job needs from the store.
type getJobStore interface {
	jobLoadStore
	artifactRangeStore
	FindJobArtifact(ctx context.Context, jobID int64, fileType string) (*models.JobArtifact, error)
	JobArtifacts(ctx context.Context, jobIDs []int64) ([]models.JobArtifact, error)
}

// getJobTool is get_job with what it needs: the jobs, their artifacts and
// logs, and the instance URL its answers link to.
type getJobTool struct {
	store getJobStore // nil: no store (a catalog built without one)
	links links
}

type getJobArgs struct {
	ID         refArg   `json:"id"`
	JobID      intArg   `json:"job_id"`
	Include    []string `json:"include"`
	ByteOffset *intArg  `json:"byte_offset"`
	ByteLimit  *intArg  `json:"byte_limit"`
}

func (t getJobTool) run(ctx context.Context, call *tools.Call, args getJobArgs) (*tools.Result, error) {
	if t.store == nil {
		return nil, errNoStore
	}
	if _, err := callerOf(call); err != nil {
		return nil, err
	}
	facet := ""
	if len(args.Include) > 0 {
		facet = args.Include[0]
	}
	if call.Name == "get_job_log" {
		// get_job_log only ever returned the log.
		facet = "log"
	}
	if facet != "log" && (args.ByteOffset != nil || args.ByteLimit != nil) {
		return nil, invalidf("byte_offset and byte_limit apply only when include is [\"log\"]")
	}
	pa, job, err := targetJob(ctx, t.store, call, int64(args.JobID))
	if err != nil {
		return nil, err
	}
	out := obj{"id": job.ID, "name": job.Name, "status": job.Status, "stage": job.Stage,
		"allow_failure": job.AllowFailure, "web_url": t.links.jobURL(pa.project, job.ID)}
	switch facet {
	case "log":
		offset, limit := int64(0), int64(maxLogWindow)
		if args.ByteOffset != nil {
			offset = int64(*args.ByteOffset)
		}
		if args.ByteLimit != nil {
			limit = int64(*args.ByteLimit)
		}
		trace, err := t.store.FindJobArtifact(ctx, job.ID, models.ArtifactTrace)
		if errors.Is(err, models.ErrNotFound) {
			trace = &models.JobArtifact{} // no log yet: an empty one
		} else if err != nil {
			return nil, err
		}
		if out["log"], err = readWindow(ctx, t.store, trace, offset, limit, "Log"); err != nil {
			return nil, err
		}
	case "artifacts":
		arts, err := t.store.JobArtifacts(ctx, []int64{job.ID})
		if err != nil {
			return nil, err
		}
		list := make([]artifactJSON, 0, len(arts))
		for k := range arts {
			list = append(list, artifactOf(&arts[k]))
		}
		out["artifacts"] = list
	}
	return jsonResult(out)
}
