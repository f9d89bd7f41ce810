package gitlab

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// Bounds of get_repository_file (GitLab's GetRepositoryFileTool).
const (
	fileDefaultLimit = 500
	fileMaxLimit     = 2000
	fileWindowBytes  = 1 << 20  // MAX_WINDOW_BYTES
	fileReadBytes    = 10 << 20 // lines counted in at most this much of the file
)

type getRepositoryFileArgs struct {
	repoTarget
	FilePath string  `json:"file_path"`
	Ref      string  `json:"ref"`
	Offset   *intArg `json:"offset"`
	Limit    *intArg `json:"limit"`
}

type fileLinesJSON struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

type fileMetadataJSON struct {
	TotalLines    int            `json:"total_lines"`
	ReturnedLines *fileLinesJSON `json:"returned_lines"`
	Truncated     bool           `json:"truncated"`
	SizeBytes     int64          `json:"size_bytes"`
}

type fileJSON struct {
	Path              string           `json:"path"`
	Ref               string           `json:"ref"`
	Metadata          fileMetadataJSON `json:"metadata"`
	Content           string           `json:"content"`
	Encoding          string           `json:"encoding,omitempty"`
	SystemInstruction string           `json:"system_instruction,omitempty"`
}

func getRepositoryFile(g *gitlab) tools.Definition {
	t := getRepositoryFileTool{repo: newRepoOpener(g)}
	props := repoProps("GitLab URL of the file, for example https://gitlab.com/gitlab-org/gitlab/-/blob/master/app/models/user.rb. "+
		"Provide this, or project_id, file_path, and ref.",
		"ID or full path of the project. Required if url is not provided. If url is also provided, both must refer to the same project.")
	props["file_path"] = strProp("Path of the file relative to the repository root, for example app/models/user.rb; at most 4096 bytes in UTF-8. Required if url is not provided.", 0, maxPathBytes)
	props["ref"] = strProp("Branch name, tag name, or commit SHA. Use HEAD for the default branch. Required if url is not provided.", 0, 1024)
	props["offset"] = withDesc(obj{"type": "integer", "minimum": 0}, "Zero-indexed line number to start reading from. Omit to start at the beginning of the file.")
	props["limit"] = withDesc(obj{"type": "integer", "minimum": 1, "maximum": fileMaxLimit}, fmt.Sprintf("Maximum number of lines to return. The maximum is %d.", fileMaxLimit))
	return tools.Definition{
		Name:  "get_repository_file",
		Title: "Get repository file",
		Description: "Read a file from a GitLab repository at a given ref. Reads from GitLab, not the local " +
			"filesystem: use it for a project you have not checked out, or a specific branch, tag, or commit — " +
			"not your local working copy. Returns the file as committed at ref. For large files, use offset and " +
			"limit to read in windows; when the response is partial, system_instruction gives the next offset.",
		// GitLab declares required: [] (url, or project_id, file_path and
		// ref: checked when called).
		InputSchema:  argsSchemaRequired(t.run, props, []string{}),
		OutputSchema: tools.OutputSchemaOf[fileJSON](),
		Annotations:  readOnlyTool("Get repository file"),
		Toolset:      models.ToolsetRepository,
		Edition:      models.EditionCE,
		Source:       "app/services/mcp/tools/repositories/get_repository_file_service.rb",
		Target: g.repoProject("project_id", urlWins, func(id string) error {
			return &kindError{msg: fmt.Sprintf("Project '%s' not found or inaccessible", id), kind: models.ErrNotFound}
		}),
		Run: tools.Typed(t.run),
	}
}

// getRepositoryFileTool is get_repository_file with what it needs: the
// project's repository.
type getRepositoryFileTool struct {
	repo repoOpener
}

func (t getRepositoryFileTool) run(ctx context.Context, call *tools.Call, args getRepositoryFileArgs) (*tools.Result, error) {
	target := args.repoTarget
	if target.URL != "" && target.ProjectID != "" {
		// GitLab accepts both when they agree; the URL names the project.
		target.ProjectID = ""
	}
	if target.URL == "" && (strings.TrimSpace(args.FilePath) == "" || strings.TrimSpace(args.Ref) == "" || target.ProjectID == "") {
		return nil, invalidf("Provide either url, or project_id, file_path, and ref")
	}
	ra, err := t.repo.open(ctx, call, target)
	if err != nil {
		return nil, err
	}
	defer ra.Close()
	ref, path := args.Ref, args.FilePath
	if args.URL != "" {
		if ref, path, err = blobURLRefAndPath(ctx, ra, args); err != nil {
			return nil, err
		}
		if args.ProjectID != "" && isDigits(string(args.ProjectID)) && string(args.ProjectID) != fmt.Sprint(ra.pa.project.ID) {
			return nil, invalidf("Project mismatch: project_id is '%s' but url contains '%s'", args.ProjectID, ra.pa.project.PathWithNamespace)
		}
	}
	path = strings.TrimPrefix(strings.TrimSpace(path), "/")
	if path == "" {
		return nil, invalidf("file_path must not be empty")
	}
	if strings.HasSuffix(path, "/") {
		return nil, invalidf("file_path must be a file, not a directory: '%s'", path)
	}
	if len(path) > maxPathBytes { // maxLength counts characters: 4096 × "é" is 8192 bytes
		return nil, invalidf("file_path is too long: %d bytes in UTF-8, the limit is %d", len(path), maxPathBytes)
	}
	if _, err := repository.CleanPath(path); err != nil {
		return nil, invalidf("file_path must not contain a path traversal sequence or control characters: '%s'", strings.ToValidUTF8(strings.ReplaceAll(path, "\x00", `\0`), "?"))
	}
	offset, limit := 0, fileDefaultLimit
	if args.Offset != nil {
		offset = int(*args.Offset)
	}
	if args.Limit != nil {
		limit = int(*args.Limit)
	}
	blob, err := ra.repo.Blob(ctx, ref, path, repository.BlobOptions{
		FromLine: offset + 1, Lines: limit, MaxBytes: fileWindowBytes, ScanBytes: fileReadBytes,
	})
	if err != nil {
		return nil, blobError(ctx, ra, ref, path, err)
	}
	if blob.Binary {
		return binaryFileResult(path, ref, blob)
	}
	return fileResult(path, ref, offset, limit, blob)
}

// blobError says whether the ref or the file is missing, as GitLab does.
func blobError(ctx context.Context, ra *repoAccess, ref, path string, err error) error {
	if !errors.Is(err, models.ErrNotFound) {
		if errors.Is(err, models.ErrInvalidInput) && strings.Contains(err.Error(), "is a directory") {
			return invalidf("file_path must be a file, not a directory: '%s'", path)
		}
		return repoError(err)
	}
	if _, cerr := ra.repo.Commit(ctx, ref); cerr != nil {
		return refNotFound(ref)
	}
	return &kindError{msg: fmt.Sprintf("File '%s' does not exist at ref '%s'. The path must be relative to the "+
		"repository root. Do not retry the same path; use the search tool with scope 'blobs' to locate the file.", path, ref),
		kind: models.ErrNotFound}
}

// blobURLRefAndPath splits "blob/<ref>/<path>" of a file URL, taking the
// longest prefix that names a branch or tag as the ref (GitLab's ref
// extractor), and checks it against the other arguments.
func blobURLRefAndPath(ctx context.Context, ra *repoAccess, args getRepositoryFileArgs) (string, string, error) {
	rest, ok := strings.CutPrefix(ra.rest, "blob/")
	if !ok {
		return "", "", invalidf("Invalid file URL: %s is not a file (…/-/blob/<ref>/<path>) URL", args.URL)
	}
	segs := strings.Split(rest, "/")
	ref, path := segs[0], strings.Join(segs[1:], "/")
	for i := len(segs) - 1; i > 1; i-- {
		cand := strings.Join(segs[:i], "/")
		if _, err := ra.repo.Commit(ctx, cand); err == nil {
			ref, path = cand, strings.Join(segs[i:], "/")
			break
		}
	}
	if path == "" {
		return "", "", invalidf("Invalid file URL: no file path found after the ref in %s", args.URL)
	}
	if args.FilePath != "" && strings.Trim(args.FilePath, "/") != path {
		return "", "", invalidf("File path mismatch: file_path is '%s' but url contains '%s'", args.FilePath, path)
	}
	if args.Ref != "" && args.Ref != ref {
		return "", "", invalidf("Ref mismatch: ref is '%s' but url contains '%s'", args.Ref, ref)
	}
	return ref, path, nil
}

func fileResult(path, ref string, offset, limit int, b *repository.Blob) (*tools.Result, error) {
	returned := b.ToLine - b.FromLine + 1
	total := b.TotalLines
	out := fileJSON{Path: path, Ref: ref, Content: strings.ToValidUTF8(string(b.Content), "\uFFFD")}
	out.Metadata = fileMetadataJSON{TotalLines: total, SizeBytes: b.Size,
		Truncated: returned < total || !b.EOF || b.Truncated}
	if returned > 0 {
		out.Metadata.ReturnedLines = &fileLinesJSON{Start: offset + 1, End: offset + returned}
	}
	next := offset + max(returned, 0)
	var notes []string
	switch {
	case returned <= 0 && total > 0:
		notes = append(notes, fmt.Sprintf("Offset %d is past the end of the file (%d lines). Call again with an offset below %d.", offset, total, total))
	case total-next > 0 || (!b.EOF && returned > 0):
		remaining := "unknown"
		if b.EOF {
			remaining = fmt.Sprint(total - next)
		}
		notes = append(notes, fmt.Sprintf("File truncated. Remaining lines: %s. To view more, call again with {\"offset\": %d, \"limit\": %d}.", remaining, next, limit))
	}
	if b.Truncated {
		if returned == 1 && !utf8.Valid(b.Content) || returned == 1 && int64(len(b.Content)) >= fileWindowBytes {
			notes = append(notes, fmt.Sprintf("A line exceeded the %d byte response limit and was cut; its remainder is not retrievable due to size.", fileWindowBytes))
		} else {
			notes = append(notes, fmt.Sprintf("The window was shortened to stay within the %d byte response limit.", fileWindowBytes))
		}
	}
	if !b.EOF {
		notes = append(notes, "This file is larger than the read limit, so total_lines counts only the portion that was retrieved. size_bytes is the full size.")
	}
	out.SystemInstruction = strings.Join(notes, " ")
	return jsonResult(out)
}

// binaryFileResult returns a binary file base64-encoded when it fits the
// response limit; GitLab refuses binary files outright, glmcp hands small
// ones over with encoding "base64".
func binaryFileResult(path, ref string, b *repository.Blob) (*tools.Result, error) {
	if b.Size > fileWindowBytes/4*3 {
		return nil, invalidf("File '%s' is binary and cannot be returned as text. Size: %d bytes.", path, b.Size)
	}
	out := fileJSON{Path: path, Ref: ref, Encoding: "base64", Content: base64.StdEncoding.EncodeToString(b.Content),
		Metadata: fileMetadataJSON{SizeBytes: b.Size}}
	return jsonResult(out)
}
