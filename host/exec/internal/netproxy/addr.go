package netproxy

import "net/netip"

// nonPublic are the ranges a name must not resolve to unless the address
// is itself allowed, beyond what netip.Addr's predicates name (loopback,
// private, link-local, multicast, unspecified).
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT, shared address space
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and 255.255.255.255
	netip.MustParsePrefix("::/96"),           // IPv4-compatible (deprecated)
	netip.MustParsePrefix("100::/64"),        // discard
	netip.MustParsePrefix("fec0::/10"),       // site-local (deprecated, still routed by some)
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
}

// nat64 and sixToFour embed an IPv4 address a translator would reach.
var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
)

// isPublic reports whether a is an address a name may resolve to without
// being allowed itself: not loopback, private, link-local, multicast,
// unspecified, reserved, nor an IPv6 form that embeds such an IPv4
// address (mapped, NAT64, 6to4).
func isPublic(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.Zone() != "" {
		return false
	}
	if a.IsLoopback() || a.IsPrivate() || a.IsUnspecified() || a.IsMulticast() ||
		a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	if nat64.Contains(a) {
		b := a.As16()
		return isPublic(netip.AddrFrom4([4]byte(b[12:16])))
	}
	if sixToFour.Contains(a) {
		b := a.As16()
		return isPublic(netip.AddrFrom4([4]byte(b[2:6])))
	}
	return true
}
