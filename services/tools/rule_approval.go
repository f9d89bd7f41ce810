package tools

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"gitlab.com/glmcp/glmcp/models"
)

// The Ask rule: a person's approval asked through elicitation, and the
// retry that answers it; Allow and Deny beside it (applyRule).

// approvalKey is the inputResponses key of an Ask rule's elicitation, and
// approvalPrefix marks the requestState it seals.
const (
	approvalKey    = "approval"
	approvalPrefix = "glmcp-approval:"
)

// applyRule enforces d on a call of the write tool e. It returns a result
// to send instead of running the tool (deny, a question, a refusal, a
// decline), or nil to run it.
func (s *Service) applyRule(ctx context.Context, req *CallRequest, e *Entry, d ruleDecision) (*Result, error) {
	switch d.rule {
	case models.RuleAllow:
		return nil, nil
	case models.RuleDeny:
		return &Result{IsError: true, Refused: true, ErrorClass: "rule_denied", Text: fmt.Sprintf("The tool %s is not allowed here: %s forbids it. "+
			"An administrator can change the rule with `glmcp tool-rules set`.", e.Tool.Name, d.describe())}, nil
	}
	// Ask.
	if req.RequestState != nil {
		return s.answerApproval(ctx, req, e, d)
	}
	if req.Capabilities == nil || !Declares(req.Capabilities, "elicitation") {
		why := "this request is in a protocol revision without multi round-trip requests (2025-11-25 or older)"
		if req.Capabilities != nil {
			why = "the client did not declare the elicitation capability"
		}
		return &Result{IsError: true, Refused: true, ErrorClass: "approval_unavailable", Text: fmt.Sprintf("The tool %s needs a person's approval before it writes (%s), "+
			"and it cannot be asked for: %s. Nothing was written. Use a client that supports elicitation with protocol "+
			"revision 2026-07-28, or ask an administrator to allow the tool (`glmcp tool-rules set --rule allow`).",
			e.Tool.Name, d.describe(), why)}, nil
	}
	nonce := make([]byte, 18)
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("approval nonce: %w", err)
	}
	return &Result{
		InputRequests: map[string]InputRequest{approvalKey: ElicitInput(approvalMessage(e.Tool.Name, d, req.args().texts()),
			json.RawMessage(`{"type":"object","properties":{}}`))},
		RequestState: approvalPrefix + base64.RawURLEncoding.EncodeToString(nonce),
	}, nil
}

// answerApproval handles the retry of an Ask: the sealed state (already
// opened: user, tool, arguments and expiry checked) is used once, then
// accept runs the tool and decline or cancel writes nothing.
func (s *Service) answerApproval(ctx context.Context, req *CallRequest, e *Entry, d ruleDecision) (*Result, error) {
	state, err := s.states.open(*req.RequestState, userOf(req.Scope), e.Tool.Name, req.Arguments)
	nonce, isApproval := strings.CutPrefix(state, approvalPrefix)
	if err != nil || !isApproval {
		return nil, fmt.Errorf("requestState failed verification: it was altered, has expired, or was issued for another user, tool or arguments: %w", models.ErrInvalidInput)
	}
	var answer struct {
		Action string `json:"action"`
	}
	if json.Unmarshal(req.InputResponses[approvalKey], &answer) != nil ||
		(answer.Action != "accept" && answer.Action != "decline" && answer.Action != "cancel") {
		return nil, fmt.Errorf("inputResponses.%s: want the elicitation result (action accept, decline or cancel): %w", approvalKey, models.ErrInvalidInput)
	}
	err = s.opts.Rules.UseApproval(ctx, &models.UsedApproval{Nonce: nonce, UserID: userOf(req.Scope), Tool: e.Tool.Name, Action: answer.Action})
	if errors.Is(err, models.ErrConflict) {
		return nil, fmt.Errorf("requestState was already used: an approval answers one call; call the tool again to be asked again: %w", models.ErrInvalidInput)
	}
	if err != nil {
		return nil, err
	}
	if answer.Action != "accept" {
		return &Result{IsError: true, Refused: true, ErrorClass: "approval_declined", Text: fmt.Sprintf("The write was not approved (%s): %s did nothing.", answer.Action, e.Tool.Name)}, nil
	}
	// Approved: the tool runs without the approval's state and answers.
	req.RequestState, req.InputResponses = nil, nil
	return nil, nil
}

// approvalMessage shows the person exactly what will be written: a holds
// each argument as the client wrote it.
func approvalMessage(tool string, d ruleDecision, a map[string]json.RawMessage) string {
	var b strings.Builder
	target := d.target
	if target == "" {
		target = "(no project or group named)"
	}
	fmt.Fprintf(&b, "Approve a write by %s on %s? (%s asks for approval.)\n", tool, target, d.describe())
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := string(bytes.TrimSpace(a[k]))
		var s string
		if json.Unmarshal(a[k], &s) == nil {
			v = s
		}
		if utf8.RuneCountInString(v) > 500 {
			v = string([]rune(v)[:500]) + "…"
		}
		fmt.Fprintf(&b, "\n%s: %s", k, v)
	}
	return b.String()
}
