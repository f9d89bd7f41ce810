package jwtauth

// Internal tests: the address classification cannot be driven through the
// public API without dialing the addresses, which tests must not do.

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func TestDisallowedAddr(t *testing.T) {
	tests := []struct {
		addr string
		want bool
	}{
		{"127.0.0.1", true},
		{"127.8.9.10", true},
		{"::1", true},
		{"::ffff:127.0.0.1", true},
		{"10.1.2.3", true},
		{"172.16.0.1", true},
		{"172.31.255.255", true},
		{"192.168.1.1", true},
		{"169.254.169.254", true}, // cloud metadata
		{"fe80::1%eth0", true},
		{"fd00::1", true},
		{"0.0.0.0", true},
		{"::", true},
		{"100.64.0.1", true},
		{"224.0.0.1", true},
		{"255.255.255.255", true},
		{"64:ff9b::a00:1", true}, // NAT64 of 10.0.0.1
		{"::ffff:169.254.169.254", true},
		{"8.8.8.8", false},
		{"172.32.0.1", false},
		{"2606:4700:4700::1111", false},
		{"64:ff9b::808:808", false}, // NAT64 of 8.8.8.8
	}
	for _, tt := range tests {
		ip, err := netip.ParseAddr(tt.addr)
		if err != nil {
			t.Fatalf("parse %q: %v", tt.addr, err)
		}
		if got := disallowedAddr(ip); got != tt.want {
			t.Errorf("disallowedAddr(%s) = %v, want %v", tt.addr, got, tt.want)
		}
	}
}

func TestRefuseDisallowed(t *testing.T) {
	for addr, wantErr := range map[string]bool{
		"127.0.0.1:443":     true,
		"[::1]:443":         true,
		"not-an-address":    true,
		"example.com:443":   true, // unresolved names never reach Control
		"93.184.215.14:443": false,
		"[2606:4700::1]:80": false,
	} {
		err := refuseDisallowed("tcp", addr, nil)
		if got := err != nil; got != wantErr {
			t.Errorf("refuseDisallowed(%q) = %v, want error %v", addr, err, wantErr)
		}
		if err != nil && !errors.Is(err, ErrDisallowedAddress) {
			t.Errorf("refuseDisallowed(%q) = %v, not ErrDisallowedAddress", addr, err)
		}
	}
}

func TestParseJWKS(t *testing.T) {
	// A 2048-bit modulus is 342 base64url characters; a 1024-bit one 171.
	n2048 := "x" + strings.Repeat("A", 341)
	n1024 := "x" + strings.Repeat("A", 170)
	tests := []struct {
		name     string
		doc      string
		wantKeys int
		wantErr  string
	}{
		{name: "not JSON", doc: `nope`, wantErr: "parse jwks"},
		{name: "no keys member", doc: `{}`, wantErr: `no "keys" member`},
		{name: "empty", doc: `{"keys":[]}`, wantErr: "no usable signing key"},
		{name: "RSA", doc: `{"keys":[{"kty":"RSA","kid":"a","n":"` + n2048 + `","e":"AQAB"}]}`, wantKeys: 1},
		{name: "padded base64", doc: `{"keys":[{"kty":"RSA","kid":"a","n":"` + n2048 + `","e":"AQAB="}]}`, wantKeys: 1},
		{name: "short RSA skipped", doc: `{"keys":[{"kty":"RSA","kid":"a","n":"` + n1024 + `","e":"AQAB"}]}`, wantErr: "rsa key size"},
		{name: "even exponent skipped", doc: `{"keys":[{"kty":"RSA","kid":"a","n":"` + n2048 + `","e":"AQAA"}]}`, wantErr: "rsa e"},
		{name: "encryption key skipped", doc: `{"keys":[{"kty":"RSA","use":"enc","n":"` + n2048 + `","e":"AQAB"}]}`, wantErr: "not sig"},
		{name: "alg mismatch skipped", doc: `{"keys":[{"kty":"RSA","alg":"PS256","n":"` + n2048 + `","e":"AQAB"}]}`, wantErr: `alg "PS256"`},
		{name: "P-384 skipped", doc: `{"keys":[{"kty":"EC","crv":"P-384","x":"AA","y":"AA"}]}`, wantErr: "P-384"},
		{name: "EC point off the curve", doc: `{"keys":[{"kty":"EC","crv":"P-256","x":"` + strings.Repeat("A", 43) + `","y":"` + strings.Repeat("A", 42) + `E"}]}`, wantErr: "no usable"},
		{name: "Ed448 skipped", doc: `{"keys":[{"kty":"OKP","crv":"Ed448","x":"AA"}]}`, wantErr: "Ed448"},
		{name: "symmetric skipped", doc: `{"keys":[{"kty":"oct","k":"c2VjcmV0"}]}`, wantErr: `kty "oct"`},
		{name: "one bad key does not spoil the set", doc: `{"keys":[{"kty":"oct"},{"kty":"OKP","crv":"Ed25519","x":"` + strings.Repeat("A", 43) + `"}]}`, wantKeys: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := parseJWKS([]byte(tt.doc))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parseJWKS error = %v, want containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseJWKS: %v", err)
			}
			if len(set.keys) != tt.wantKeys {
				t.Fatalf("%d keys, want %d", len(set.keys), tt.wantKeys)
			}
		})
	}
}
