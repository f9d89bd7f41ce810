// Package app assembles glmcp: configuration, the store environment, the
// services and the HTTP handler, so that cmd/glmcp and the black-box specs
// build the very same server. It is the only package besides cmd that
// knows every other one.
package app
