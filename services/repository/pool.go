package repository

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

// Bounds of the idle pool.
const (
	maxIdlePerRepository = 2
	maxIdle              = 16
)

// dropIdle closes the idle Locals of project id (its directory is about
// to go or to be replaced).
func (s *Storage) dropIdle(projectID int64) {
	s.mu.Lock()
	idle := s.idle[projectID]
	delete(s.idle, projectID)
	s.nIdle -= len(idle)
	s.mu.Unlock()
	for _, l := range idle {
		l.st.Close()
	}
}

// Open returns project id's repository, read fresh from disk. A project
// without a repository is models.ErrNotFound. Close it when done.
func (s *Storage) Open(ctx context.Context, projectID int64) (*Local, error) {
	if !s.Exists(projectID) {
		return nil, fmt.Errorf("repository of project %d: %w", projectID, models.ErrNotFound)
	}
	dir := s.Path(projectID)
	packs, err := packSet(dir)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	var l *Local
	if list := s.idle[projectID]; len(list) > 0 {
		l = list[len(list)-1]
		s.idle[projectID] = list[:len(list)-1]
		s.nIdle--
	}
	s.mu.Unlock()
	if l != nil && l.packs != packs {
		l.st.Close()
		l = nil
	}
	if l == nil {
		if l, err = openLocal(dir); err != nil {
			return nil, err
		}
		l.git, l.cat = s.git, s.cat
		l.packs, l.pool, l.projectID = packs, s, projectID
		l.refs.pool, l.refs.projectID = s, projectID
		s.hk.noteOpen(projectID, dir)
	}
	l.open, l.ctx = true, ctx
	return l, nil
}

// Repository is Open as the Repository interface (what the tools use).
func (s *Storage) Repository(ctx context.Context, projectID int64) (Repository, error) {
	l, err := s.Open(ctx, projectID)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// release takes back a closed Local into the idle pool, or closes it.
func (s *Storage) release(l *Local) error {
	s.mu.Lock()
	if len(s.idle[l.projectID]) < maxIdlePerRepository && s.nIdle < maxIdle {
		s.idle[l.projectID] = append(s.idle[l.projectID], l)
		s.nIdle++
		s.mu.Unlock()
		return nil
	}
	s.mu.Unlock()
	return l.st.Close()
}

// packSet names the repository's pack files (content-addressed, so the
// names identify the contents).
func packSet(dir string) (string, error) {
	entries, err := os.ReadDir(filepath.Join(dir, "objects", "pack"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("list packs: %w", err)
	}
	var b strings.Builder
	for _, e := range entries { // sorted by name
		if strings.HasSuffix(e.Name(), ".idx") || strings.HasSuffix(e.Name(), ".pack") {
			b.WriteString(e.Name())
			b.WriteByte(0)
		}
	}
	return b.String(), nil
}
