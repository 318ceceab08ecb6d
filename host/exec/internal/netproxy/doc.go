// Package netproxy is the network-by-name proxy of the exec sandbox
// (issue 24): an HTTP proxy run by the Host outside the sandbox,
// listening on 127.0.0.1 (or on a listener it is given, such as one made
// inside the command's network namespace), through which a sandboxed command reaches only the hosts its
// policy names.
//
// What it guarantees, for every connection it accepts:
//
//   - The requested name is normalised (lower case, one trailing dot
//     removed) and checked before it is matched: a name that no DNS host
//     name may hold (NUL, a space, a control byte, any byte but a letter,
//     digit, '-', '_' or '.', an empty label or one over 63 bytes, a
//     numeric last label that a resolver would read as an address) is
//     refused with ErrBadName, and a name outside ASCII with ErrNonASCII
//     (write it in punycode, "xn--..."; the clients people run through a
//     proxy already do).
//   - Only a name, suffix or address literal of the AllowList, on one of
//     its ports, is dialled.
//   - The name is resolved once, here, with the Resolver of the Config;
//     every address is checked and the checked address is dialled. A
//     name that resolves to a loopback, private, link-local, unspecified
//     or otherwise non-public address is refused unless that address is
//     itself in the AllowList as a literal (DNS rebinding).
//   - A CONNECT carries TLS: the ClientHello is read before a byte goes
//     upstream, and its server name (SNI) must be the CONNECT's name. No
//     SNI, another SNI, or bytes that are not a ClientHello (a second
//     CONNECT inside the first, SSH, plain HTTP) are refused.
//   - A plain-HTTP request is one absolute-URI request per connection:
//     its Host header must agree with the URI, it is forwarded with
//     "Connection: close", and nothing the client sends after it is read.
//     So no CONNECT can be relayed inside a plain-HTTP stream.
//   - A request naming the proxy's own address is refused (no relays
//     through itself).
//   - Connections, bytes in flight (one fixed buffer per direction), the
//     time to a complete request head and ClientHello, and idle time are
//     bounded (Config); the Server's context ends every connection.
//
// What it does not promise: once the TLS stream is open its contents are
// opaque, so an allowed host that fronts others (a CDN honouring a
// different HTTP Host inside TLS, an allowed host that is itself an open
// proxy) reaches whatever it fronts. Allow names, not shared fronts.
//
// The package does not confine the command: the sandbox's network
// namespace (a forwarder to this proxy as the only way out) or Landlock's
// TCP rule (only this proxy's port) and seccomp (no UDP) do. See
// docs/adr for the design.
package netproxy
