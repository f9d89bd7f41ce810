// Package auth authenticates API callers: GitLab-style personal access tokens
// (this file set) and, in the jwtauth subpackage, OAuth JWT access tokens.
//
// It knows neither HTTP nor the database driver: it consumes a TokenStore
// and returns a *models.Identity or an *Error whose Kind the middleware
// turns into a 401 or 403 with a WWW-Authenticate challenge.
package auth
