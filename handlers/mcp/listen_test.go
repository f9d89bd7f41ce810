package mcp

import "testing"

func TestCapReason(t *testing.T) {
	for in, want := range map[string]string{
		"subscribe: listen stream limit exceeded: too many open listen streams for this user (limit 2)": "Too many open listen streams for this user (limit 2)",
		"plain": "Plain",
	} {
		if got := capReason(errString(in)); got != want {
			t.Errorf("capReason(%q) = %q, want %q", in, got, want)
		}
	}
}

type errString string

func (e errString) Error() string { return string(e) }
