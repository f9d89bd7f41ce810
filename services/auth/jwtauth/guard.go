package jwtauth

import (
	"fmt"
	"net"
	"net/netip"
	"syscall"
)

// specialPrefixes are special-purpose ranges (RFC 6890 and successors) not
// already covered by netip.Addr's Is* methods.
var specialPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // shared address space (CGNAT)
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, broadcast
	netip.MustParsePrefix("::/96"),           // unspecified, loopback, IPv4-compatible
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("fec0::/10"),       // site-local (deprecated)
}

var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// disallowedAddr reports whether a JWKS fetch may not connect to ip:
// loopback, private (RFC 1918, RFC 4193), link-local, multicast, unspecified
// and the special-purpose ranges above. IPv4-mapped and well-known NAT64
// addresses are judged by the IPv4 address they carry.
func disallowedAddr(ip netip.Addr) bool {
	ip = ip.Unmap().WithZone("")
	if !ip.IsValid() {
		return true
	}
	if nat64.Contains(ip) {
		b := ip.As16()
		return disallowedAddr(netip.AddrFrom4([4]byte(b[12:16])))
	}
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified() ||
		ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() {
		return true
	}
	for _, p := range specialPrefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// refuseDisallowed is a net.Dialer Control function: it runs after name
// resolution with the address about to be connected to, so a name that
// resolves (or re-resolves) to a disallowed address is refused.
func refuseDisallowed(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("dial %q: %w", address, ErrDisallowedAddress)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || disallowedAddr(ip) {
		return fmt.Errorf("dial %s: %w", host, ErrDisallowedAddress)
	}
	return nil
}
