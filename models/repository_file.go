package models

import (
	"crypto/sha1"
	"encoding/hex"
	"strconv"
	"time"
)

// RepositoryFile is one text file of the code index (table
// repository_files): the default branch of a project's git repository at
// the commit its IndexStatus names, read by services/codeindex for
// semantic_search. (ProjectID, Ref, FilePath) is unique. BlobID is the git
// blob id of Content and Size its length in bytes.
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

// IndexStatus is what the code index holds for a project (table
// index_statuses, GitLab's): the rows of repository_files are the text
// files of branch Ref at commit LastCommit ("" for a branch that does not
// exist yet: no rows). Files counts them.
type IndexStatus struct {
	ProjectID  int64 `gorm:"primaryKey;autoIncrement:false"`
	Ref        string
	LastCommit string
	Files      int
	IndexedAt  time.Time
}

// TableName maps IndexStatus to GitLab's index_statuses table.
func (IndexStatus) TableName() string { return "index_statuses" }

// CodeIndexSize is how much a project's code index holds: its rows of
// repository_files and the bytes of their content.
type CodeIndexSize struct {
	Files int
	Bytes int64
}
