package models

import (
	"crypto/sha1"
	"encoding/hex"
	"strconv"
	"time"
)

// RepositoryFile is the content of one file at the head of a branch (table
// repository_files). glmcp keeps files, not git objects: enough for file
// reads and code search. (ProjectID, Ref, FilePath) is unique. BlobID is the
// git blob id of Content and Size its length in bytes; the store fills both.
type RepositoryFile struct {
	ID        int64     `gorm:"primaryKey" json:"-"`
	ProjectID int64     `json:"project_id"`
	Ref       string    `json:"ref"`
	FilePath  string    `json:"file_path"`
	Content   string    `json:"content"`
	Size      int64     `json:"size"`
	BlobID    string    `json:"blob_id"`
	CreatedAt time.Time `json:"-"`
	UpdatedAt time.Time `json:"-"`
}

// GitBlobID returns the id git gives a blob holding content: the hex SHA-1
// of "blob <len>\x00<content>".
func GitBlobID(content string) string {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(content)) + "\x00"))
	h.Write([]byte(content))
	return hex.EncodeToString(h.Sum(nil))
}
