// Package access holds GitLab's permission rules as glmcp applies them at
// tool-call time: who may read a project, a confidential issue or an
// internal note, and which role a write needs.
//
// The rules (GitLab's, with glmcp's simplifications):
//
//   - Administrators may do everything.
//   - Public projects are readable by every authenticated active user,
//     internal projects too (glmcp has no external users), private projects
//     by their members (any role) only.
//   - The repository and what derives from it (files, merge requests,
//     pipelines) of a private project needs Reporter: Guests see its
//     issues only.
//   - Creating issues and notes needs Reporter; creating merge requests
//     needs Developer. The project must be readable as well.
//   - A confidential issue is readable by its author, its assignees,
//     members with Reporter or above, and administrators.
//   - An internal note is readable by members with Reporter or above and
//     administrators.
//   - A user who is not active (blocked, deactivated) may do nothing.
//
// Callers pass the user's direct access level in the project (NoAccess for
// a non-member). Anything a caller may not read must be reported exactly
// like something that does not exist.
//
// The package imports only models and the standard library; the store's
// search queries apply the same rules in SQL and are tested against the
// same matrix.
package access
