package jsonrpc

import "testing"

// Ensure every error is named for the access log and the metrics by its
// code, and a -32603 by its status: the names the tool-call outcomes and
// dashboards use.
func TestErrorClass(t *testing.T) {
	t.Parallel()
	tests := []struct {
		e    *Error
		era  Era
		want string
	}{
		{parseError(), EraUnknown, "parse_error"},
		{InvalidRequest("bad"), EraUnknown, "invalid_request"},
		{BodyTooLarge(10), EraUnknown, "invalid_request"},
		{Forbidden("Forbidden: invalid Origin header"), EraUnknown, "invalid_request"},
		{MethodNotFound("x"), EraLegacy, "method_not_found"},
		{InvalidParams("x"), EraLegacy, "invalid_params"},
		{InvalidParams("x"), EraModern, "invalid_params"},
		{Internal(), EraUnknown, "internal"},
		{StoreUnavailable(), EraModern, "store_unavailable"},
		{NewError(CodeHeaderMismatch, "x", nil), EraModern, "header_mismatch"},
		{NewError(CodeMissingRequiredClientCapability, "x", nil), EraLegacy, "missing_capability"},
		{NewError(CodeUnsupportedProtocolVersion, "x", nil), EraModern, "unsupported_version"},
		{RateLimited("x", 1, nil), EraUnknown, "rpc_-31029"},
		{Unavailable(CodeTooManySubscriptions, "x"), EraModern, "rpc_-31001"},
	}
	for _, tt := range tests {
		if got := tt.e.Class(tt.era); got != tt.want {
			t.Errorf("%d (%q, era %d): class %q, want %q", tt.e.Code, tt.e.Message, tt.era, got, tt.want)
		}
	}
}
