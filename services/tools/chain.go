package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/catalog"
)

// The tools/call chain. A call goes down these links, top to bottom, each
// a small named function that does its part and then calls inv.Next, or
// returns to end the call; what the handler returns comes back up through
// the same links. The caller (handlers/mcp) has authenticated the request
// before and renders the result after. doc/architecture.md lists the same
// chain, and TestCallChain_shape checks both.
//
//	(Options.Outer)  links that see every call and how it ended, refusals
//	                 included: audit, an event per call (services/audit)
//	tool             a call the transport refused ends here with its
//	                 refusal; the tool the call names: arguments an object, filter
//	                 headers, prefix, alias, edition (else an unknown tool)
//	transport        the transport's own rules on that tool
//	                 (Transport.CheckTool: mirrored Mcp-Param headers, the
//	                 log level, the retry fields)
//	capabilities     the client capabilities the tool needs; a read-only
//	                 token calls read-only tools only
//	state            a retry's requestState must open
//	arguments        validated once against the input schema; the Call the
//	                 handler gets is built here
//	secrets          a write holding a secret is refused before anything
//	                 is looked up, asked or written (Options.SecretScan)
//	target           the Definition's Target, resolved once (lookup and
//	                 access): the rules and the handler read it
//	rules            Allow / Ask / Deny for a write tool
//	(Options.Wrappers) cross-cutting links around the handler: sanitize,
//	                 the result's user-written text cleaned
//	                 (services/safety/sanitize)
//	input            a result asking for input is checked and sealed
//	plumbing         progress and log messages (Transport.Plumb)
//	handler          the tool's Definition.Run; failures the caller can
//	                 act on become isError results
func (s *Service) links() []Link {
	chain := append([]Link(nil), s.opts.Outer...)
	chain = append(chain, []Link{
		{"tool", s.findTool},
		{"transport", transportRules},
		{"capabilities", checkCapabilities},
		{"state", s.openState},
		{"arguments", checkArguments},
		{"secrets", s.scanSecrets},
		{"target", findTarget},
		{"rules", s.applyRules},
	}...)
	chain = append(chain, s.opts.Wrappers...)
	return append(chain,
		Link{"input", s.sealInput},
		Link{"plumbing", plumb},
		Link{"handler", runHandler},
	)
}

// Link is one named step of the tools/call chain.
type Link struct {
	Name string
	// Run does the link's part of inv and calls inv.Next to go on, or
	// returns a result or an error to end the call there.
	Run func(ctx context.Context, inv *Invocation) (*Result, error)
}

// Chain returns the names of the links of the tools/call chain, in order.
func (s *Service) Chain() []string {
	names := make([]string, len(s.chain))
	for i, l := range s.chain {
		names[i] = l.Name
	}
	return names
}

// Transport is what the caller's protocol adds to a call at its two
// places in the chain (handlers/mcp's exchange); nil adds nothing.
type Transport interface {
	// CheckTool applies the transport's own rules to the tool the call
	// names, before the service's: it may set req.InputResponses and
	// req.RequestState (a retry's fields). An error ends the call.
	CheckTool(e *Entry, req *CallRequest) error
	// Plumb sets req.Progress and req.Log when the client asked for
	// progress or log messages.
	Plumb(req *CallRequest)
}

// Invocation is one tools/call on its way down the chain: the request,
// and what each link found for the next.
type Invocation struct {
	Request CallRequest
	// Entry is the tool called, aliases resolved (the tool link).
	Entry *Entry
	// Call is what the handler gets (the arguments link builds it).
	Call *Call
	// state is the opened requestState ("" when none).
	state string
	// name is the called name without the client's prefix.
	name  string
	chain []Link
	pos   int
}

// Next runs the rest of the chain.
func (inv *Invocation) Next(ctx context.Context) (*Result, error) {
	if inv.pos >= len(inv.chain) {
		return nil, errors.New("tools: the call chain ended without a handler")
	}
	l := inv.chain[inv.pos]
	inv.pos++
	return l.Run(ctx, inv)
}

// Call runs one tools/call down the chain. Tool failures are IsError
// results; a refusal the caller translates (an unknown tool, a read-only
// token calling a write tool, a bad requestState, …) is an error, as is a
// server failure.
//
// A result asking for input carries its InputRequests and the sealed
// RequestState for the client; on a request without per-request
// capabilities it is an error result saying so.
func (s *Service) Call(ctx context.Context, req CallRequest) (*Result, error) {
	inv := &Invocation{Request: req, chain: s.chain}
	return inv.Next(ctx)
}

// findTool is the tool link: a call the transport refused ends with its
// refusal (CallRequest.Refused); the arguments must be an object
// (ErrInvalidInput), the headers must parse (ErrInvalidInput), the name
// (prefix stripped, alias resolved) must name a tool the edition serves
// (*UnknownToolError).
func (s *Service) findTool(ctx context.Context, inv *Invocation) (*Result, error) {
	req := &inv.Request
	if req.Refused != nil {
		return nil, req.Refused
	}
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
	// Read-only mode (doc/security.md): a write tool does not exist for
	// the caller, so it gets GitLab's unknown-tool answer (a read_api
	// token's step-up refusal stays in the capabilities link).
	if req.ReadOnlyMode && !e.ReadOnly() {
		return nil, &UnknownToolError{Name: req.Name}
	}
	inv.Entry, inv.name = e, name
	return inv.Next(ctx)
}

// transportRules is the transport link: Transport.CheckTool.
func transportRules(ctx context.Context, inv *Invocation) (*Result, error) {
	if t := inv.Request.Transport; t != nil {
		if err := t.CheckTool(inv.Entry, &inv.Request); err != nil {
			return nil, err
		}
	}
	return inv.Next(ctx)
}

// checkCapabilities is the capabilities link: the tool's required client
// capabilities (*MissingCapabilityError), and a read-only token may call
// only read-only tools (*ReadOnlyError).
func checkCapabilities(ctx context.Context, inv *Invocation) (*Result, error) {
	req, e := &inv.Request, inv.Entry
	if req.Capabilities != nil && e.Def != nil {
		if err := missingCapabilities(e.Tool.Name, "", req.Capabilities, e.Def.RequiredClientCapabilities); err != nil {
			return nil, err
		}
	}
	if req.ReadOnly() && !e.ReadOnly() {
		return nil, &ReadOnlyError{Tool: e.Tool.Name}
	}
	return inv.Next(ctx)
}

// openState is the state link: a requestState that fails verification is
// a protocol error, whatever the arguments it comes with.
func (s *Service) openState(ctx context.Context, inv *Invocation) (*Result, error) {
	req := &inv.Request
	if req.RequestState != nil {
		var err error
		if inv.state, err = s.states.open(*req.RequestState, userOf(req.Scope), inv.Entry.Tool.Name, req.Arguments); err != nil {
			return nil, fmt.Errorf("requestState failed verification: it was altered, has expired, or was issued for another user, tool or arguments: %w", models.ErrInvalidInput)
		}
	}
	return inv.Next(ctx)
}

// checkArguments is the arguments link: they are checked before the
// target and the rules, so no lookup reads text the store cannot hold.
func checkArguments(ctx context.Context, inv *Invocation) (*Result, error) {
	req := &inv.Request
	if res := inv.Entry.check(req.args()); res != nil {
		return res, nil
	}
	inv.Call = &Call{Name: inv.name, Identity: req.Identity, Edition: req.Edition, Arguments: req.Arguments, RequestState: inv.state,
		ClientCapabilities: req.Capabilities, InputResponses: req.InputResponses, Lockdown: req.Lockdown, parsed: req.args()}
	return inv.Next(ctx)
}

// scanSecrets is the secrets link, secret push protection
// (doc/security.md): a write tool's arguments holding a secret end the
// call with a refusal naming the rule and where, never the secret, before
// the rules ask anyone or the tool writes anything.
func (s *Service) scanSecrets(ctx context.Context, inv *Invocation) (*Result, error) {
	if s.opts.SecretScan != nil && !inv.Entry.ReadOnly() {
		if found := s.opts.SecretScan(inv.Request.args().value); len(found) > 0 {
			return secretRefusal(inv.Entry.Tool.Name, found), nil
		}
	}
	return inv.Next(ctx)
}

// findTarget is the target link: the Definition's Target, resolved
// once; the rules and the handler both read this resolution.
func findTarget(ctx context.Context, inv *Invocation) (*Result, error) {
	if err := inv.Entry.resolveTarget(ctx, inv.Call); err != nil {
		return nil, err
	}
	return inv.Next(ctx)
}

// applyRules is the rules link: tool rules (Allow / Ask / Deny) govern
// write tools, here only. A Deny, a question or a declined approval ends
// the call.
func (s *Service) applyRules(ctx context.Context, inv *Invocation) (*Result, error) {
	req, e := &inv.Request, inv.Entry
	if s.opts.Rules == nil || e.ReadOnly() || userOf(req.Scope) == 0 {
		return inv.Next(ctx)
	}
	d, err := s.decideRule(ctx, req.Scope, e, inv.Call, inv.Call.Target)
	if err != nil {
		return nil, err
	}
	res, err := s.applyRule(ctx, req, e, d)
	switch {
	case err != nil:
		return nil, err
	case res != nil && len(res.InputRequests) > 0:
		return s.askInput(*req, e, res)
	case res != nil:
		return res, nil
	}
	return inv.Next(ctx)
}

// sealInput is the input link: a result of the handler that asks the
// client for input is checked and its state sealed (askInput).
func (s *Service) sealInput(ctx context.Context, inv *Invocation) (*Result, error) {
	res, err := inv.Next(ctx)
	if err != nil || (len(res.InputRequests) == 0 && res.RequestState == "") {
		return res, err
	}
	return s.askInput(inv.Request, inv.Entry, res)
}

// plumb is the plumbing link: progress and log messages reach the client
// when it asked for them (Transport.Plumb), and go nowhere otherwise.
func plumb(ctx context.Context, inv *Invocation) (*Result, error) {
	req := &inv.Request
	if t := req.Transport; t != nil {
		t.Plumb(req)
	}
	inv.Call.Progress, inv.Call.Log = req.Progress, req.Log
	return inv.Next(ctx)
}

// runHandler is the handler link: Entry.execute.
func runHandler(ctx context.Context, inv *Invocation) (*Result, error) {
	return inv.Entry.execute(ctx, inv.Call)
}
