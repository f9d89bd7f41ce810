package jwtauth_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/services/auth/jwtauth"
)

func TestVerify_unknownKidReloadsOncePerWindow(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	v, srv := newVerifier(t, clk, rsaSigner())
	stranger := rsaSigner2() // not in the JWKS yet

	wantFetches := func(t *testing.T, n int32) {
		t.Helper()
		if got := srv.fetches.Load(); got != n {
			t.Fatalf("JWKS fetched %d times, want %d", got, n)
		}
	}
	verifyAt := func(d time.Duration, s signer) error {
		clk.Add(d)
		c := baseClaims()
		c["exp"] = clk.Now().Add(5 * time.Minute).Unix()
		c["iat"] = clk.Now().Unix()
		_, err := v.Verify(ctx, sign(t, s, c, nil), ceAud)
		return err
	}

	wantFetches(t, 0) // a URL is fetched on first use, not by New
	if err := verifyAt(0, rsaSigner()); err != nil {
		t.Fatalf("known kid: %v", err)
	}
	wantFetches(t, 1)

	// An unknown kid reloads once even right after a scheduled load (the
	// issuer may just have rotated a key in), then gives the error.
	wantReason(t, verifyAt(10*time.Second, stranger), jwtauth.ReasonUnknownKey)
	wantFetches(t, 2)

	// Within 30 s of that reload, unknown kids reload nothing.
	wantReason(t, verifyAt(29*time.Second, stranger), jwtauth.ReasonUnknownKey)
	wantFetches(t, 2)

	// After the window: exactly one reload, then the error.
	wantReason(t, verifyAt(time.Second, stranger), jwtauth.ReasonUnknownKey)
	wantFetches(t, 3)
	wantReason(t, verifyAt(time.Second, stranger), jwtauth.ReasonUnknownKey)
	wantFetches(t, 3)

	// The issuer rotates the new key in; it verifies once the window has
	// passed since the last unknown-kid reload.
	srv.set(jwksOf(rsaSigner(), rsaSigner2()), http.StatusOK)
	wantReason(t, verifyAt(5*time.Second, stranger), jwtauth.ReasonUnknownKey)
	wantFetches(t, 3)
	if err := verifyAt(25*time.Second, stranger); err != nil {
		t.Fatalf("rotated-in key after the window: %v", err)
	}
	wantFetches(t, 4)
	if err := verifyAt(0, rsaSigner()); err != nil {
		t.Fatalf("old key after rotation: %v", err)
	}
	wantFetches(t, 4)
}

func TestVerify_warmUpDoesNotHoldBackARotatedKey(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	v, srv := newVerifier(t, clk, rsaSigner())
	if err := v.Refresh(ctx); err != nil {
		t.Fatalf("Refresh: %v", err)
	}
	// The issuer rotates a key in just after the warm-up.
	srv.set(jwksOf(rsaSigner(), rsaSigner2()), http.StatusOK)
	clk.Add(time.Second)
	if _, err := v.Verify(ctx, sign(t, rsaSigner2(), baseClaims(), nil), ceAud); err != nil {
		t.Fatalf("key rotated in after the warm-up: %v", err)
	}
	if got := srv.fetches.Load(); got != 2 {
		t.Fatalf("JWKS fetched %d times, want 2 (warm-up + one reload)", got)
	}
}

func TestVerify_firstLoadIsNotRepeatedForAnUnknownKid(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	v, srv := newVerifier(t, clk, rsaSigner())
	// The first use loads the set; the kid is not in it: no second load
	// in the same verification.
	wantReason(t, func() error {
		_, err := v.Verify(ctx, sign(t, rsaSigner2(), baseClaims(), nil), ceAud)
		return err
	}(), jwtauth.ReasonUnknownKey)
	if got := srv.fetches.Load(); got != 1 {
		t.Fatalf("JWKS fetched %d times, want 1", got)
	}
}

func TestVerify_concurrentMissesShareOneReload(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	v, srv := newVerifier(t, clk, rsaSigner())
	if _, err := v.Verify(ctx, sign(t, rsaSigner(), baseClaims(), nil), ceAud); err != nil {
		t.Fatalf("warm-up: %v", err)
	}
	clk.Add(31 * time.Second)
	c := baseClaims()
	c["exp"] = clk.Now().Add(time.Minute).Unix()
	raw := sign(t, ecSigner(), c, nil) // kid ec-1 is unknown

	const n = 16
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { _, errs[i] = v.Verify(ctx, raw, ceAud) })
	}
	wg.Wait()
	for _, err := range errs {
		wantReason(t, err, jwtauth.ReasonUnknownKey)
	}
	if got := srv.fetches.Load(); got != 2 {
		t.Fatalf("JWKS fetched %d times, want 2 (warm-up + one shared reload)", got)
	}
}

func TestVerify_keysExpireAfterAnHour(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	v, srv := newVerifier(t, clk, rsaSigner(), ecSigner())
	verify := func(s signer) error {
		c := baseClaims()
		c["exp"] = clk.Now().Add(time.Minute).Unix()
		c["iat"] = clk.Now().Unix()
		_, err := v.Verify(ctx, sign(t, s, c, nil), ceAud)
		return err
	}
	if err := verify(ecSigner()); err != nil {
		t.Fatalf("Verify: %v", err)
	}

	// The issuer is down at the hourly reload: old keys stay in use.
	srv.set([]byte("oops"), http.StatusBadGateway)
	clk.Add(time.Hour)
	if err := verify(ecSigner()); err != nil {
		t.Fatalf("Verify with the issuer down: %v", err)
	}
	if got := srv.fetches.Load(); got != 2 {
		t.Fatalf("fetches = %d, want 2", got)
	}

	// The issuer is back and has dropped the EC key: it stops verifying.
	srv.set(jwksOf(rsaSigner()), http.StatusOK)
	clk.Add(31 * time.Second)
	wantReason(t, verify(ecSigner()), jwtauth.ReasonUnknownKey)
	if err := verify(rsaSigner()); err != nil {
		t.Fatalf("remaining key: %v", err)
	}
}

func TestVerify_privateJWKSHostRefused(t *testing.T) {
	ctx := context.Background()
	srv := newJWKSServer(t, jwksOf(rsaSigner()))
	_, port, _ := strings.Cut(strings.TrimPrefix(srv.URL, "http://"), ":")
	for _, base := range []string{srv.URL, "http://localhost:" + port} {
		t.Run(base, func(t *testing.T) {
			clk := newClock()
			v, err := jwtauth.New(jwtauth.Config{Issuer: testIssuer, JWKS: base + "/jwks", Now: clk.Now})
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			_, err = v.Verify(ctx, sign(t, rsaSigner(), baseClaims(), nil), ceAud)
			wantReason(t, err, jwtauth.ReasonUnknownKey)
			if !errors.Is(err, jwtauth.ErrDisallowedAddress) {
				t.Fatalf("error = %v, want ErrDisallowedAddress", err)
			}
			if err := v.Refresh(ctx); !errors.Is(err, jwtauth.ErrDisallowedAddress) {
				t.Fatalf("Refresh = %v, want the disallowed-address error", err)
			}
		})
	}
	if got := srv.fetches.Load(); got != 0 {
		t.Fatalf("the loopback JWKS server was reached %d times", got)
	}
}

func TestVerify_callerHTTPClientGetsAddressCheck(t *testing.T) {
	srv := newJWKSServer(t, jwksOf(rsaSigner()))
	clk := newClock()
	v, err := jwtauth.New(jwtauth.Config{
		Issuer: testIssuer, JWKS: srv.URL, Now: clk.Now,
		HTTPClient: &http.Client{Transport: &http.Transport{}, Timeout: time.Minute},
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	_, err = v.Verify(context.Background(), sign(t, rsaSigner(), baseClaims(), nil), ceAud)
	if !errors.Is(err, jwtauth.ErrDisallowedAddress) {
		t.Fatalf("error = %v, want ErrDisallowedAddress", err)
	}
	if got := srv.fetches.Load(); got != 0 {
		t.Fatalf("server reached %d times", got)
	}
}

func TestVerify_badJWKSResponses(t *testing.T) {
	huge := `{"keys":[],"pad":"` + strings.Repeat("x", 1<<20) + `"}`
	tests := []struct {
		name    string
		handler http.HandlerFunc
		cause   string
	}{
		{
			name:    "server error",
			handler: func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusInternalServerError) },
			cause:   "status 500",
		},
		{
			name:    "over 1 MiB",
			handler: func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(huge)) },
			cause:   "larger than",
		},
		{
			name:    "not JSON",
			handler: func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("<html>")) },
			cause:   "parse jwks",
		},
		{
			name: "no usable key",
			handler: func(w http.ResponseWriter, r *http.Request) {
				_, _ = w.Write([]byte(`{"keys":[{"kty":"oct","k":"c2VjcmV0"}]}`))
			},
			cause: "no usable signing key",
		},
		{
			name:    "redirect loop",
			handler: func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, r.URL.Path+"x", http.StatusFound) },
			cause:   "redirects",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			t.Cleanup(srv.Close)
			clk := newClock()
			v, err := jwtauth.New(jwtauth.Config{Issuer: testIssuer, JWKS: srv.URL + "/k", AllowPrivateJWKSHosts: true, Now: clk.Now})
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			_, err = v.Verify(context.Background(), sign(t, rsaSigner(), baseClaims(), nil), ceAud)
			te := wantReason(t, err, jwtauth.ReasonUnknownKey)
			if te.Err == nil || !strings.Contains(te.Err.Error(), tt.cause) {
				t.Fatalf("cause = %v, want containing %q", te.Err, tt.cause)
			}
		})
	}
}

func TestVerify_JWKSFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(path, jwksOf(edSigner()), 0o600); err != nil {
		t.Fatal(err)
	}
	clk := newClock()
	v, err := jwtauth.New(jwtauth.Config{Issuer: testIssuer, JWKS: path, Now: clk.Now})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if _, err := v.Verify(ctx, sign(t, edSigner(), baseClaims(), nil), ceAud); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	// Rotation by replacing the file: picked up on the next miss after
	// the reload window.
	if err := os.WriteFile(path, jwksOf(edSigner(), ecSigner()), 0o600); err != nil {
		t.Fatal(err)
	}
	clk.Add(31 * time.Second)
	c := baseClaims()
	c["exp"] = clk.Now().Add(time.Minute).Unix()
	if _, err := v.Verify(ctx, sign(t, ecSigner(), c, nil), ceAud); err != nil {
		t.Fatalf("Verify after rotation: %v", err)
	}

	if err := os.WriteFile(path, []byte(`{"keys":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := jwtauth.New(jwtauth.Config{Issuer: testIssuer, JWKS: path}); err == nil ||
		!strings.Contains(err.Error(), "no usable signing key") {
		t.Fatalf("New with an empty key set: %v, want no usable signing key", err)
	}
}

func TestRefresh_warmsTheCache(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	v, srv := newVerifier(t, clk, rsaSigner())
	if err := v.Refresh(ctx); err != nil {
		t.Fatalf("Refresh: %v", err)
	}
	if err := v.Refresh(ctx); err != nil {
		t.Fatalf("second Refresh within the interval: %v", err)
	}
	if _, err := v.Verify(ctx, sign(t, rsaSigner(), baseClaims(), nil), ceAud); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if got := srv.fetches.Load(); got != 1 {
		t.Fatalf("JWKS fetched %d times, want 1", got)
	}

	srv.set([]byte("down"), http.StatusServiceUnavailable)
	clk.Add(31 * time.Second)
	if err := v.Refresh(ctx); err == nil || !strings.Contains(err.Error(), "status 503") {
		t.Fatalf("Refresh with the issuer down = %v, want status 503", err)
	}
	if _, err := v.Verify(ctx, sign(t, rsaSigner(), baseClaims(), nil), ceAud); err != nil {
		t.Fatalf("Verify with cached keys after a failed refresh: %v", err)
	}

	static, err := jwtauth.New(jwtauth.Config{Issuer: testIssuer, PublicKeyPEM: pemOf(t, edSigner().pub)})
	if err != nil {
		t.Fatal(err)
	}
	if err := static.Refresh(ctx); err != nil {
		t.Fatalf("Refresh on a PEM key: %v", err)
	}
}
