package resources

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

// Caller runs a read tool for a scope: the tool service's CallJSON. ok is
// false, with no error, when the tool gave no content (unknown to the
// scope, invalid arguments, a tool failure, a request for input); an error
// is a server failure.
type Caller interface {
	CallJSON(ctx context.Context, sc models.Scope, name string, args json.RawMessage) (out json.RawMessage, ok bool, err error)
}

// Store is what resources/list and completions read directly; the store's
// Resources and Projects families together satisfy it.
type Store interface {
	MemberProjectsAfter(ctx context.Context, userID, afterID int64, limit int) ([]models.Project, error)
	CompleteProjectPaths(ctx context.Context, viewer *models.User, prefix string, limit int) ([]string, error)
	CompleteIssueIIDs(ctx context.Context, viewer *models.User, projectID int64, prefix string, limit int) ([]int64, error)
	CompleteMergeRequestIIDs(ctx context.Context, projectID int64, prefix string, limit int) ([]int64, error)
	FindProjectWithRoleByPath(ctx context.Context, pathWithNamespace string, userID int64) (*models.Project, models.AccessLevel, error)
}

// Patches reads a merge request's diff as one unified patch, as the user
// may read it (a hidden one is models.ErrNotFound), at most maxBytes;
// cut says files were left out. *gitlab.Patches satisfies it.
type Patches interface {
	MergeRequestPatch(ctx context.Context, u *models.User, project string, iid int64, maxBytes int) (patch string, cut bool, err error)
}

// Options configure a Service.
type Options struct {
	// BaseURL is the instance's public URL (GLMCP_PUBLIC_URL), without a
	// trailing slash; resource URIs live under it.
	BaseURL string
	// Secret keys the cursors of resources/list (at least 32 bytes).
	Secret []byte
	// MaxBytes bounds one content item (default 1 MiB); a larger object
	// is refused with a message naming the tool that reads it in ranges.
	MaxBytes int
	// PageSize is the number of resources per resources/list page
	// (default 50).
	PageSize int
	// Extra is content served beside GitLab's (the conformance suite's
	// fixtures, in the glmcp-conformance build only); the zero Extra adds
	// nothing.
	Extra Extra
	// Patches reads merge request diffs directly from git, for the merge
	// request resource's diff and the review prompt (nil: merge request
	// resources have no diff item).
	Patches Patches
}

// Service serves resources, prompts and completions.
type Service struct {
	tools    Caller
	store    Store
	base     string
	cursors  cursorSigner
	maxBytes int
	pageSize int
	extra    Extra
	// extraPrompts are extra.Prompts as this package builds prompts.
	extraPrompts []promptDef
	patches      Patches
}

// New returns a Service.
func New(c Caller, st Store, opts Options) (*Service, error) {
	if c == nil || st == nil {
		return nil, errors.New("resources: the tool service and the store are required")
	}
	if len(opts.Secret) < 32 {
		return nil, errors.New("resources: the cursor secret must be at least 32 bytes")
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = 1 << 20
	}
	if opts.PageSize <= 0 {
		opts.PageSize = 50
	}
	s := &Service{
		tools: c, store: st, base: strings.TrimRight(opts.BaseURL, "/"),
		cursors: newCursorSigner(opts.Secret), maxBytes: opts.MaxBytes,
		pageSize: opts.PageSize, extra: opts.Extra, patches: opts.Patches,
	}
	for _, p := range opts.Extra.Prompts {
		if p.Get == nil {
			return nil, fmt.Errorf("resources: extra prompt %q has no Get", p.Name)
		}
		s.extraPrompts = append(s.extraPrompts, p.def())
	}
	return s, nil
}

// Templates lists the resource templates.
func (s *Service) Templates() []Template {
	return append(gitlabTemplates(s.base), s.extra.Templates...)
}

// ListPage is one page of resources/list.
type ListPage struct {
	Resources  []Resource
	NextCursor string
}

// List returns a page of the projects the caller is a member of, in id
// order; cursor is nil for the first page.
func (s *Service) List(ctx context.Context, sc models.Scope, cursor *string) (ListPage, error) {
	u := user(sc)
	after := int64(0)
	if cursor != nil {
		var err error
		if after, err = s.cursors.open(*cursor, u.ID); err != nil {
			return ListPage{}, err
		}
	}
	page := ListPage{Resources: []Resource{}}
	if cursor == nil {
		page.Resources = append(page.Resources, s.extra.Resources...)
	}
	if u.ID == 0 || !u.Active() {
		return page, nil
	}
	projects, err := s.store.MemberProjectsAfter(ctx, u.ID, after, s.pageSize+1)
	if err != nil {
		return ListPage{}, err
	}
	more := len(projects) > s.pageSize
	if more {
		projects = projects[:s.pageSize]
	}
	for _, p := range projects {
		page.Resources = append(page.Resources, Resource{
			URI: projectURI(s.base, p.PathWithNamespace), Name: p.PathWithNamespace, Title: p.Name,
			Description: p.Description, MimeType: "application/json",
		})
	}
	if more {
		page.NextCursor = s.cursors.seal(u.ID, projects[len(projects)-1].ID)
	}
	return page, nil
}

// Read reads a resource. Unknown URIs, objects that do not exist and
// objects the caller may not read are all a *NotFoundError.
func (s *Service) Read(ctx context.Context, sc models.Scope, uri string) ([]Contents, error) {
	if s.extra.Read != nil {
		if c, ok := s.extra.Read(uri); ok {
			return c, nil
		}
	}
	t, ok := parseTarget(s.base, uri)
	if !ok {
		return nil, &NotFoundError{Kind: "Resource", Name: uri}
	}
	var (
		out []Contents
		err error
	)
	switch t.kind {
	case kindProject:
		out, err = s.readProject(ctx, sc, uri, t)
	case kindIssue:
		out, err = s.readJSON(ctx, sc, uri, "get_issue", map[string]any{"id": t.project, "issue_iid": t.iid})
	case kindMergeRequest:
		out, err = s.readMergeRequest(ctx, sc, uri, t)
	case kindBlob:
		out, err = s.readBlob(ctx, sc, uri, t)
	case kindJob:
		out, err = s.readJob(ctx, sc, uri, t)
	}
	if err != nil {
		return nil, err
	}
	for _, c := range out {
		if c.size() > s.maxBytes {
			return nil, invalidf(fmt.Sprintf("Resource too large: %s is %d bytes, the limit is %d; read it in ranges with the %s tool",
				quote(uri), c.size(), s.maxBytes, rangeTool(t.kind)))
		}
	}
	return out, nil
}

func rangeTool(kind string) string {
	switch kind {
	case kindBlob:
		return "get_repository_file (offset, limit)"
	case kindJob:
		return "get_job (byte_offset, byte_limit)"
	}
	return "corresponding"
}

// callTool runs a read tool as the caller. A tool error (not found, no
// access, bad argument) or a tool this instance does not serve is a
// *NotFoundError for uri: a resource never tells why it cannot be read.
func (s *Service) callTool(ctx context.Context, sc models.Scope, uri, name string, args map[string]any) (json.RawMessage, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	// No filter headers: a resource does not depend on which tools the
	// client chose to list.
	out, ok, err := s.tools.CallJSON(ctx, models.Scope{Edition: sc.Edition, Identity: sc.Identity, Lockdown: sc.Lockdown}, name, raw) // lockdown withholds here too
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &NotFoundError{Kind: "Resource", Name: uri}
	}
	return out, nil
}

func (s *Service) readJSON(ctx context.Context, sc models.Scope, uri, tool string, args map[string]any) ([]Contents, error) {
	raw, err := s.callTool(ctx, sc, uri, tool, args)
	if err != nil {
		return nil, err
	}
	return []Contents{{URI: uri, MimeType: "application/json", Text: string(raw)}}, nil
}

func user(sc models.Scope) *models.User {
	if sc.Identity == nil || sc.Identity.User == nil {
		return &models.User{}
	}
	return sc.Identity.User
}
