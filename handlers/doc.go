// Package handlers wires glmcp's HTTP surface: the two MCP route groups, the
// OAuth metadata documents, health checks and metrics. It imports gin but
// never gorm; services reach it through the interfaces of handlers/mcp.
package handlers
