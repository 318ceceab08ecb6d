package netproxy

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// DefaultPorts are the ports an entry without ":port" allows: 80 for
// plain HTTP and 443 for HTTPS, the two every package manager uses.
// "example.org" is "example.org:80" plus "example.org:443"; write a
// port to allow only that one ("example.org:443") or another one.
var DefaultPorts = []uint16{80, 443}

// Rule is one parsed allow-list entry.
type Rule struct {
	// Name is an exact name, or with Suffix set the parent of the names
	// "*.Name" matches (any depth, not Name itself).
	Name   string
	Suffix bool
	// Addr is set instead of Name for an address literal.
	Addr netip.Addr
	// Port is the one port allowed, 0 for DefaultPorts.
	Port uint16
}

// String writes the rule back in the form ParseRule reads.
func (r Rule) String() string {
	h := Host{Name: r.Name, Addr: r.Addr}.String()
	if r.Suffix {
		h = "*." + h
	}
	if r.Port != 0 {
		return fmt.Sprintf("%s:%d", h, r.Port)
	}
	return h
}

func (r Rule) allowsPort(port uint16) bool {
	if r.Port != 0 {
		return port == r.Port
	}
	return slices.Contains(DefaultPorts, port)
}

// ParseRule parses one allow-list entry:
//
//	example.org          the name exactly, on ports 80 and 443
//	example.org:8443     the name on that port only
//	*.example.org        every name under example.org (not example.org)
//	*.example.org:443    the same on one port
//	192.0.2.7[:port]     that IPv4 address, written as such
//	[2001:db8::7][:port] that IPv6 address; without a port the brackets
//	                     may be left out (2001:db8::7)
//
// A name is normalised as NormalizeName says. An address allows a
// request that names the address, and lets an allowed name resolve to
// it even when it is loopback or private; a name never allows an
// address, nor an address a name. Errors wrap ErrBadName, ErrNonASCII,
// ErrBadPort or ErrBadEntry (a bare "*", a wildcard elsewhere than a
// leading "*.", a one-label suffix such as "*.com").
func ParseRule(entry string) (Rule, error) {
	host, portText, hasPort, err := splitEntry(entry)
	if err != nil {
		return Rule{}, err
	}
	var r Rule
	if hasPort {
		if r.Port, err = ParsePort(portText); err != nil {
			return Rule{}, fmt.Errorf("allow-list entry %s: %w", quote(entry), err)
		}
	}
	if rest, ok := strings.CutPrefix(host, "*."); ok {
		name, err := NormalizeName(rest)
		if err != nil {
			return Rule{}, fmt.Errorf("allow-list entry %s: %w", quote(entry), err)
		}
		if !strings.Contains(name, ".") {
			return Rule{}, fmt.Errorf("%w: %s: a suffix of one label allows a whole top-level domain", ErrBadEntry, quote(entry))
		}
		r.Name, r.Suffix = name, true
		return r, nil
	}
	if strings.Contains(host, "*") {
		return Rule{}, fmt.Errorf("%w: %s: a wildcard is only a leading \"*.\"", ErrBadEntry, quote(entry))
	}
	h, err := ParseHost(host)
	if err != nil {
		return Rule{}, fmt.Errorf("allow-list entry %s: %w", quote(entry), err)
	}
	r.Name, r.Addr = h.Name, h.Addr
	return r, nil
}

// splitEntry cuts "host[:port]", "[v6][:port]" or a bare v6 address.
func splitEntry(entry string) (host, port string, hasPort bool, err error) {
	if rest, ok := strings.CutPrefix(entry, "["); ok {
		inner, after, ok := strings.Cut(rest, "]")
		if !ok || !strings.Contains(inner, ":") {
			return "", "", false, fmt.Errorf("%w: %s: a bracket is only around an IPv6 address", ErrBadEntry, quote(entry))
		}
		if after == "" {
			return inner, "", false, nil
		}
		p, ok := strings.CutPrefix(after, ":")
		if !ok {
			return "", "", false, fmt.Errorf("%w: %s", ErrBadEntry, quote(entry))
		}
		return inner, p, true, nil
	}
	switch strings.Count(entry, ":") {
	case 0:
		return entry, "", false, nil
	case 1:
		h, p, _ := strings.Cut(entry, ":")
		return h, p, true, nil
	default: // a bare IPv6 address; ParseHost refuses anything else
		return entry, "", false, nil
	}
}

// AllowList is a parsed set of Rules. The zero value (and nil) allows
// nothing. It is read-only once parsed and safe for concurrent use.
type AllowList struct {
	rules []Rule
}

// ParseAllowList parses every entry with ParseRule. The first bad entry
// is the error (wrapping the kind ParseRule gives); no list is returned
// with it.
func ParseAllowList(entries []string) (*AllowList, error) {
	a := &AllowList{rules: make([]Rule, 0, len(entries))}
	for _, e := range entries {
		r, err := ParseRule(e)
		if err != nil {
			return nil, err
		}
		a.rules = append(a.rules, r)
	}
	return a, nil
}

// Rules returns a copy of the parsed rules, in the order given.
func (a *AllowList) Rules() []Rule {
	if a == nil {
		return nil
	}
	return slices.Clone(a.rules)
}

// Allows reports whether a request for h on port may go out: a name by
// an exact or suffix rule, an address by an address rule, on a port the
// rule allows.
func (a *AllowList) Allows(h Host, port uint16) bool {
	if a == nil {
		return false
	}
	for _, r := range a.rules {
		if !r.allowsPort(port) {
			continue
		}
		switch {
		case h.Name == "":
			if r.Addr.IsValid() && r.Addr == h.Addr {
				return true
			}
		case r.Suffix:
			if strings.HasSuffix(h.Name, "."+r.Name) {
				return true
			}
		case r.Name == h.Name:
			return true
		}
	}
	return false
}

// AllowsAddr reports whether addr on port is allowed by an address rule,
// which lets an allowed name resolve to a non-public address.
func (a *AllowList) AllowsAddr(addr netip.Addr, port uint16) bool {
	return a.Allows(Host{Addr: addr.Unmap()}, port)
}
