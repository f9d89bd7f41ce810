package jwtauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"
)

const (
	fetchTimeout = 5 * time.Second
	maxJWKSBytes = 1 << 20
	maxRedirects = 3
)

// urlLoader returns a loader that fetches the JWKS at rawURL with client.
func urlLoader(rawURL string, client *http.Client) func(context.Context) (*keySet, error) {
	return func(ctx context.Context) (*keySet, error) {
		ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
		if err != nil {
			return nil, fmt.Errorf("fetch jwks: %w", err)
		}
		req.Header.Set("Accept", "application/jwk-set+json, application/json")
		resp, err := client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("fetch jwks: %w", err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxJWKSBytes))
			return nil, fmt.Errorf("fetch jwks: status %d", resp.StatusCode)
		}
		body, err := readCapped(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("fetch jwks: %w", err)
		}
		return parseJWKS(body)
	}
}

// fileLoader returns a loader that reads the JWKS file at path.
func fileLoader(path string) func(context.Context) (*keySet, error) {
	return func(context.Context) (*keySet, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("read jwks file: %w", err)
		}
		defer f.Close()
		body, err := readCapped(f)
		if err != nil {
			return nil, fmt.Errorf("read jwks file %q: %w", path, err)
		}
		return parseJWKS(body)
	}
}

func readCapped(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxJWKSBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxJWKSBytes {
		return nil, fmt.Errorf("jwks larger than %d bytes", maxJWKSBytes)
	}
	return b, nil
}

// jwksClient derives the client used for JWKS fetches from base (nil: a
// fresh one). The timeout is capped at 5 s and redirects at 3, http(s)
// only. Unless allowPrivate, the dialer refuses disallowed addresses and
// proxies are off (a proxy would hide the target address from the check);
// that needs an *http.Transport to install the dialer in.
func jwksClient(base *http.Client, allowPrivate bool) (*http.Client, error) {
	c := &http.Client{}
	if base != nil {
		cp := *base
		c = &cp
	}
	if c.Timeout <= 0 || c.Timeout > fetchTimeout {
		c.Timeout = fetchTimeout
	}
	c.CheckRedirect = checkRedirect
	if allowPrivate {
		return c, nil
	}
	var tr *http.Transport
	switch t := c.Transport.(type) {
	case nil:
		tr = http.DefaultTransport.(*http.Transport).Clone()
	case *http.Transport:
		tr = t.Clone()
	default:
		return nil, errors.New("HTTPClient.Transport must be an *http.Transport so JWKS addresses can be checked")
	}
	dialer := &net.Dialer{Timeout: fetchTimeout, KeepAlive: 30 * time.Second, Control: refuseDisallowed}
	tr.Proxy = nil
	tr.DialContext = dialer.DialContext
	tr.DialTLSContext = nil
	tr.DialTLS = nil //nolint:staticcheck // cleared so it cannot bypass DialContext
	tr.Dial = nil    //nolint:staticcheck // likewise
	c.Transport = tr
	return c, nil
}

func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("more than %d redirects", maxRedirects)
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fmt.Errorf("redirect to scheme %q refused", req.URL.Scheme)
	}
	return nil
}
