// Package spec holds glmcp's black-box request specs: each test starts the
// real server (package app) on a real database — a fresh PostgreSQL
// database when GLMCP_TEST_DATABASE_URL is set, else an SQLite file — and
// drives it over HTTP on loopback, with raw requests and with real MCP
// clients. Every MCP response body is validated against the official JSON
// schema of its protocol revision (testdata/mcp-schema).
//
// Under CI=true a missing GLMCP_TEST_DATABASE_URL fails the specs instead
// of falling back to SQLite.
package spec
