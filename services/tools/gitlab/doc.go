// Package gitlab is GitLab's MCP tool catalog: one file per tool, named
// after the tool (get_issue.go is get_issue). A tool file holds
// everything about its tool: an init function registering its definer, the
// definition (name, aliases, toolset, annotations, input schema), the typed
// arguments struct and the executor. Files without a tool hold what several
// share (json.go: GitLab's REST entities; schema.go: schema fragments;
// store.go: the store interfaces by tool family; issuables.go,
// merge_requests.go, work_items.go: per-family helpers).
//
// Tools reach the data store through [Store], declared here by tool family
// and satisfied by the store's families ([Families]), and write through [InTx] so a
// failing call changes nothing. Permissions are checked with
// services/access; which tools a caller may see or call at all is the tool
// service's (services/tools), never a tool's.
package gitlab
