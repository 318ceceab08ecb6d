package netproxy

import (
	"fmt"
	"slices"
	"strconv"
	"sync"
)

// Reason says why a request was refused.
type Reason string

// The reasons a request is refused. Only ReasonNotAllowed is fixed by
// widening the allow list with the name; the others are refused
// whatever the list says (except ReasonPrivate, fixed by allowing the
// address as well).
const (
	ReasonNotAllowed Reason = "not allowed"         // the name or address is not in the allow list on that port
	ReasonBadName    Reason = "not a host name"     // the name failed NormalizeName, or the port ParsePort
	ReasonPrivate    Reason = "non-public address"  // the name resolved to a loopback, private, ... address not itself allowed
	ReasonSNI        Reason = "TLS name differs"    // the ClientHello after CONNECT had no SNI or another one
	ReasonHost       Reason = "Host header differs" // a plain-HTTP request's Host header names another host or port
	ReasonNotTLS     Reason = "not TLS"             // the bytes after CONNECT were not a TLS ClientHello
	ReasonRelay      Reason = "relay"               // the request named the proxy itself
)

// maxDenied bounds the distinct host:port entries the record keeps: a
// command trying a million names costs the Host a counter, not a map.
const maxDenied = 256

// Denial is one refused host:port with the number of refusals and the
// reason of the first one.
type Denial struct {
	Host   string // normalised name or address ([v6] bracketed), or the quoted raw text when it was no name
	Port   uint16 // 0 when the request had no valid port
	Count  int
	Reason Reason
	Detail string // what was seen: the SNI, the Host header, the address it resolved to
}

// HostPort writes the denial's target as "host:port".
func (d Denial) HostPort() string {
	return d.Host + ":" + strconv.Itoa(int(d.Port))
}

// Message is the one line agent-host prints after a run, e.g.
//
//	network: refused example.org:443 (3 times); --allow-net example.org allows it
func (d Denial) Message() string {
	times := "1 time"
	if d.Count != 1 {
		times = strconv.Itoa(d.Count) + " times"
	}
	head := fmt.Sprintf("network: refused %s (%s)", d.HostPort(), times)
	if d.Port == 22 && (d.Reason == ReasonNotAllowed || d.Reason == ReasonNotTLS) {
		return head + ": SSH does not go through the proxy (the keys are not in the sandbox); use an https:// remote"
	}
	switch d.Reason {
	case ReasonNotAllowed:
		entry := d.Host
		if !slices.Contains(DefaultPorts, d.Port) {
			entry = d.HostPort()
		}
		return head + "; --allow-net " + entry + " allows it"
	case ReasonPrivate:
		entry := d.Detail
		if !slices.Contains(DefaultPorts, d.Port) {
			entry += ":" + strconv.Itoa(int(d.Port))
		}
		return head + ": it resolves to " + d.Detail + ", which is not a public address; --allow-net " + entry + " allows that address too"
	case ReasonSNI:
		return head + ": the TLS server name was " + d.Detail
	case ReasonHost:
		return head + ": the Host header was " + d.Detail
	case ReasonNotTLS:
		return head + ": only TLS goes through a CONNECT (" + d.Detail + ")"
	case ReasonRelay:
		return head + ": that is the proxy itself"
	default:
		return head + ": " + string(d.Reason) + " " + d.Detail
	}
}

// denials is the record behind Server.Denied.
type denials struct {
	mu      sync.Mutex
	byKey   map[string]int // host:port -> index in list
	list    []Denial
	dropped int
}

func (r *denials) add(d Denial) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := d.HostPort()
	if i, ok := r.byKey[key]; ok {
		r.list[i].Count++
		return
	}
	if len(r.list) >= maxDenied {
		r.dropped++
		return
	}
	if r.byKey == nil {
		r.byKey = make(map[string]int)
	}
	d.Count = 1
	r.byKey[key] = len(r.list)
	r.list = append(r.list, d)
}

func (r *denials) snapshot() ([]Denial, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.list), r.dropped
}
