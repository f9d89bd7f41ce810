package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

// ChunkSize is the size of one stored chunk of a job's log or artifact
// (GitLab's trace chunk size). A read of a byte range loads only the
// chunks it covers.
const ChunkSize = 128 << 10

// WriteJobArtifact stores a (its JobID, FileType, FileFormat, FileName
// ExpireAt and CreatedAt, now when zero, are read) with the bytes of r, chunk by chunk, in one
// transaction, replacing a previous file of the same type of that job.
// It fills ID, ProjectID, Size and CreatedAt. Memory use is one chunk,
// whatever the size of r. An unknown job is models.ErrNotFound.
func (s *CI) WriteJobArtifact(ctx context.Context, a *models.JobArtifact, r io.Reader) error {
	if strings.TrimSpace(a.FileType) == "" || strings.TrimSpace(a.FileName) == "" {
		return fmt.Errorf("write artifact: file type and name are required: %w", models.ErrInvalidInput)
	}
	if a.FileFormat == "" {
		a.FileFormat = "raw"
	}
	err := s.st.WithTx(ctx, func(tx *Store) error {
		var job models.CIJob
		if err := tx.conn(ctx).Select("id", "project_id").Where("id = ?", a.JobID).Take(&job).Error; err != nil {
			return translate(err)
		}
		if err := tx.conn(ctx).Where("job_id = ? AND file_type = ?", a.JobID, a.FileType).
			Delete(&models.JobArtifact{}).Error; err != nil {
			return translate(err)
		}
		a.ID, a.ProjectID, a.Size = 0, job.ProjectID, 0
		if a.CreatedAt.IsZero() {
			a.CreatedAt = tx.clock()
		}
		if err := tx.conn(ctx).Create(a).Error; err != nil {
			return translate(err)
		}
		buf := make([]byte, ChunkSize)
		for index := 0; ; index++ {
			n, err := io.ReadFull(r, buf)
			if n > 0 {
				if err := tx.conn(ctx).Exec("INSERT INTO ci_job_artifact_chunks (artifact_id, chunk_index, data) VALUES (?, ?, ?)",
					a.ID, index, buf[:n]).Error; err != nil {
					return translate(err)
				}
				a.Size += int64(n)
			}
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				break
			}
			if err != nil {
				return fmt.Errorf("read artifact bytes: %w", err)
			}
		}
		return translate(tx.conn(ctx).Model(a).Update("size", a.Size).Error)
	})
	if err != nil {
		a.ID = 0
		return fmt.Errorf("write %s of job %d: %w", a.FileType, a.JobID, err)
	}
	return nil
}

// ArtifactReader reads a stored artifact by byte ranges. It implements
// io.ReaderAt (for archive/zip) and keeps the last chunk it loaded, so
// the small sequential reads of a zip reader cost one query per chunk.
// It is not safe for concurrent use.
type ArtifactReader struct {
	s      *CI
	ctx    context.Context
	id     int64
	size   int64
	cached int
	chunk  []byte
}

// OpenArtifact returns a reader of artifact a's bytes (a.ID and a.Size are
// read): an *ArtifactReader.
func (s *CI) OpenArtifact(ctx context.Context, a *models.JobArtifact) io.ReaderAt {
	return s.openArtifact(ctx, a)
}

func (s *CI) openArtifact(ctx context.Context, a *models.JobArtifact) *ArtifactReader {
	return &ArtifactReader{s: s, ctx: ctx, id: a.ID, size: a.Size, cached: -1}
}

// Size is the artifact's length in bytes.
func (r *ArtifactReader) Size() int64 { return r.size }

// ReadAt implements io.ReaderAt.
func (r *ArtifactReader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("read artifact %d: negative offset: %w", r.id, models.ErrInvalidInput)
	}
	if off >= r.size {
		return 0, io.EOF
	}
	want := len(p)
	if rest := r.size - off; int64(want) > rest {
		want = int(rest)
	}
	n := 0
	for n < want {
		pos := off + int64(n)
		index := int(pos / ChunkSize)
		// A read spanning several chunks fetches them in one statement.
		if index != r.cached {
			last := int((off + int64(want) - 1) / ChunkSize)
			if err := r.load(index, last); err != nil {
				return n, err
			}
		}
		start := int(pos % ChunkSize)
		if start >= len(r.chunk) {
			return n, fmt.Errorf("read artifact %d: chunk %d is short: %w", r.id, index, io.ErrUnexpectedEOF)
		}
		n += copy(p[n:want], r.chunk[start:])
	}
	if want < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// load reads chunks first..last; it keeps the last one as the cache and
// copies the others into the cache slot one after another only as ReadAt
// asks, so at most last-first+1 chunks are in memory.
func (r *ArtifactReader) load(first, last int) error {
	var rows []struct {
		ChunkIndex int
		Data       []byte
	}
	err := r.s.conn(r.ctx).Table("ci_job_artifact_chunks").Select("chunk_index, data").
		Where("artifact_id = ? AND chunk_index BETWEEN ? AND ?", r.id, first, last).
		Order("chunk_index").Scan(&rows).Error
	if err != nil {
		return fmt.Errorf("read artifact %d: %w", r.id, translate(err))
	}
	if len(rows) != last-first+1 {
		return fmt.Errorf("read artifact %d: chunks %d..%d missing: %w", r.id, first, last, io.ErrUnexpectedEOF)
	}
	if len(rows) == 1 {
		r.cached, r.chunk = rows[0].ChunkIndex, rows[0].Data
		return nil
	}
	// Several chunks: join them into one window the caller reads through.
	total := 0
	for _, row := range rows {
		total += len(row.Data)
	}
	joined := make([]byte, 0, total)
	for _, row := range rows {
		joined = append(joined, row.Data...)
	}
	r.cached, r.chunk = first, joined
	return nil
}

// ReadArtifactRange returns up to limit bytes of artifact a from offset
// (fewer at its end, none past it).
func (s *CI) ReadArtifactRange(ctx context.Context, a *models.JobArtifact, offset, limit int64) ([]byte, error) {
	if offset >= a.Size || limit <= 0 {
		return []byte{}, nil
	}
	if rest := a.Size - offset; limit > rest {
		limit = rest
	}
	buf := make([]byte, limit)
	n, err := s.openArtifact(ctx, a).ReadAt(buf, offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return buf[:n], nil
}
