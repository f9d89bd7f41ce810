package tools

import (
	"strings"
)

// UnknownToolError is a tools/call of a name that is no tool for the
// caller: none by that name or alias, not served by the route group's
// edition, or missing the caller's name prefix.
type UnknownToolError struct {
	Name string // as the client sent it
}

func (e *UnknownToolError) Error() string { return "unknown tool " + e.Name }

// MissingCapabilityError is a call that needs client capabilities the
// request did not declare.
type MissingCapabilityError struct {
	Tool string
	// What the tool needs them for: "" (to run at all) or "input by ".
	What string
	// Missing are the undeclared capabilities; Required all the tool needs.
	Missing, Required []string
}

func (e *MissingCapabilityError) Error() string {
	return "Missing required client capability: the tool " + e.Tool + " needs " + e.What +
		strings.Join(e.Missing, ", ") + ", which the request's clientCapabilities do not declare"
}

// ReadOnlyError is a call of a tool that writes data with a read-only
// (read_api) token: the caller needs a token with more scope.
type ReadOnlyError struct {
	Tool string
}

func (e *ReadOnlyError) Error() string {
	return "the tool " + e.Tool + " writes data and the token is read-only"
}
