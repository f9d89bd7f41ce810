// Package spec holds glmcp's black-box request specs: each test starts the
// real server (package app) on a real database — a fresh PostgreSQL
// database when GLMCP_TEST_DATABASE_URL is set, else an SQLite file — and
// drives it over HTTP on loopback, with raw requests and with real MCP
// clients. Requests are built by one builder (call, client_test.go) and
// every MCP response body is validated against the official JSON schema of
// its protocol revision (testdata/mcp-schema) as it is read. The wire
// rules of both eras are also pinned as golden transcripts
// (testdata/*.txtar, TestGolden, -update to rewrite).
//
// Under CI=true a missing GLMCP_TEST_DATABASE_URL fails the specs instead
// of falling back to SQLite.
package spec
