package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

// CallRequest is one tools/call.
type CallRequest struct {
	models.Scope
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
	// Progress and Log are Call.Progress and Call.Log (nil: dropped);
	// Transport.Plumb may set them.
	Progress func(progress, total float64, message string)
	Log      func(level, logger string, data any)
	// Transport is what the caller's protocol adds to the call (nil:
	// nothing); see the chain in chain.go.
	Transport Transport
	// Caller is the client's request the call came in (handlers/mcp's
	// tools/call), for the audit link; nil for a call made on the
	// server's own behalf (resources/read reading through a tool), which
	// is not audited.
	Caller *Caller
	// Refused is the transport's refusal of a tools/call it could not
	// read (params that do not fit, no name): the tool link ends the call
	// with it, so the links before it see every tools/call (an audit
	// event for each).
	Refused error

	// parsed is Arguments parsed once for the whole chain (see
	// parsedArgs); the links reach it through args.
	parsed *parsedArgs
}

// args returns r's arguments parsed, parsing them on first use (again only
// when Arguments was replaced by other bytes since).
func (r *CallRequest) args() *parsedArgs {
	if r.parsed == nil || !sameBytes(r.parsed.raw, r.Arguments) {
		r.parsed = parseArgs(r.Arguments)
	}
	return r.parsed
}

// args returns c's arguments parsed: the chain's parse, or one made on
// first use for a Call built without the chain (tests, benchmarks).
func (c *Call) args() *parsedArgs {
	if c.parsed == nil || !sameBytes(c.parsed.raw, c.Arguments) {
		c.parsed = parseArgs(c.Arguments)
	}
	return c.parsed
}

// sameBytes reports whether a and b are the same bytes in memory (the
// same slice), which says a parse of a is one of b without reading them.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// Caller is what the audit link records of the client's request.
type Caller struct {
	ClientName, ClientVersion string
	// RequestID is the request's correlation id (X-Request-Id).
	RequestID string
}

// CallJSON calls the tool name with args (a JSON object) as sc's caller,
// for a reader that wants only the tool's content (services/resources):
// the structured content as JSON, or else the text as a JSON string. ok is
// false, with no error, when there is no content to give: the scope has no
// such tool, the arguments are invalid, or the tool failed or asked for
// input. An error is a server failure.
func (s *Service) CallJSON(ctx context.Context, sc models.Scope, name string, args json.RawMessage) (out json.RawMessage, ok bool, err error) {
	res, err := s.Call(ctx, CallRequest{Scope: sc, Name: name, Arguments: args})
	var unknown *UnknownToolError
	switch {
	case errors.As(err, &unknown), errors.Is(err, models.ErrInvalidInput):
		return nil, false, nil
	case err != nil:
		return nil, false, err
	case res.IsError || len(res.InputRequests) > 0 || res.RequestState != "":
		return nil, false, nil
	}
	if res.Structured != nil {
		out, err = json.Marshal(res.Structured)
	} else {
		out, err = json.Marshal(res.Text)
	}
	return out, err == nil, err
}

// Run validates call.Arguments (a JSON object: the chain's tool link
// checks it) against e's input schema and executes it. Validation failures
// and tool-level failures come back as IsError results. Callers other
// than Service.Call (tests, benchmarks) skip the rest of the chain.
func (e *Entry) Run(ctx context.Context, call *Call) (*Result, error) {
	if res := e.check(call.args()); res != nil {
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
// struct with json tags), by Args. The arguments were validated against
// the input schema before; a value the schema admits but A cannot hold is
// a validation error result.
func Typed[A any](run func(ctx context.Context, call *Call, args A) (*Result, error)) Handler {
	return func(ctx context.Context, call *Call) (*Result, error) {
		args, err := Args[A](call)
		if err != nil {
			return nil, err
		}
		return run(ctx, call, args)
	}
}

// Args returns call's arguments decoded into A, decoding them once per
// call: the Target's resolver of a tool (its namer) and the tool's run
// (Typed) ask for the same A and share the one value, so no argument is
// decoded twice. The value is shared, not copied: neither may change what
// its slices, maps or pointers reach. Asking for another type decodes
// again (and keeps that value instead).
func Args[A any](call *Call) (A, error) {
	p := call.args()
	if a, ok := p.typed.(A); ok {
		return a, p.typedErr
	}
	var a A
	err := DecodeArgs(call.Arguments, &a)
	p.typed, p.typedErr = a, err
	return a, err
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
func userOf(sc models.Scope) int64 {
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

// secretRefusal is the result of a write refused by secret push
// protection: the rules and places found, never the secret.
func secretRefusal(tool string, found []string) *Result {
	return &Result{IsError: true, Refused: true, ErrorClass: "secret_detected", Text: fmt.Sprintf(
		"Secret push protection: %s was refused and nothing was written: the arguments hold a secret (%s). "+
			"Remove it (keep secrets in CI/CD variables or a secrets manager) and call again.",
		tool, strings.Join(found, "; "))}
}
