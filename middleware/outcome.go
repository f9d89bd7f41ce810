package middleware

import (
	"net/http"
	"strconv"
)

// Outcomes of a tools/call, logged as outcome and counted by
// glmcp_tool_calls_total{outcome}: the HTTP status alone cannot tell them
// apart (a tool failure is a 200 result with isError).
const (
	// OutcomeOK: the tool ran and answered (or asked the client for
	// input).
	OutcomeOK = "ok"
	// OutcomeToolError: the tool answered isError (bad arguments, not
	// found, forbidden by a permission, conflict, a failure of its own).
	OutcomeToolError = "tool_error"
	// OutcomeRefused: a policy refused the call before the tool ran: a
	// tool rule (Deny, an approval declined or impossible to ask for), a
	// read-only token, authentication, a rate limit.
	OutcomeRefused = "refused"
	// OutcomeProtocolError: a JSON-RPC error (unknown tool, invalid
	// params, header mismatch, missing capability, internal error, store
	// unavailable).
	OutcomeProtocolError = "protocol_error"
	// OutcomeCanceled: the client went away (closed the connection or
	// the call's event stream) before the answer; nothing was answered.
	// Its error class is "client_closed".
	OutcomeCanceled = "canceled"
)

// ToolOutcome returns the outcome and error class of a tools/call request
// that ended with HTTP status (both "" for any other request): the ones the
// handler recorded, or else what the status and the JSON-RPC error (its
// class, as its writer recorded it) say.
func (f *LogFields) ToolOutcome(status int) (outcome, class string) {
	if f.RPCMethod != "tools/call" {
		return "", ""
	}
	switch {
	case f.Outcome != "":
		return f.Outcome, f.ErrorClass
	case f.AuthError != "":
		return OutcomeRefused, f.AuthError
	case status == http.StatusTooManyRequests:
		return OutcomeRefused, "rate_limited"
	case f.RPCCode != 0:
		return OutcomeProtocolError, f.RPCClass
	case status >= 400:
		return OutcomeProtocolError, "http_" + strconv.Itoa(status)
	}
	return OutcomeOK, ""
}
