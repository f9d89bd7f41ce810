package gitlab

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"gitlab.com/glmcp/glmcp/internal/cursor"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/codeindex"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// Deps are what the GitLab tools need.
type Deps struct {
	// Store is the GitLab data store (projects, issues, …) by family
	// (FamiliesOf). The tools fail with a server error without it.
	Store Families
	// InTx runs a write tool's work in one transaction (see Transactions).
	InTx InTx
	// Version is reported by get_mcp_server_version.
	Version ServerVersion
	// CursorSecret keys the signed cursors of the first/after tools (the
	// instance secret, so every instance accepts every instance's cursors).
	// Empty: a random key, cursors valid in this process only.
	CursorSecret []byte
	// Repositories opens projects' git repositories (the repository
	// tools fail with a server error without it).
	Repositories Repositories
	// CodeIndex keeps the code index semantic_search ranks current with
	// the default branches in git (services/codeindex). Nil: one is built
	// over Store.CodeIndex and Repositories when both are set.
	CodeIndex CodeIndex
	// PublicURL is the instance's external base URL
	// ("https://gitlab.example.com"), used for web_url and _links. Empty
	// gives root-relative URLs ("/group/project/-/issues/1").
	PublicURL string
}

// gitlab is the registration kit of the GitLab tools: what they are built
// from (the store, its transactions, the repositories, the server version,
// the instance's public URL without a trailing slash, the cursor signer)
// and the Target declarations (target.go). A tool's registration function
// (func toolName(g *gitlab) tools.Definition) builds the tool's own small
// value from these fields, handing it only what it declares; the tool
// value never holds *gitlab or the whole Families.
type gitlab struct {
	repos Repositories
	index CodeIndex
	store Families
	// targets is what the Target resolvers read (nil without a store).
	targets *targetStore
	inTx    InTx
	version ServerVersion
	base    string
	links   links
	// cursors signs every cursor the tools mint (see pager), with a key
	// derived from Deps.CursorSecret.
	cursors *cursor.Signer
}

// Tools returns every GitLab tool (the list in tools.go), ordered by name.
func Tools(d Deps) []tools.Definition {
	g := newGitlab(d)
	out := g.definitions()
	// Where a call writes, for the tool rules, is read as GitLab reads
	// its arguments (rule_places.go).
	places := rulePlaces{st: bind(g.store, func(f Families) rulePlacesStore {
		return rulePlacesStore{f.Projects, f.Groups, f.Issues, f.Vulnerabilities}
	})}
	for i := range out {
		out[i].Places = places
	}
	slices.SortFunc(out, func(a, b tools.Definition) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// newGitlab builds what the tools share from d.
func newGitlab(d Deps) *gitlab {
	g := &gitlab{store: d.Store, inTx: d.InTx, version: d.Version, base: trimSlash(d.PublicURL),
		cursors: cursor.New(d.CursorSecret, maxCursorLen), repos: d.Repositories}
	g.links = links{base: g.base}
	g.targets = targetStoreOf(d.Store)
	if g.inTx == nil {
		g.inTx = func(context.Context, func(Families) error) error { return errNoStore }
	}
	g.index = d.CodeIndex
	if d.Store.CodeIndex != nil && g.index == nil && d.Repositories != nil {
		g.index = codeindex.New(d.Store.CodeIndex, d.Repositories, nil)
	}
	return g
}

// CodeIndex brings a project's code index up to date with a branch of its
// repository and says what it holds; *codeindex.Indexer satisfies it.
type CodeIndex interface {
	Ensure(ctx context.Context, projectID int64, branch string) (*models.IndexStatus, error)
}

// errNoStore is a server failure: the catalog was built without a store.
var errNoStore = errors.New("the GitLab data store is not configured")

// kindError is a tool-level failure with a message written for the model,
// classified by a models sentinel (ErrorResult adds the prefix: "Validation
// error: ", "Forbidden: ", "Conflict: "; not-found messages are shown as is).
type kindError struct {
	msg  string
	kind error
}

func (e *kindError) Error() string { return e.msg }

// CallerMessage makes kindError a tools.CallerError: its message is
// written for the caller.
func (e *kindError) CallerMessage() string { return e.msg }
func (e *kindError) Unwrap() error         { return e.kind }

// notFound is GitLab's REST not-found message ("404 Issue Not Found"). It
// is the same whether the object does not exist or the caller may not see
// it.
func notFound(what string) error {
	return &kindError{msg: "404 " + what + " Not Found", kind: models.ErrNotFound}
}

func invalidf(format string, args ...any) error {
	return &kindError{msg: fmt.Sprintf(format, args...), kind: models.ErrInvalidInput}
}

func forbiddenf(format string, args ...any) error {
	return &kindError{msg: fmt.Sprintf(format, args...), kind: models.ErrForbidden}
}

func conflictf(format string, args ...any) error {
	return &kindError{msg: fmt.Sprintf(format, args...), kind: models.ErrConflict}
}

// callerOf is the user a call runs as (the caller of a tool that checks
// its own store, as a small tool value does).
func callerOf(call *tools.Call) (*models.User, error) {
	if call.Identity == nil || call.Identity.User == nil {
		return nil, errors.New("tool call without an authenticated user")
	}
	return call.Identity.User, nil
}

// intArg is an integer argument. JSON Schema counts 5.0 as an integer, so
// it accepts integral floats too.
type intArg int64

func (n *intArg) UnmarshalJSON(b []byte) error {
	s := string(bytes.TrimSpace(b))
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		*n = intArg(i)
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != float64(int64(f)) {
		return fmt.Errorf("%s is not an integer", s)
	}
	*n = intArg(f)
	return nil
}

// refArg is a project or group reference: a numeric id (as a JSON number or
// a string of digits) or a full path, plain ("group/project") or
// URL-encoded ("group%2Fproject"), as GitLab's API accepts them.
type refArg string

func (r *refArg) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*r = refArg(s)
		return nil
	}
	var n intArg
	if err := n.UnmarshalJSON(b); err != nil {
		return err
	}
	*r = refArg(strconv.FormatInt(int64(n), 10))
	return nil
}

// parseRef splits a reference into a numeric id (> 0) or a path.
func parseRef(field string, r refArg) (id int64, path string, err error) {
	s := strings.TrimSpace(string(r))
	if s == "" {
		return 0, "", invalidf("%s: must not be empty", field)
	}
	if isDigits(s) {
		id, perr := strconv.ParseInt(s, 10, 64)
		if perr != nil || id <= 0 {
			return 0, "", invalidf("%s: %q is not a valid id", field, s)
		}
		return id, "", nil
	}
	if strings.Contains(s, "%") {
		un, uerr := url.PathUnescape(s)
		if uerr != nil {
			return 0, "", invalidf("%s: %q is not a valid URL-encoded path", field, s)
		}
		if strings.ContainsRune(un, 0) || !utf8.ValidString(un) {
			return 0, "", invalidf("%s: %q decodes to text no path can hold (NUL or invalid UTF-8)", field, s)
		}
		s = un
	}
	s = strings.Trim(s, "/")
	if s == "" {
		return 0, "", invalidf("%s: must not be empty", field)
	}
	return 0, s, nil
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// projectAccess is a project the caller may read, with the caller's role.
type projectAccess struct {
	project *models.Project
	level   models.AccessLevel
	// lockdown is the call's lockdown switch: see withholder.
	lockdown bool
}

// projectLookup finds a project with the caller's role in it
// (resolveProject's lookups).
type projectLookup interface {
	FindProjectWithRoleByID(ctx context.Context, id, userID int64) (*models.Project, models.AccessLevel, error)
	FindProjectWithRoleByPath(ctx context.Context, pathWithNamespace string, userID int64) (*models.Project, models.AccessLevel, error)
}

// groupLookup finds a group and whether a user may see a private one
// (resolveGroup's lookups).
type groupLookup interface {
	FindGroupByID(ctx context.Context, id int64) (*models.Group, error)
	FindGroupByFullPath(ctx context.Context, fullPath string) (*models.Group, error)
	HasMembershipInGroup(ctx context.Context, fullPath string, userID int64) (bool, error)
}

// resolveProject finds the project named by ref and checks that u may read
// it; a missing or hidden project is "404 Project Not Found".
func resolveProject(ctx context.Context, st projectLookup, u *models.User, field string, ref refArg) (*projectAccess, error) {
	id, path, err := parseRef(field, ref)
	if err != nil {
		return nil, err
	}
	var p *models.Project
	var level models.AccessLevel
	if id > 0 {
		p, level, err = st.FindProjectWithRoleByID(ctx, id, u.ID)
	} else {
		p, level, err = st.FindProjectWithRoleByPath(ctx, path, u.ID)
	}
	if errors.Is(err, models.ErrNotFound) {
		return nil, notFound("Project")
	}
	if err != nil {
		return nil, err
	}
	if !access.CanReadProject(u, p, level) {
		return nil, notFound("Project")
	}
	return &projectAccess{project: p, level: level}, nil
}

// memberLevel returns userID's effective role in projectID (direct, or
// inherited from the project's group and its ancestors, the highest of
// them; NoAccess for a non-member): the role every permission rule reads,
// as resolveProject's is.
func memberLevel(ctx context.Context, st roleReader, projectID, userID int64) (models.AccessLevel, error) {
	return st.ProjectAccessLevel(ctx, projectID, userID)
}

// roleReader reads a user's effective role in a project (memberLevel).
type roleReader interface {
	ProjectAccessLevel(ctx context.Context, projectID, userID int64) (models.AccessLevel, error)
}

// resolveGroup finds the group named by ref and checks that u may see it:
// public and internal groups are visible to every active user, private
// ones to administrators and members of one of their projects.
func resolveGroup(ctx context.Context, st groupLookup, u *models.User, field string, ref refArg) (*models.Group, error) {
	id, path, err := parseRef(field, ref)
	if err != nil {
		return nil, err
	}
	var g *models.Group
	if id > 0 {
		g, err = st.FindGroupByID(ctx, id)
	} else {
		g, err = st.FindGroupByFullPath(ctx, path)
	}
	if errors.Is(err, models.ErrNotFound) {
		return nil, notFound("Group")
	}
	if err != nil {
		return nil, err
	}
	member := false
	if access.GroupNeedsMembership(u, g) {
		if member, err = st.HasMembershipInGroup(ctx, g.FullPath, u.ID); err != nil {
			return nil, err
		}
	}
	if !access.CanReadGroup(u, g, member) {
		return nil, notFound("Group")
	}
	return g, nil
}

// jsonResult renders v (a JSON object) as both the text content and the
// structured content, as GitLab's MCP server does.
func jsonResult(v any) (*tools.Result, error) {
	b, err := marshalUnescaped(v)
	if err != nil {
		return nil, fmt.Errorf("encode result: %w", err)
	}
	return &tools.Result{Text: string(b), Structured: tools.CompactJSON(b)}, nil
}

// marshalUnescaped is json.Marshal without HTML escaping (<, >, & stay as
// is, as GitLab renders them).
func marshalUnescaped(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(buf.Bytes()), nil
}

func trimSlash(s string) string { return strings.TrimRight(strings.TrimSpace(s), "/") }
