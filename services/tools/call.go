package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/catalog"
)

// CallRequest is one tools/call.
type CallRequest struct {
	Scope
	// Name is the name the client called, prefix included.
	Name string
	// Arguments is the arguments member as sent (absent or null: {}).
	Arguments json.RawMessage
	// Capabilities are the request's declared client capabilities; nil
	// when the protocol revision carries none per request (Legacy). Then
	// no capability is checked and a tool asking for input gets an error
	// result instead.
	Capabilities map[string]json.RawMessage
	// InputResponses and RequestState are a retry's answers to an
	// input_required result (RequestState as the client got it, sealed;
	// nil when absent).
	InputResponses map[string]json.RawMessage
	RequestState   *string
	// Check, when set, runs on the resolved tool before the service's own
	// checks: the transport's own rules (mirrored headers, log level, the
	// shape of the retry fields). It may fill InputResponses and
	// RequestState.
	Check func(e *Entry, req *CallRequest) error
	// Progress and Log are Call.Progress and Call.Log (nil: dropped).
	Progress func(progress, total float64, message string)
	Log      func(level, logger string, data any)
}

// Call runs one tools/call for the scope, in this order: arguments must be
// an object (ErrInvalidInput), the headers must parse (ErrInvalidInput),
// the name (prefix stripped, alias resolved) must name a tool the edition
// serves (*UnknownToolError), req.Check, the tool's required client
// capabilities (*MissingCapabilityError), a read-only token may call only
// read-only tools (*ReadOnlyError), a requestState must open
// (ErrInvalidInput), the arguments must validate, the Definition's Target
// is resolved (once: the rules and the tool read it), the tool rules of a
// write tool; then the tool runs. Tool failures are IsError results.
//
// A result asking for input carries its InputRequests and the sealed
// RequestState for the client; on a request without per-request
// capabilities it is an error result saying so.
func (s *Service) Call(ctx context.Context, req CallRequest) (*Result, error) {
	if a := bytes.TrimSpace(req.Arguments); len(a) == 0 || bytes.Equal(a, []byte("null")) {
		req.Arguments = json.RawMessage(`{}`)
	} else if a[0] != '{' {
		return nil, fmt.Errorf("arguments must be an object: %w", models.ErrInvalidInput)
	}
	f, err := s.filter(req.Scope)
	if err != nil {
		return nil, err
	}
	// With a prefix header, only prefixed names exist for this client.
	name, known := catalog.StripPrefix(f.Prefix(), req.Name)
	snap, err := s.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	var e *Entry
	if known {
		e, known = snap.Lookup(name)
	}
	if !known || !catalog.EditionServes(req.Edition, e.Tool.Edition) {
		return nil, &UnknownToolError{Name: req.Name}
	}
	if req.Check != nil {
		if err := req.Check(e, &req); err != nil {
			return nil, err
		}
	}
	if req.Capabilities != nil && e.Def != nil {
		if err := missingCapabilities(e.Tool.Name, "", req.Capabilities, e.Def.RequiredClientCapabilities); err != nil {
			return nil, err
		}
	}
	if req.readOnly() && !e.ReadOnly() {
		return nil, &ReadOnlyError{Tool: e.Tool.Name}
	}
	// A requestState that fails verification is a protocol error, whatever
	// the arguments it comes with.
	var state string
	if req.RequestState != nil {
		if state, err = s.states.open(*req.RequestState, userOf(req.Scope), e.Tool.Name, req.Arguments); err != nil {
			return nil, fmt.Errorf("requestState failed verification: it was altered, has expired, or was issued for another user, tool or arguments: %w", models.ErrInvalidInput)
		}
	}
	// Arguments are checked before the rules, so a rule never looks up a
	// project named by text the store cannot hold.
	if res := e.check(req.Arguments); res != nil {
		return res, nil
	}
	call := &Call{Name: name, Identity: req.Identity, Edition: req.Edition, Arguments: req.Arguments, RequestState: state,
		Progress: req.Progress, Log: req.Log, ClientCapabilities: req.Capabilities, InputResponses: req.InputResponses}
	// The Definition's Target, resolved once: the rules and the tool both
	// read this resolution.
	if err := e.resolveTarget(ctx, call); err != nil {
		return nil, err
	}
	// Tool rules (Allow / Ask / Deny) govern write tools, here only.
	if s.opts.Rules != nil && !e.ReadOnly() && userOf(req.Scope) != 0 {
		d, err := s.decideRule(ctx, req.Scope, e, req.Arguments, call.Target)
		if err != nil {
			return nil, err
		}
		res, err := s.applyRule(ctx, &req, e, d)
		if err != nil {
			return nil, err
		}
		if res != nil && len(res.InputRequests) > 0 {
			return s.askInput(req, e, res)
		}
		if res != nil {
			return res, nil
		}
	}
	res, err := e.execute(ctx, call)
	if err != nil || (len(res.InputRequests) == 0 && res.RequestState == "") {
		return res, err
	}
	return s.askInput(req, e, res)
}

// Run validates call.Arguments (a JSON object: Service.Call checks it)
// against e's input schema and executes it. Validation failures and
// tool-level failures come back as IsError results. Callers other than
// Service.Call (tests, benchmarks) skip the scope rules.
func (e *Entry) Run(ctx context.Context, call *Call) (*Result, error) {
	if res := e.check(call.Arguments); res != nil {
		return res, nil
	}
	return e.execute(ctx, call)
}

// execute runs e on arguments check has passed (resolving its Target
// first when the caller has not).
func (e *Entry) execute(ctx context.Context, call *Call) (*Result, error) {
	if err := e.resolveTarget(ctx, call); err != nil {
		return nil, fmt.Errorf("run tool %q: %w", e.Tool.Name, err)
	}
	if call.Progress == nil {
		call.Progress = func(float64, float64, string) {}
	}
	if call.Log == nil {
		call.Log = func(string, string, any) {}
	}
	res, err := e.Def.Run(ctx, call)
	if err != nil {
		if r, ok := ErrorResult(err); ok {
			return r, nil
		}
		return nil, fmt.Errorf("run tool %q: %w", e.Tool.Name, err)
	}
	return res, nil
}

// Handler executes one call. It returns a *Result (possibly IsError) for
// every outcome the caller can act on, and a Go error only when the server
// failed; errors wrapping models.ErrNotFound, ErrForbidden, ErrInvalidInput
// or ErrConflict (or a *ToolError) are turned into IsError results.
type Handler func(ctx context.Context, call *Call) (*Result, error)

// Typed adapts a tool function taking its arguments decoded into A (a
// struct with json tags). The arguments were validated against the input
// schema before; a value the schema admits but A cannot hold is a
// validation error result.
func Typed[A any](run func(ctx context.Context, call *Call, args A) (*Result, error)) Handler {
	return func(ctx context.Context, call *Call) (*Result, error) {
		var args A
		if err := DecodeArgs(call.Arguments, &args); err != nil {
			return nil, err
		}
		return run(ctx, call, args)
	}
}

// DecodeArgs unmarshals validated arguments into dst; a failure wraps
// models.ErrInvalidInput (a "Validation error: …" result).
func DecodeArgs(raw json.RawMessage, dst any) error {
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(dst); err != nil {
		return &ToolError{Message: "Validation error: " + strings.TrimPrefix(err.Error(), "json: ")}
	}
	return nil
}

// askInput finishes a result that asks the client for input: every request
// must be one the client declared the capability for, and the tool's state
// is sealed to this user, tool and arguments.
func (s *Service) askInput(req CallRequest, e *Entry, res *Result) (*Result, error) {
	keys := make([]string, 0, len(res.InputRequests))
	for k := range res.InputRequests {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var methods, needed []string
	for _, k := range keys {
		m := res.InputRequests[k].Method
		c := InputCapability(m)
		if c == "" {
			return nil, fmt.Errorf("tool %q asked for input by unknown method %q", e.Tool.Name, m)
		}
		if !slices.Contains(methods, m) {
			methods = append(methods, m)
		}
		if !slices.Contains(needed, c) {
			needed = append(needed, c)
		}
	}
	if req.Capabilities == nil {
		return &Result{IsError: true, ErrorClass: "input_unsupported", Text: "The tool " + e.Tool.Name + " needs input from the client (" +
			strings.Join(methods, ", ") + "), which takes protocol revision 2026-07-28 (multi round-trip requests)."}, nil
	}
	if err := missingCapabilities(e.Tool.Name, "input by ", req.Capabilities, needed); err != nil {
		return nil, err
	}
	out := *res
	if res.RequestState != "" {
		sealed, err := s.states.seal(userOf(req.Scope), e.Tool.Name, req.Arguments, res.RequestState)
		if err != nil {
			return nil, err
		}
		out.RequestState = sealed
	}
	return &out, nil
}

// userOf is the principal a requestState is bound to.
func userOf(sc Scope) int64 {
	if sc.Identity != nil && sc.Identity.User != nil {
		return sc.Identity.User.ID
	}
	return 0
}

// Declares reports whether caps declare the client capability name (as an
// object). It is the one reading of "the client declared capability X".
func Declares(caps map[string]json.RawMessage, name string) bool {
	v := bytes.TrimSpace(caps[name])
	return len(v) > 0 && v[0] == '{'
}

// missingCapabilities returns a *MissingCapabilityError when caps lack one
// of required; what says what the tool needs them for.
func missingCapabilities(tool, what string, caps map[string]json.RawMessage, required []string) error {
	var missing []string
	for _, c := range required {
		if !Declares(caps, c) && !slices.Contains(missing, c) {
			missing = append(missing, c)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return &MissingCapabilityError{Tool: tool, What: what, Missing: missing, Required: required}
}
