// Package gitlab is GitLab's MCP tool catalog: one file per tool, named
// after the tool (get_issue.go is get_issue). A tool file holds its tool:
// the Definition method (name, aliases, toolset, annotations, input
// schema), the typed arguments struct, the executor, and helpers only it
// uses; tools.go lists every Definition method, sorted. Files without a
// tool hold what several share (json.go: GitLab's REST entities; schema.go:
// schema fragments; store.go: the store by family and the parts several
// tools' needs share;
// issuables.go, merge_requests.go, work_items.go, notes.go, namespaces.go,
// projects.go, commits.go, …: per-family helpers). Nothing a tool file
// declares is used from another file (layout_test.go), so a tool reads,
// moves and goes away on its own. duo_agent_platform.go is the one file
// with several tools: the five placeholders of a toolset glmcp lacks.
//
// Tools reach the data store through [Families]: one field per family of
// services/store, each an interface of what the tools call on it (declared
// here, consumer side; the store's families satisfy them; FamiliesOf binds
// a *store.Store). A tool is handed only its own need, built at
// registration from those fields: one family's field, or a small struct
// embedding one narrow interface per family it reads (saveNoteStore).
// Tools write through [InTx], whose fn gets the transaction's Families and
// builds its write need from them on its first line, so a failing call
// changes nothing. Permissions are checked with
// services/access; which tools a caller may see or call at all is the tool
// service's (services/tools), never a tool's.
package gitlab
