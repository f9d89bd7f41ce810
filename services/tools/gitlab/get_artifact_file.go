package gitlab

import (
	"archive/zip"
	"context"
	"errors"
	"io"
	"path"
	"strconv"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// Limits of get_artifact_file (GitLab's GetArtifactFileService).
const (
	maxArtifactWindow  = 1 << 20  // bytes returned per call
	maxArchiveBytes    = 20 << 20 // archives larger than this are not read
	maxArchiveEntries  = 1000
	binarySampleBytes  = 8000
	listedArchivePaths = 20
)

// getArtifactFile is GitLab's get_artifact_file (GetArtifactFileService):
// a text file of a job's artifacts archive, a byte window at a time.
func getArtifactFile(g *gitlab) tools.Definition {
	t := getArtifactFileTool{store: g.store.CI, links: g.links}
	return tools.Definition{
		Name:  "get_artifact_file",
		Title: "Get artifact file",
		Description: "Read a file from inside the artifacts archive of a CI/CD job as text. To discover what a job or " +
			"pipeline produced, use get_job or get_pipeline with include: artifacts. For large files, page through " +
			"with byte_offset and byte_limit.",
		InputSchema: argsSchema(t.run, obj{
			"url":           urlProp("GitLab URL of the job, for example https://gitlab.com/gitlab-org/gitlab/-/jobs/123. Provide this, or project_id and job_id."),
			"project_id":    projectRefProp("ID or full path of the project. Required if url is not provided."),
			"job_id":        iidProp("ID of the job. Required if url is not provided."),
			"artifact_path": strProp("Path of the file inside the artifacts archive, for example coverage/index.html.", 1, 4096),
			"byte_offset":   withDesc(obj{"type": "integer", "minimum": 0, "maximum": maxArchiveBytes}, "Byte offset to start reading the file from."),
			"byte_limit":    withDesc(obj{"type": "integer", "minimum": 1, "maximum": maxArtifactWindow}, "Maximum number of bytes to return."),
		}, "artifact_path"),
		Annotations: readOnlyTool("Get artifact file"),
		Toolset:     models.ToolsetCI,
		Edition:     models.EditionCE,
		Source:      "app/services/mcp/tools/jobs/get_artifact_file_service.rb",
		Target:      ciTarget(g, "project_id", artifactJobProject, "Job"),
		Run:         tools.Typed(t.run),
	}
}

// getArtifactFileStore is what get_artifact_file needs from the store.
type getArtifactFileStore interface {
	jobLoadStore
	FindJobArtifact(ctx context.Context, jobID int64, fileType string) (*models.JobArtifact, error)
	OpenArtifact(ctx context.Context, a *models.JobArtifact) io.ReaderAt
}

// getArtifactFileTool is get_artifact_file with what it needs: the jobs
// and their archives, and the instance URL its answers link to.
type getArtifactFileTool struct {
	store getArtifactFileStore // nil: no store (a catalog built without one)
	links links
}

type artifactFileArgs struct {
	URL          string `json:"url"`
	ProjectID    refArg `json:"project_id"`
	JobID        intArg `json:"job_id"`
	ArtifactPath string `json:"artifact_path"`
	ByteOffset   intArg `json:"byte_offset"`
	ByteLimit    intArg `json:"byte_limit"`
}

func (t getArtifactFileTool) run(ctx context.Context, call *tools.Call, args artifactFileArgs) (*tools.Result, error) {
	if t.store == nil {
		return nil, errNoStore
	}
	if _, err := callerOf(call); err != nil {
		return nil, err
	}
	jobID := int64(args.JobID)
	switch {
	case args.URL != "" && (args.ProjectID != "" || args.JobID != 0):
		return nil, invalidf("Provide either url, or project_id and job_id, not both")
	case args.URL != "":
		_, id, err := parseObjectURL("url", args.URL, "jobs")
		if err != nil {
			return nil, err
		}
		jobID = id
	case args.ProjectID == "" || jobID <= 0:
		return nil, invalidf("Provide either url, or project_id and job_id")
	}
	name := strings.TrimPrefix(strings.TrimSpace(args.ArtifactPath), "/")
	switch {
	case name == "":
		return nil, invalidf("artifact_path must not be empty")
	case strings.HasSuffix(name, "/"):
		return nil, invalidf("artifact_path must be a file path, not a directory: '%s'", name)
	case path.Clean(name) != name || strings.HasPrefix(name, "../") || name == "..":
		return nil, invalidf("artifact_path must not contain a path traversal sequence: '%s'", name)
	}
	pa, job, err := targetJob(ctx, t.store, call, jobID)
	if err != nil {
		return nil, err
	}
	arch, err := t.store.FindJobArtifact(ctx, job.ID, models.ArtifactArchive)
	if errors.Is(err, models.ErrNotFound) {
		return nil, invalidf("Job %d has no artifacts archive.", job.ID)
	}
	if err != nil {
		return nil, err
	}
	download := t.links.jobURL(pa.project, job.ID) + "/artifacts/download"
	if arch.Size > maxArchiveBytes {
		return nil, invalidf("The artifacts archive of job %d is %d bytes, which exceeds the %d bytes this tool reads. Download it from %s instead.", job.ID, arch.Size, maxArchiveBytes, download)
	}
	zr, err := zip.NewReader(t.store.OpenArtifact(ctx, arch), arch.Size)
	if err != nil {
		return nil, invalidf("Could not read the artifacts archive of job %d. Download it from %s instead.", job.ID, download)
	}
	if len(zr.File) > maxArchiveEntries {
		return nil, invalidf("The artifacts archive of job %d has more than %d entries, which exceeds what this tool reads. Download it from %s instead.", job.ID, maxArchiveEntries, download)
	}
	var entry *zip.File
	for _, f := range zr.File {
		if f.Name == name {
			entry = f
			break
		}
	}
	if entry == nil {
		msg := "Artifact file '" + name + "' not found in the artifacts archive of job " + strconv.FormatInt(job.ID, 10) + "."
		var paths []string
		for _, f := range zr.File {
			if !strings.HasSuffix(f.Name, "/") && len(paths) < listedArchivePaths {
				paths = append(paths, f.Name)
			}
		}
		if len(paths) > 0 {
			msg += " Files in the archive include: " + strings.Join(paths, ", ") + "."
		}
		return nil, invalidf("%s", msg)
	}
	if !entry.Mode().IsRegular() {
		return nil, invalidf("Artifact path '%s' in job %d is not a regular file and cannot be read.", name, job.ID)
	}
	offset, limit := int64(args.ByteOffset), int64(maxArtifactWindow)
	if args.ByteLimit > 0 {
		limit = int64(args.ByteLimit)
	}
	total := int64(entry.UncompressedSize64)
	content, err := readEntryWindow(entry, offset, limit)
	if err != nil {
		return nil, invalidf("Could not read the artifacts archive of job %d. Download it from %s instead.", job.ID, download)
	}
	if content == nil {
		return nil, invalidf("Artifact file '%s' in job %d is binary and cannot be returned as text. Size: %d bytes. It can be viewed at %s.",
			name, job.ID, total, t.links.jobURL(pa.project, job.ID)+"/artifacts/raw/"+name)
	}
	start := min(offset, total)
	end := start + int64(len(content))
	out := obj{"path": name, "job_id": job.ID,
		"metadata": byteWindow{TotalBytes: total, Returned: byteRangeJSON{Start: start, End: end}, Truncated: end < total},
		"content":  toValidUTF8(content)}
	if end < total {
		out["system_instruction"] = "Artifact file truncated. Remaining: " + strconv.FormatInt(total-end, 10) +
			" bytes. Call again with {\"byte_offset\": " + strconv.FormatInt(end, 10) + "}."
	}
	return jsonResult(out)
}

// readEntryWindow returns limit bytes of a zip entry from offset, or nil
// when the entry looks binary (a NUL byte in its first 8000 bytes, git's
// rule). Skipped bytes are read and discarded in small steps, so memory is
// the window, whatever the offset.
func readEntryWindow(f *zip.File, offset, limit int64) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	sample := make([]byte, min(int64(binarySampleBytes), int64(f.UncompressedSize64)))
	if _, err := io.ReadFull(rc, sample); err != nil {
		return nil, err
	}
	if strings.IndexByte(string(sample), 0) >= 0 {
		return nil, nil
	}
	rest := io.MultiReader(strings.NewReader(string(sample)), rc)
	if _, err := io.CopyN(io.Discard, rest, offset); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	buf, err := io.ReadAll(io.LimitReader(rest, limit))
	if err != nil {
		return nil, err
	}
	if buf == nil {
		buf = []byte{}
	}
	return buf, nil
}

// artifactJobProject names the project of get_artifact_file's job: the
// url's, or project_id (the tool refuses both, or neither, before it
// reads the resolution).
func artifactJobProject(call *tools.Call) (string, refArg, error) {
	args, err := tools.Args[artifactFileArgs](call)
	if err != nil {
		return "", "", err
	}
	if args.URL == "" {
		return "project_id", args.ProjectID, nil
	}
	path, _, err := parseObjectURL("url", args.URL, "jobs")
	return "project_id", refArg(path), err
}
