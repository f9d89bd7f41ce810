package jwtauth_test

import (
	"context"
	"errors"
	"testing"

	"gitlab.com/glmcp/glmcp/services/auth/jwtauth"
)

// FuzzVerify feeds arbitrary strings to Verify and LooksLikeJWT: neither
// may panic, Verify may only fail with a *TokenError, and anything it
// accepts must look like a JWT.
func FuzzVerify(f *testing.F) {
	clk := newClock()
	seeds := []string{
		sign(f, edSigner(), baseClaims(), nil),
		sign(f, edSigner(), baseClaims(), map[string]any{"typ": "JWT"}),
		unsigned(f, map[string]any{"alg": "none"}, baseClaims()),
		"", ".", "..", "a.b.c", "eyJhbGciOiJFZERTQSJ9.e30.", "glpat-xxxxxxxxxxxxxxxxxxxx",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	v, err := jwtauth.New(jwtauth.Config{Issuer: testIssuer, PublicKeyPEM: pemOf(f, edSigner().pub), Now: clk.Now})
	if err != nil {
		f.Fatalf("New: %v", err)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		looks := jwtauth.LooksLikeJWT(raw)
		c, err := v.Verify(context.Background(), raw, ceAud)
		if err != nil {
			var te *jwtauth.TokenError
			if !errors.As(err, &te) || te.Reason == "" {
				t.Fatalf("Verify(%q) error %v is not a *TokenError with a reason", raw, err)
			}
			return
		}
		if !looks {
			t.Fatalf("Verify accepted %q, which LooksLikeJWT refuses", raw)
		}
		if c.UserID <= 0 {
			t.Fatalf("accepted token without a user: %+v", c)
		}
	})
}
