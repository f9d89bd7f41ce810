package jwtauth_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"gitlab.com/glmcp/glmcp/services/auth/jwtauth"
)

func TestVerify_validTokenEachAlgorithm(t *testing.T) {
	clk := newClock()
	v, _ := newVerifier(t, clk, rsaSigner(), ecSigner(), edSigner())
	for _, s := range []signer{rsaSigner(), ecSigner(), edSigner()} {
		t.Run(s.method.Alg(), func(t *testing.T) {
			raw := sign(t, s, baseClaims(), nil)
			got, err := v.Verify(context.Background(), raw, ceAud)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			want := &jwtauth.Claims{
				Subject:   "42",
				UserID:    42,
				Scopes:    []string{"mcp", "api"},
				Audience:  []string{ceAud},
				ExpiresAt: t0.Add(5 * time.Minute),
				ClientID:  "claude-code",
				JTI:       "tok-1",
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("claims = %+v, want %+v", got, want)
			}
			if !got.HasScope("mcp") || got.HasScope("mcp_orbit") {
				t.Fatalf("HasScope wrong for %v", got.Scopes)
			}
		})
	}
}

func TestVerify_PEMKeyEachType(t *testing.T) {
	for _, s := range []signer{rsaSigner(), ecSigner(), edSigner()} {
		t.Run(s.method.Alg(), func(t *testing.T) {
			clk := newClock()
			v, err := jwtauth.New(jwtauth.Config{Issuer: testIssuer, PublicKeyPEM: pemOf(t, s.pub), Now: clk.Now})
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			// A PEM key has no kid: tokens naming any kid (or none) verify.
			for _, hdr := range []map[string]any{nil, {"kid": nil}, {"kid": "whatever"}} {
				if _, err := v.Verify(context.Background(), sign(t, s, baseClaims(), hdr), ceAud); err != nil {
					t.Fatalf("Verify(header %v): %v", hdr, err)
				}
			}
		})
	}
}

func TestVerify_HS256SharedSecret(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	clk := newClock()
	v, err := jwtauth.New(jwtauth.Config{Issuer: testIssuer, HS256Secret: secret, Now: clk.Now})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	hs := signer{kid: "hs", method: jwt.SigningMethodHS256, key: secret}
	if _, err := v.Verify(context.Background(), sign(t, hs, baseClaims(), nil), ceAud); err != nil {
		t.Fatalf("Verify HS256: %v", err)
	}
	other := signer{kid: "hs", method: jwt.SigningMethodHS256, key: []byte("another-secret-another-secret-xx")}
	_, err = v.Verify(context.Background(), sign(t, other, baseClaims(), nil), ceAud)
	wantReason(t, err, jwtauth.ReasonSignature)
	_, err = v.Verify(context.Background(), sign(t, rsaSigner(), baseClaims(), nil), ceAud)
	wantReason(t, err, jwtauth.ReasonAlgorithm)
}

func TestVerify_refusals(t *testing.T) {
	clk := newClock()
	v, _ := newVerifier(t, clk, rsaSigner(), ecSigner(), edSigner())
	rsaPEM := pemOf(t, &rsaKey().PublicKey)

	with := func(mod func(jwt.MapClaims)) jwt.MapClaims {
		c := baseClaims()
		mod(c)
		return c
	}
	tampered := func(t *testing.T) string {
		raw := sign(t, rsaSigner(), baseClaims(), nil)
		parts := strings.Split(raw, ".")
		payload, _ := json.Marshal(with(func(c jwt.MapClaims) { c["sub"] = "1" }))
		parts[1] = base64.RawURLEncoding.EncodeToString(payload)
		return strings.Join(parts, ".")
	}

	tests := []struct {
		name     string
		token    func(t *testing.T) string
		audience string
		reason   string // "" = accepted
	}{
		{
			name: "wrong issuer",
			token: func(t *testing.T) string {
				return sign(t, rsaSigner(), with(func(c jwt.MapClaims) { c["iss"] = "https://evil.test" }), nil)
			},
			reason: jwtauth.ReasonIssuer,
		},
		{
			name: "missing issuer",
			token: func(t *testing.T) string {
				return sign(t, rsaSigner(), with(func(c jwt.MapClaims) { delete(c, "iss") }), nil)
			},
			reason: jwtauth.ReasonIssuer,
		},
		{
			name:     "CE token on the EE endpoint",
			token:    func(t *testing.T) string { return sign(t, rsaSigner(), baseClaims(), nil) },
			audience: eeAud,
			reason:   jwtauth.ReasonAudience,
		},
		{
			name: "token naming both endpoints works on EE",
			token: func(t *testing.T) string {
				return sign(t, ecSigner(), with(func(c jwt.MapClaims) { c["aud"] = []string{ceAud, eeAud} }), nil)
			},
			audience: eeAud,
		},
		{
			name: "token naming both endpoints works on CE",
			token: func(t *testing.T) string {
				return sign(t, ecSigner(), with(func(c jwt.MapClaims) { c["aud"] = []string{ceAud, eeAud} }), nil)
			},
		},
		{
			name: "aud as a single string",
			token: func(t *testing.T) string {
				return sign(t, ecSigner(), with(func(c jwt.MapClaims) { c["aud"] = ceAud }), nil)
			},
		},
		{
			name: "missing audience",
			token: func(t *testing.T) string {
				return sign(t, rsaSigner(), with(func(c jwt.MapClaims) { delete(c, "aud") }), nil)
			},
			reason: jwtauth.ReasonAudience,
		},
		{
			name: "audience with a trailing slash is another audience",
			token: func(t *testing.T) string {
				return sign(t, rsaSigner(), with(func(c jwt.MapClaims) { c["aud"] = ceAud + "/" }), nil)
			},
			reason: jwtauth.ReasonAudience,
		},
		{
			name: "expired beyond leeway",
			token: func(t *testing.T) string {
				return sign(t, rsaSigner(), with(func(c jwt.MapClaims) { c["exp"] = t0.Add(-31 * time.Second).Unix() }), nil)
			},
			reason: jwtauth.ReasonExpired,
		},
		{
			name: "expired within leeway",
			token: func(t *testing.T) string {
				return sign(t, rsaSigner(), with(func(c jwt.MapClaims) { c["exp"] = t0.Add(-29 * time.Second).Unix() }), nil)
			},
		},
		{
			name: "missing exp",
			token: func(t *testing.T) string {
				return sign(t, rsaSigner(), with(func(c jwt.MapClaims) { delete(c, "exp") }), nil)
			},
			reason: jwtauth.ReasonNoExpiry,
		},
		{
			name: "nbf in the future beyond leeway",
			token: func(t *testing.T) string {
				return sign(t, rsaSigner(), with(func(c jwt.MapClaims) { c["nbf"] = t0.Add(31 * time.Second).Unix() }), nil)
			},
			reason: jwtauth.ReasonNotYetValid,
		},
		{
			name: "nbf in the future within leeway",
			token: func(t *testing.T) string {
				return sign(t, rsaSigner(), with(func(c jwt.MapClaims) { c["nbf"] = t0.Add(29 * time.Second).Unix() }), nil)
			},
		},
		{
			name: "iat in the future beyond leeway",
			token: func(t *testing.T) string {
				return sign(t, rsaSigner(), with(func(c jwt.MapClaims) { c["iat"] = t0.Add(time.Minute).Unix() }), nil)
			},
			reason: jwtauth.ReasonIssuedInFuture,
		},
		{
			name: "alg none",
			token: func(t *testing.T) string {
				return unsigned(t, map[string]any{"alg": "none", "typ": "at+jwt", "kid": "rsa-1"}, baseClaims())
			},
			reason: jwtauth.ReasonAlgorithm,
		},
		{
			name: "HS256 signed with the RSA public key as secret (alg confusion)",
			token: func(t *testing.T) string {
				return sign(t, signer{kid: "rsa-1", method: jwt.SigningMethodHS256, key: rsaPEM}, baseClaims(), nil)
			},
			reason: jwtauth.ReasonAlgorithm,
		},
		{
			name:   "RSA kid with an ES256 signature",
			token:  func(t *testing.T) string { return sign(t, ecSigner(), baseClaims(), map[string]any{"kid": "rsa-1"}) },
			reason: jwtauth.ReasonAlgorithm,
		},
		{
			name: "RS512 is not pinned",
			token: func(t *testing.T) string {
				return sign(t, signer{kid: "rsa-1", method: jwt.SigningMethodRS512, key: rsaKey()}, baseClaims(), nil)
			},
			reason: jwtauth.ReasonAlgorithm,
		},
		{
			name: "unknown alg",
			token: func(t *testing.T) string {
				return unsigned(t, map[string]any{"alg": "XX999", "kid": "rsa-1"}, baseClaims())
			},
			reason: jwtauth.ReasonAlgorithm,
		},
		{
			name:   "tampered payload",
			token:  tampered,
			reason: jwtauth.ReasonSignature,
		},
		{
			name:   "typ JWT (an ID token) refused",
			token:  func(t *testing.T) string { return sign(t, rsaSigner(), baseClaims(), map[string]any{"typ": "JWT"}) },
			reason: jwtauth.ReasonTokenType,
		},
		{
			name: "typ application/at+jwt accepted",
			token: func(t *testing.T) string {
				return sign(t, rsaSigner(), baseClaims(), map[string]any{"typ": "application/AT+JWT"})
			},
		},
		{
			name:  "typ absent accepted",
			token: func(t *testing.T) string { return sign(t, rsaSigner(), baseClaims(), map[string]any{"typ": nil}) },
		},
		{
			name: "crit header refused",
			token: func(t *testing.T) string {
				return sign(t, rsaSigner(), baseClaims(), map[string]any{"crit": []string{"exp"}})
			},
			reason: jwtauth.ReasonMalformed,
		},
		{
			name:  "no kid: every key of the alg is tried",
			token: func(t *testing.T) string { return sign(t, edSigner(), baseClaims(), map[string]any{"kid": nil}) },
		},
		{
			name: "non-numeric sub",
			token: func(t *testing.T) string {
				return sign(t, rsaSigner(), with(func(c jwt.MapClaims) { c["sub"] = "alice" }), nil)
			},
			reason: jwtauth.ReasonUserClaim,
		},
		{
			name: "exp of the wrong type",
			token: func(t *testing.T) string {
				return sign(t, rsaSigner(), with(func(c jwt.MapClaims) { c["exp"] = "tomorrow" }), nil)
			},
			reason: jwtauth.ReasonMalformed,
		},
		{
			name: "scope of the wrong type",
			token: func(t *testing.T) string {
				return sign(t, rsaSigner(), with(func(c jwt.MapClaims) { c["scope"] = 7 }), nil)
			},
			reason: jwtauth.ReasonMalformed,
		},
		{
			name:   "garbage",
			token:  func(*testing.T) string { return "not.a.jwt" },
			reason: jwtauth.ReasonMalformed,
		},
		{
			name:   "oversized",
			token:  func(*testing.T) string { return strings.Repeat("a", 17<<10) },
			reason: jwtauth.ReasonMalformed,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			aud := tt.audience
			if aud == "" {
				aud = ceAud
			}
			raw := tt.token(t)
			got, err := v.Verify(context.Background(), raw, aud)
			if tt.reason == "" {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				if got.UserID != 42 {
					t.Fatalf("UserID = %d, want 42", got.UserID)
				}
				return
			}
			te := wantReason(t, err, tt.reason)
			// The message never carries the token (or its signature).
			if parts := strings.Split(raw, "."); len(parts) == 3 && len(parts[2]) > 8 &&
				strings.Contains(te.Error(), parts[2]) {
				t.Fatalf("error %q contains the token signature", te.Error())
			}
		})
	}
}

func TestVerify_scopes(t *testing.T) {
	clk := newClock()
	v, _ := newVerifier(t, clk, ecSigner())
	tests := []struct {
		name   string
		claims map[string]any
		want   []string
	}{
		{name: "scope string", claims: map[string]any{"scope": " mcp  read_api "}, want: []string{"mcp", "read_api"}},
		{name: "scp array", claims: map[string]any{"scope": nil, "scp": []string{"mcp_orbit", "mcp"}}, want: []string{"mcp_orbit", "mcp"}},
		{name: "scp string", claims: map[string]any{"scope": nil, "scp": "api"}, want: []string{"api"}},
		{name: "both merged without duplicates", claims: map[string]any{"scope": "mcp api", "scp": []string{"api", "ai_workflows"}}, want: []string{"mcp", "api", "ai_workflows"}},
		{name: "none", claims: map[string]any{"scope": nil}, want: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := baseClaims()
			for k, val := range tt.claims {
				if val == nil {
					delete(c, k)
				} else {
					c[k] = val
				}
			}
			got, err := v.Verify(context.Background(), sign(t, ecSigner(), c, nil), ceAud)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if !reflect.DeepEqual(got.Scopes, tt.want) {
				t.Fatalf("Scopes = %q, want %q", got.Scopes, tt.want)
			}
		})
	}
}

func TestVerify_usernameClaim(t *testing.T) {
	clk := newClock()
	srv := newJWKSServer(t, jwksOf(edSigner()))
	v, err := jwtauth.New(jwtauth.Config{
		Issuer: testIssuer, JWKS: srv.URL, AllowPrivateJWKSHosts: true,
		UserClaim: "preferred_username", Now: clk.Now,
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	c := baseClaims()
	c["sub"] = "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"
	c["preferred_username"] = "alice"
	delete(c, "client_id")
	c["azp"] = "cursor"
	got, err := v.Verify(context.Background(), sign(t, edSigner(), c, nil), ceAud)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if got.Username != "alice" || got.UserID != 0 || got.Subject != c["sub"] || got.ClientID != "cursor" {
		t.Fatalf("claims = %+v, want username alice, no user id, client cursor", got)
	}

	for name, val := range map[string]any{"missing": nil, "empty": " ", "not a string": 7} {
		t.Run(name, func(t *testing.T) {
			c := baseClaims()
			if val != nil {
				c["preferred_username"] = val
			}
			_, err := v.Verify(context.Background(), sign(t, edSigner(), c, nil), ceAud)
			wantReason(t, err, jwtauth.ReasonUserClaim)
		})
	}
}

func TestVerify_emptyAudienceIsMisuse(t *testing.T) {
	clk := newClock()
	v, _ := newVerifier(t, clk, rsaSigner())
	_, err := v.Verify(context.Background(), sign(t, rsaSigner(), baseClaims(), nil), "")
	if err == nil {
		t.Fatal("Verify with empty audience succeeded")
	}
	var te *jwtauth.TokenError
	if errors.As(err, &te) {
		t.Fatalf("empty audience reported as a token error: %v", err)
	}
}

func TestNew_config(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	rsaPEM := pemOf(t, &rsaKey().PublicKey)
	tests := []struct {
		name    string
		cfg     jwtauth.Config
		wantErr string
	}{
		{name: "no issuer", cfg: jwtauth.Config{HS256Secret: secret}, wantErr: "issuer is required"},
		{name: "issuer with spaces", cfg: jwtauth.Config{Issuer: " x", HS256Secret: secret}, wantErr: "issuer is required"},
		{name: "no key source", cfg: jwtauth.Config{Issuer: testIssuer}, wantErr: "exactly one key source"},
		{name: "two key sources", cfg: jwtauth.Config{Issuer: testIssuer, HS256Secret: secret, PublicKeyPEM: rsaPEM}, wantErr: "exactly one key source"},
		{name: "short secret", cfg: jwtauth.Config{Issuer: testIssuer, HS256Secret: []byte("short")}, wantErr: "shorter than 32"},
		{name: "ftp jwks", cfg: jwtauth.Config{Issuer: testIssuer, JWKS: "ftp://example.com/jwks"}, wantErr: "not supported"},
		{name: "missing jwks file", cfg: jwtauth.Config{Issuer: testIssuer, JWKS: t.TempDir() + "/nope.json"}, wantErr: "read jwks file"},
		{name: "bad PEM", cfg: jwtauth.Config{Issuer: testIssuer, PublicKeyPEM: []byte("hello")}, wantErr: "no PEM block"},
		{name: "private key PEM", cfg: jwtauth.Config{Issuer: testIssuer, PublicKeyPEM: []byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")}, wantErr: "not a public key"},
		{name: "negative leeway", cfg: jwtauth.Config{Issuer: testIssuer, HS256Secret: secret, Leeway: -time.Second}, wantErr: "leeway"},
		{name: "huge leeway", cfg: jwtauth.Config{Issuer: testIssuer, HS256Secret: secret, Leeway: time.Hour}, wantErr: "leeway"},
		{name: "reserved user claim", cfg: jwtauth.Config{Issuer: testIssuer, HS256Secret: secret, UserClaim: "aud"}, wantErr: "cannot identify a user"},
		{name: "custom transport without address check", cfg: jwtauth.Config{Issuer: testIssuer, JWKS: "https://issuer.test/jwks", HTTPClient: &http.Client{Transport: roundTripFunc(nil)}}, wantErr: "*http.Transport"},
		{name: "valid", cfg: jwtauth.Config{Issuer: testIssuer, JWKS: "https://issuer.test/jwks"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := jwtauth.New(tt.cfg)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("New error = %v, want containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestLooksLikeJWT(t *testing.T) {
	valid := sign(t, rsaSigner(), baseClaims(), nil)
	hdr := base64.RawURLEncoding.EncodeToString
	tests := []struct {
		raw  string
		want bool
	}{
		{valid, true},
		{unsigned(t, map[string]any{"alg": "none"}, map[string]any{}), true},
		{"glpat-abcdefghijklmnopqrst", false},
		{"glpat-abcdefghij.01.0a1b2c3d4", false},
		{"", false},
		{"a.b", false},
		{"a.b.c.d", false},
		{".payload.sig", false},
		{hdr([]byte(`{"alg":"RS256"}`)) + "..sig", false},
		{hdr([]byte(`{"typ":"JWT"}`)) + ".e30.sig", false},
		{hdr([]byte(`{"alg":5}`)) + ".e30.sig", false},
		{hdr([]byte(`["alg"]`)) + ".e30.sig", false},
		{hdr([]byte(`{"alg":"RS256"}`)) + ".e3+0.sig", false},
		{"eyJhbGciOiJSUzI1NiJ9=.e30.sig", false},
		{strings.Repeat("a", 17<<10) + "." + "b.c", false},
	}
	for _, tt := range tests {
		if got := jwtauth.LooksLikeJWT(tt.raw); got != tt.want {
			short := tt.raw
			if len(short) > 60 {
				short = short[:60] + "…"
			}
			t.Errorf("LooksLikeJWT(%q) = %v, want %v", short, got, tt.want)
		}
	}
}
