// Package conformance holds the diagnostic tools the official MCP
// conformance suite calls (the names and behaviour of its reference
// "everything" servers). They are compiled in but registered only when the
// server is started with the conformance fixtures flag, as transient tools
// (never written to the store).
package conformance
