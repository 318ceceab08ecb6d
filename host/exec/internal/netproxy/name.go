package netproxy

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// Errors of names, ports and allow-list entries. Each error returned by
// this package wraps exactly one of them, so errors.Is tells the kinds
// apart; the message names the offending text, quoted.
var (
	// ErrBadName: not a host name a DNS resolver would look up as such
	// (NUL or another byte no name may hold, an empty or too long label,
	// a numeric last label, a zone in an address).
	ErrBadName = errors.New("netproxy: not a host name")
	// ErrNonASCII: a name outside ASCII. Internationalised names are
	// matched in their ASCII form only: write "xn--...".
	ErrNonASCII = errors.New("netproxy: a name outside ASCII (write it as punycode, xn--...)")
	// ErrBadPort: not a decimal port from 1 to 65535.
	ErrBadPort = errors.New("netproxy: not a port")
	// ErrBadEntry: an allow-list entry of no known form ("*" alone, a
	// wildcard elsewhere than a leading "*.", a one-label suffix).
	ErrBadEntry = errors.New("netproxy: not an allow-list entry")
)

const (
	maxNameLen  = 253 // RFC 1035: 255 octets on the wire, 253 written
	maxLabelLen = 63
)

// Host is a request's target once normalised: a Name (lower case, no
// trailing dot, ASCII) or an Addr (unmapped, no zone), never both.
type Host struct {
	Name string
	Addr netip.Addr
}

// String gives the name, the IPv4 address, or the IPv6 address in
// brackets, as it would be written before ":port".
func (h Host) String() string {
	if h.Name != "" {
		return h.Name
	}
	if h.Addr.Is6() {
		return "[" + h.Addr.String() + "]"
	}
	return h.Addr.String()
}

// NormalizeName returns the name s in the form the allow list matches:
// lower case, one trailing dot removed. It returns an error wrapping
// ErrNonASCII for a byte outside ASCII and ErrBadName for everything
// else a host name may not be: empty, longer than 253 bytes, an empty
// label ("a..b", two trailing dots), a label over 63 bytes or starting
// or ending with '-', a byte other than a letter, digit, '-', '_' or
// '.', or a last label starting with a digit (a resolver would read
// "127.1" or "0x7f.1" as an address).
func NormalizeName(s string) (string, error) {
	if s == "" {
		return "", fmt.Errorf("%w: empty", ErrBadName)
	}
	if len(s) > maxNameLen+1 {
		return "", fmt.Errorf("%w: %d bytes, longer than %d", ErrBadName, len(s), maxNameLen)
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return "", fmt.Errorf("%w: %s", ErrNonASCII, quote(s))
		}
	}
	name := strings.ToLower(strings.TrimSuffix(s, "."))
	if name == "" || len(name) > maxNameLen {
		return "", fmt.Errorf("%w: %s", ErrBadName, quote(s))
	}
	last := ""
	for label := range strings.SplitSeq(name, ".") {
		if err := checkLabel(label); err != nil {
			return "", fmt.Errorf("%w: %s: %v", ErrBadName, quote(s), err)
		}
		last = label
	}
	if last[0] >= '0' && last[0] <= '9' {
		return "", fmt.Errorf("%w: %s: the last label is numeric (an address is written as one)", ErrBadName, quote(s))
	}
	return name, nil
}

func checkLabel(label string) error {
	if label == "" {
		return errors.New("an empty label")
	}
	if len(label) > maxLabelLen {
		return fmt.Errorf("a label of %d bytes, more than %d", len(label), maxLabelLen)
	}
	if label[0] == '-' || label[len(label)-1] == '-' {
		return errors.New("a label starting or ending with '-'")
	}
	for i := 0; i < len(label); i++ {
		c := label[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_':
		default:
			return fmt.Errorf("the byte %q", c)
		}
	}
	return nil
}

// ParseHost parses the host part of a request target, brackets already
// removed (as net.SplitHostPort and url.URL.Hostname give it): an IPv4
// address in dotted-quad form, an IPv6 address (no zone), or a name for
// NormalizeName. An IPv4-mapped IPv6 address is returned as IPv4.
func ParseHost(s string) (Host, error) {
	if strings.Contains(s, ":") {
		a, err := netip.ParseAddr(s)
		if err != nil || !a.Is6() {
			return Host{}, fmt.Errorf("%w: %s", ErrBadName, quote(s))
		}
		if a.Zone() != "" {
			return Host{}, fmt.Errorf("%w: %s: an address with a zone", ErrBadName, quote(s))
		}
		return Host{Addr: a.Unmap()}, nil
	}
	if a, err := netip.ParseAddr(s); err == nil && a.Is4() {
		return Host{Addr: a}, nil
	}
	name, err := NormalizeName(s)
	if err != nil {
		return Host{}, err
	}
	return Host{Name: name}, nil
}

// ParsePort parses a decimal port from 1 to 65535; anything else is an
// error wrapping ErrBadPort.
func ParsePort(s string) (uint16, error) {
	if s == "" || len(s) > 5 {
		return 0, fmt.Errorf("%w: %s", ErrBadPort, quote(s))
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("%w: %s", ErrBadPort, quote(s))
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 {
		return 0, fmt.Errorf("%w: %s", ErrBadPort, quote(s))
	}
	return uint16(n), nil
}

// quote writes untrusted text for a message: ASCII only, control bytes
// escaped, cut at 256 bytes.
func quote(s string) string {
	const max = 256
	if len(s) > max {
		return strconv.QuoteToASCII(s[:max]) + "..."
	}
	return strconv.QuoteToASCII(s)
}
