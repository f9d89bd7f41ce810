// Package resources serves MCP resources, prompts and completions over
// GitLab data.
//
// A resource URI is the object's own GitLab web URL under the instance's
// public URL (GLMCP_PUBLIC_URL), so an agent can paste a link it was given:
//
//	{base}/{+project}                              a project (metadata and README)
//	{base}/{+project}/-/issues/{iid}               an issue (also /-/work_items/{iid})
//	{base}/{+project}/-/merge_requests/{iid}       a merge request, with its diff
//	{base}/{+project}/-/blob/{ref}/{+path}         a file at a ref
//	{base}/{+project}/-/jobs/{id}                  a CI job's log
//
// Reads go through the tool service (the Caller) with the caller's own
// scope, so a resource is permission-checked exactly like the tool that
// reads the same object, and a private object reads like a missing one.
// Prompts are built from the same reads. Only resources/list and the
// completions query the store directly, through small keyset-paged queries
// that apply the viewer's read rules in SQL.
//
// A build may serve content beside GitLab's through Options.Extra: the
// glmcp-conformance binary adds the conformance suite's test:// resources
// and test_* prompts (package conformance below this one) that way.
package resources
