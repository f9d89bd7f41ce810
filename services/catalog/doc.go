// Package catalog decides which tools a caller sees in tools/list, in which
// order, and pages through them with opaque cursors.
//
// It is protocol-free: it knows neither HTTP nor JSON-RPC. The handler reads
// the three GitLab filter headers (see [HeaderEnabledTools],
// [HeaderEnabledToolsets], [HeaderToolNamePrefix]), turns them into a
// [Filter] with [ParseFilter], and asks a [Lister] for one [Page] of the tool
// definitions it loaded from the store. Errors caused by the caller's input
// (a bad header, a bad cursor) wrap [models.ErrInvalidInput]; the handler
// maps them to JSON-RPC -32602.
//
// Visibility ([Filter.Visible]) combines the route group's edition (the CE
// group sees CE tools, the EE group CE and EE tools), the token's read-only
// state (a read_api token sees only tools annotated readOnlyHint: true), the
// Enabled flag and the filter headers. The headers filter tools/list only;
// tools/call authorisation is not decided here.
//
// Tools are listed in byte order of their names. Cursors are keyset cursors:
// they carry the name of the last tool returned, so a listing resumes
// correctly even when tools are added or removed between pages. They are
// self-contained and HMAC-signed with the instance secret, and bound to the
// verb, filter, edition and read-only state that minted them.
//
// The package imports only the standard library and models: no gin, no gorm.
package catalog
