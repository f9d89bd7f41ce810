// Package ratelimit limits request rates per key (a user and route group,
// or a client address) with a token bucket, and refuses over-limit requests
// with an [Exceeded], which the handlers layer answers with 429 and a
// JSON-RPC error.
//
// A [Limit] of N requests per window W gives every key a bucket of N tokens
// that refills continuously at N/W: a burst of N is allowed, then one
// request every W/N. The bucket is kept as a GCRA "theoretical arrival
// time", one int64 per key, with exact integer arithmetic. A bucket that has
// refilled completely carries no information and is dropped by a periodic
// sweep, so memory tracks the number of recently active keys; a hard cap
// (100,000 keys by default) evicts the buckets closest to full first.
//
// [Limits] is a list of windows ("600/60s,5000/1h", [ParseLimits]), every
// one enforced: each window has its own bucket per key (the key and the
// window's length), a request passes only when all have room and is then
// counted in all, in one atomic step. The headers and a 429 name the window
// closest to running out ([Decision].Limit).
//
// Limits are kept in process memory unless the limiter has a [Shared]
// store ([Redis]): then every instance of a deployment counts each key in
// Redis, with the same algorithm on Redis's clock, and the in-process
// buckets count only while Redis does not answer. A check may name its own
// limit ([Limiter.Take], [MiddlewareLimits]): a user's own limit.
//
// [Middleware] sets on every limited response (and [Limiter.SetHeaders] on
// the answers of a budget checked elsewhere: the failed authentications)
//
//	RateLimit-Limit: 600
//	RateLimit-Remaining: 599
//	RateLimit-Reset: 1          (seconds until the bucket is full again)
//	RateLimit-Policy: 600;w=60
//
// (draft-ietf-httpapi-ratelimit-headers, the field-per-value form). An
// over-limit request is answered (by the handlers layer, from the
// [Exceeded] it is refused with) 429 with Retry-After (whole seconds, at
// least 1) and the body
//
//	{"jsonrpc":"2.0","error":{"code":-31029,
//	 "message":"Rate limit exceeded, retry in 1 seconds",
//	 "data":{"retryAfterSeconds":1,"limit":600,"windowSeconds":60}}}
//
// The code (jsonrpc.CodeRateLimited, -31029) lies outside the JSON-RPC
// reserved range -32768..-32000, which MCP keeps for the protocol. The request's id
// is not known yet at this point, so the id member is left out (as in
// glmcp's other pre-dispatch errors; the 2026-07-28 schema allows no null
// id).
package ratelimit
