package middleware

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gin-gonic/gin"

	"gitlab.com/glmcp/glmcp/services/auth"
)

// GroupAuth is one route group's path and authentication, for
// ExplainCredential.
type GroupAuth struct {
	Path string
	Auth AuthConfig
}

// ExplainCredential returns what the credential of a request would get
// from each of groups (the CE group first), in words a user can act on;
// "" when the request carries no credential.
//
// It serves a server without OAuth sign-in: an MCP client whose token was
// refused with 401 goes looking for an authorization server and ends up
// trying to register itself, and that refusal is all it prints. The
// clients send their configured headers along, so the registration
// answer can say what is wrong with the token. A credential that fails
// authentication spends one of the address's failed authentications
// exactly as at the endpoint, and a spent budget is reported instead of
// looking the token up, so this is no way around the budget.
func ExplainCredential(groups []GroupAuth) func(*gin.Context) string {
	return func(c *gin.Context) string {
		if len(groups) == 0 {
			return ""
		}
		cred := CredentialOf(c.Request)
		if cred.Kind == NoCredential {
			return ""
		}
		first := groups[0].Auth
		failKey := "authfail:" + c.ClientIP()
		if blocked, retry := first.Failures.Blocked(failKey); blocked {
			return fmt.Sprintf("Too many failed authentications from this address; retry in %d seconds with a valid token.",
				max(1, int(retry.Seconds()+0.999)))
		}
		if cred.Kind == RefusedCredential {
			first.Failures.Allow(failKey)
			return refusedReason(cred)
		}
		ctx := c.Request.Context()
		f := Fields(ctx)
		var refusals []string
		accepted := 0
		for i, g := range groups {
			_, err := g.Auth.verify(ctx, cred.Token)
			var ae *auth.Error
			switch {
			case err == nil:
				accepted++
				continue
			case !errors.As(err, &ae):
				return "The token could not be checked just now (the server's store did not answer); retry in a moment."
			case ae.Kind == auth.Unauthenticated || (ae.Kind == auth.UserForbidden && ae.Reason != seatReason):
				// The same for every group: the token or its user.
				if ae.Kind == auth.Unauthenticated && i == 0 {
					first.Failures.Allow(failKey)
				}
				f.AuthError, f.Reason = authErrorName(ae.Kind), ae.Reason
				return ae.Reason
			}
			f.AuthError, f.Reason = authErrorName(ae.Kind), ae.Reason
			refusals = append(refusals, g.Path+": "+ae.Reason)
		}
		if accepted == len(groups) {
			paths := make([]string, len(groups))
			for i, g := range groups {
				paths[i] = g.Path
			}
			return "The token is valid: " + strings.Join(paths, " and ") + " accept it; no sign-in or registration is needed."
		}
		return strings.Join(refusals, " ")
	}
}
