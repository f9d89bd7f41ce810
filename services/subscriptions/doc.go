// Package subscriptions is the change hub behind MCP subscriptions/listen
// (2026-07-28, basic/patterns/subscriptions): it tells every open listen
// stream that could be affected when an operator enables, disables or edits
// a tool, so the handler can send notifications/tools/list_changed.
//
// It is protocol-free: no HTTP, no JSON-RPC, no gin, no gorm. The handler on
// top turns a received [Event] into a notification and a closed
// [Subscription.C] channel into the graceful final result.
//
// # In one process
//
// A [Hub] holds the open listeners. [Hub.Subscribe] registers one (capped per
// user and in total), [Hub.Publish] fans an [Event] out to those whose
// [Visibility] says the changed tool could be on their list. Delivery is a
// non-blocking send on a channel of capacity 1, or for a listener
// registered with [Hub.SubscribeFunc] a call of its wake function (a
// listen stream moves its connection's read deadline into the past):
// list_changed is idempotent, so a pending signal covers any later ones and
// a slow client never stalls the others. The hub starts no goroutines.
// [Hub.Drained] tells a shutting-down server when every stream has ended.
//
// # Across instances
//
// On PostgreSQL, changes travel through LISTEN/NOTIFY on channel [Channel]
// ("glmcp_catalog") with a tiny JSON payload. A [PGPublisher] sends the
// NOTIFY (from a serving instance or from the CLI process, e.g.
// `glmcp tools disable`), and one [PGListener] per serving instance LISTENs
// on a dedicated pgx connection and feeds its hub. The listener reconnects
// with capped, jittered backoff and, whenever its LISTEN becomes active
// again, publishes a [KindResync] event so that every listener re-lists:
// notifications sent while it was disconnected are lost.
//
// A serving instance on PostgreSQL publishes through [PGPublisher] only: its
// own NOTIFY comes back to its own [PGListener], which is the single path to
// its local hub. Publishing locally as well would notify its listeners twice.
// On the embedded SQLite store there is no NOTIFY; use [LocalPublisher].
//
// This package imports the standard library, models and pgx only.
package subscriptions
