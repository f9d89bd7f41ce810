// Package catalog decides which tools a caller sees in tools/list, in which
// order, and pages through them with opaque cursors.
//
// It holds the rules the tool service (services/tools) applies, and is
// used by nothing else: the three GitLab filter headers (see
// [HeaderEnabledTools], [HeaderEnabledToolsets], [HeaderToolNamePrefix],
// the one definition of their names) parsed into a [Filter] by
// [ParseFilter], the toolsets they may name ([Toolsets], from the tools'
// own toolset fields), the edition rule ([EditionServes]) and paging
// ([PageOf]) over the service's snapshot entries. It is protocol-free: it
// knows neither HTTP nor JSON-RPC. Errors caused by the caller's input (a
// bad header, a bad cursor) wrap [models.ErrInvalidInput].
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
// self-contained and HMAC-signed with the instance secret (internal/cursor,
// the one cursor format of glmcp), and bound to the verb, user, filter,
// edition and read-only state that minted them.
//
// The package imports only the standard library, models and internal/cursor:
// no gin, no gorm.
package catalog
