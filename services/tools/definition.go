package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

// Definition is a tool as the code knows it. The store keeps the editable
// copy (description, enabled); the executor lives here. A tool is one
// Definition in one file of a tool package (see services/tools/gitlab).
type Definition struct {
	Name         string
	Title        string
	Description  string
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	Annotations  models.ToolAnnotations
	// Toolset is the toolset the tool belongs to (GitLab's names, see
	// models.Toolset*). The toolsets header accepts exactly the toolsets
	// the definitions name, so a new toolset is a new value here.
	Toolset string
	Edition models.Edition
	// Aliases are other names the tool answers to in tools/call (and the
	// tools header), never listed.
	Aliases []string
	// Unlisted tools are left out of tools/list (and its change
	// notifications) but stay callable by name or alias: GitLab's
	// superseded tools.
	Unlisted bool
	// Unavailable marks an Unlisted tool whose feature glmcp does not
	// have (GitLab lists it only where the feature exists): a call
	// answers isError. It changes nothing else; the catalog snapshot and
	// doc/tools.md's table say "unavailable" instead of "unlisted".
	Unavailable bool
	// Source is the GitLab file the tool's name, toolset, annotations and
	// parameters are taken from (a path in GitLab's repository), recorded
	// in the catalog snapshot and doc/tools.md's table.
	Source string
	// RequiredClientCapabilities names the top-level client capabilities
	// (for example "sampling") a call needs. A 2026-07-28 request whose
	// clientCapabilities lack one is refused with -32021 before Run; Legacy
	// requests carry no per-request capabilities and are not checked.
	RequiredClientCapabilities []string
	// WriteTarget names the arguments that say where a write tool writes,
	// for a tool whose target is not the project or group GitLab's usual
	// argument names point at (id, project_id, group_id, url, full_path).
	// Tool rules (Allow / Ask / Deny) are those of the place written to:
	// with WriteTarget set, the first of its single-target arguments
	// present in a call names it, and the usual names are not read (a
	// tool that reads one place and writes another, as fork_repository
	// does, may instead declare a Target returning the place written to).
	// An argument of a list kind (TargetWorkItems) names more
	// targets, one per element, whatever else is present: a call that
	// writes to several places (link_work_items: the source work item's
	// project and each linked item's) is governed by the strictest rule of
	// the targets the caller can see. Empty: the usual names. See
	// doc/auth.md, "Tool rules and visibility", and doc/tool-rules.md.
	WriteTarget []TargetArg
	// Places finds where a call of the tool writes, for the tool rules
	// (see Places): the tool package's reading of its arguments. Nil: the
	// rules read no place from the arguments (the instance default, or
	// the Target's place).
	Places Places
	// Target, when set, is the object the arguments name and the ability
	// the call needs on it (see Target). The service resolves it once,
	// before the tool rules, which then read its project or group instead
	// of the arguments (WriteTarget's list kinds still add targets), and
	// hands it to Run on Call.Target.
	Target *Target
	Run    Handler
}

// TargetArg is an argument naming the project or group a write tool
// writes to, by id or full path, or an object (or list of objects) whose
// project it is.
type TargetArg struct {
	Name string
	Kind TargetKind
}

// TargetKind is what a TargetArg names.
type TargetKind string

// The kinds of write targets.
const (
	TargetProject TargetKind = "project"
	TargetGroup   TargetKind = "group"
	// TargetVulnerability is a vulnerability id (or global id): the
	// target is the vulnerability's project, when the caller can see the
	// vulnerability.
	TargetVulnerability TargetKind = "vulnerability"
	// TargetURL is a GitLab URL of a project's or group's object
	// (…/group/project/-/work_items/4, …/groups/group/-/epics/2): the
	// target is that project or group, read as for the usual url
	// argument. A URL that names neither is not a target, and the next
	// WriteTarget argument is read.
	TargetURL TargetKind = "url"
	// TargetWorkItems is a list kind: an array of work item ids or global
	// ids (gid://gitlab/WorkItem/<id>), each naming one more target, the
	// work item's project, when the caller can read the work item. A
	// hidden, confidential or missing one names none (the tool answers
	// not found). Bound the array in the input schema (maxItems): each
	// element costs lookups before the tool runs.
	TargetWorkItems TargetKind = "work_items"
	// TargetProjects and TargetGroups are list kinds of global ids
	// (gid://gitlab/Project/<id>, gid://gitlab/Group/<id>), each naming
	// one more target when the caller can see it; anything else names
	// none. Bound the array in the input schema too.
	TargetProjects TargetKind = "projects"
	TargetGroups   TargetKind = "groups"
)

// list reports whether k is a list kind: every element of the argument is
// one more target.
func (k TargetKind) list() bool {
	return k == TargetWorkItems || k == TargetProjects || k == TargetGroups
}

// Call is one invocation.
type Call struct {
	// Name is the name the tool was called by, without the client's prefix:
	// the tool's name or one of its aliases (some aliases answer
	// differently, as get_job_log always returns the log).
	Name      string
	Identity  *models.Identity
	Edition   models.Edition
	Arguments json.RawMessage // a JSON object, validated against the schema
	// Progress reports progress when the client asked for it; never nil.
	Progress func(progress, total float64, message string)
	// Log sends a log message (level: debug, info, notice, warning, error,
	// critical, alert or emergency; logger may be empty; data any JSON
	// value) when the client asked for messages at that level; never nil.
	Log func(level, logger string, data any)
	// ClientCapabilities are the request's declared client capabilities
	// (2026-07-28; nil on Legacy requests, which carry none). See Declares.
	ClientCapabilities map[string]json.RawMessage
	// InputResponses are the client's answers, by key, to the
	// InputRequests of an earlier result of this call (2026-07-28 retries;
	// nil when none). Each value is a JSON object; which result it holds
	// (ElicitResult, CreateMessageResult, ListRootsResult) is the tool's
	// to check.
	InputResponses map[string]json.RawMessage
	// RequestState is the RequestState of this call's previous result,
	// verified by the server (issued to this user, for this tool, not
	// expired, untampered); "" when none.
	RequestState string
	// Lockdown is the request's lockdown switch (doc/security.md): text
	// by users below Developer on projects that are not private is
	// withheld from results.
	Lockdown bool
	// Target is the Definition's Target as resolved for this call (nil
	// when the Definition declares none, or without a user).
	Target *ResolvedTarget

	// parsed is Arguments parsed once, shared with the chain's links,
	// and the tool's own decoded arguments (Args).
	parsed *parsedArgs
}

// Result is a tool's outcome: Text becomes the text content, Structured the
// structuredContent. When Content is set it is the content instead of Text.
//
// A result with InputRequests or RequestState asks the client for input
// instead (2026-07-28 multi round-trip requests): the client answers the
// requests and retries the call with Call.InputResponses and
// Call.RequestState. On Legacy requests such a result becomes an error
// result.
type Result struct {
	Text       string
	Content    []Content
	Structured any
	IsError    bool

	InputRequests map[string]InputRequest
	RequestState  string

	// ErrorClass names what an IsError result reports, for the access log
	// and metrics (never sent): validation, not_found, forbidden,
	// conflict, rule_denied, …; "" on an IsError result is a failure of the
	// tool's own ("tool").
	ErrorClass string
	// Refused marks an IsError result of a policy rather than of the tool:
	// a tool rule denied the call, or its approval was declined or could
	// not be asked for. The tool did not run.
	Refused bool
	// Meta are entries a link adds to the result's _meta (the
	// sanitiser's counts); the caller merges them in, nil adds none.
	Meta map[string]any
}

// CompactJSON is a JSON document that is valid and compact, as
// encoding/json writes it (Result.Structured of a tool that encoded its
// answer itself): the MCP handler writes it as is, where a json.RawMessage
// is scanned and compacted again.
type CompactJSON []byte

// MarshalJSON returns j.
func (j CompactJSON) MarshalJSON() ([]byte, error) {
	if len(j) == 0 {
		return []byte("null"), nil
	}
	return j, nil
}

// ToolError is a failure the model can act on; its message is shown as is.
type ToolError struct{ Message string }

func (e *ToolError) Error() string { return e.Message }

// Errorf returns a *ToolError.
func Errorf(format string, args ...any) error {
	return &ToolError{Message: fmt.Sprintf(format, args...)}
}

// CallerError is a tool failure whose message was written for the
// caller (a tool's own "404 Issue Not Found", "title: must not be blank").
// It wraps one of the models sentinels to give its kind.
type CallerError interface {
	error
	CallerMessage() string
}

// ErrorResult turns err into an IsError result when it is a tool-level
// failure, and returns ok=false when it is a server failure.
//
// A *ToolError's message is shown as is; a CallerError's with the prefix
// of its kind. Any other error of a known kind shows its own text (the
// store's "pipeline 4 is success and cannot be canceled"), unless the
// database driver wrote part of it (a models.DatabaseError, whose text
// can carry SQLSTATE, constraint and table names): that is answered with
// a fixed text for its kind, so no driver text can reach a response.
func ErrorResult(err error) (res *Result, ok bool) {
	var te *ToolError
	if errors.As(err, &te) {
		return &Result{Text: te.Message, IsError: true, ErrorClass: "tool"}, true
	}
	if models.IsStorageFull(err) {
		// Never the system's own text: it names paths.
		return &Result{Text: InsufficientStorageText, IsError: true, ErrorClass: ErrorClassInsufficientStorage}, true
	}
	msg := ""
	if ce := CallerError(nil); errors.As(err, &ce) {
		msg = ce.CallerMessage()
	} else if de := (*models.DatabaseError)(nil); !errors.As(err, &de) {
		msg = err.Error()
	}
	switch {
	case errors.Is(err, models.ErrNotFound):
		return &Result{Text: capitalize(or(msg, "404 Not Found")), IsError: true, ErrorClass: "not_found"}, true
	case errors.Is(err, models.ErrForbidden):
		return &Result{Text: "Forbidden: " + or(WithoutKind(msg, models.ErrForbidden), "you may not do this"), IsError: true, ErrorClass: "forbidden"}, true
	case errors.Is(err, models.ErrInvalidInput):
		return &Result{Text: "Validation error: " + or(WithoutKind(msg, models.ErrInvalidInput), "the data store refused the input; check the arguments"), IsError: true, ErrorClass: "validation"}, true
	case errors.Is(err, models.ErrConflict):
		return &Result{Text: "Conflict: " + or(WithoutKind(msg, models.ErrConflict), "the change conflicts with the current data (it may have been made at the same moment); read it again and retry"), IsError: true, ErrorClass: "conflict"}, true
	}
	return nil, false
}

// InsufficientStorageText is the answer to a write that found a disk full,
// over quota or read-only (models.IsStorageFull); nothing was written.
const InsufficientStorageText = "Insufficient storage: the server has no space left to store this change; nothing was written. Retry later"

// ErrorClassInsufficientStorage is the error class of such an answer in
// the access log and glmcp_storage_errors_total.
const ErrorClassInsufficientStorage = "insufficient_storage"

// WithoutKind drops the text of any of kinds (sentinels such as
// models.ErrInvalidInput) from the end of msg ("… cannot be canceled:
// invalid input"): the result's prefix already says the kind
// ("Validation error: "), so the caller would read it twice. A message
// that is only the sentinel's text stays (the prefix alone would say
// nothing).
func WithoutKind(msg string, kinds ...error) string {
	for _, kind := range kinds {
		if m, ok := strings.CutSuffix(msg, ": "+kind.Error()); ok && m != "" {
			msg = m
		}
	}
	return msg
}

func or(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// Model converts d into its store row.
func (d *Definition) Model() (*models.Tool, error) {
	ann, err := json.Marshal(d.Annotations)
	if err != nil {
		return nil, fmt.Errorf("encode annotations of %q: %w", d.Name, err)
	}
	aliases := models.StringList(d.Aliases)
	if aliases == nil {
		aliases = models.StringList{}
	}
	return &models.Tool{
		Name:         d.Name,
		Title:        d.Title,
		Description:  d.Description,
		InputSchema:  models.JSON(d.InputSchema),
		OutputSchema: models.JSON(d.OutputSchema),
		Annotations:  models.JSON(ann),
		Toolset:      d.Toolset,
		Edition:      d.Edition,
		Enabled:      true,
		Aliases:      aliases,
	}, nil
}
