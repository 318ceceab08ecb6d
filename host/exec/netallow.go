package exec

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/agenthost/agenthost/host/exec/internal/netproxy"
)

// ErrBadAllowNet is wrapped by the error of a sandboxed run whose
// Sandbox.AllowNet holds an entry that names no host (a bad port, a
// byte no name may hold, a whole top-level domain such as "*.com", a
// name outside ASCII: write it as punycode). The message names the
// entry; nothing was started.
var ErrBadAllowNet = errors.New("exec: --allow-net (Sandbox.AllowNet)")

// nsProxyPort is where the proxy listens inside the network namespace
// of a command (Sandbox.AllowNet with namespaces): the namespace is new
// and holds nothing else, so the port is always free, and the proxy
// variables can be set before the listener exists.
const nsProxyPort = 3128

// proxyTestConfig, set by tests only, adjusts every proxy's Config (a
// resolver and a dialer that map test names to the test's listeners on
// loopback, never the machine's DNS).
var proxyTestConfig func(*netproxy.Config)

// allowList parses sb.AllowNet (nil when the run is not proxied).
func allowList(sb *Sandbox) (*netproxy.AllowList, error) {
	if !sb.proxied() {
		return nil, nil
	}
	a, err := netproxy.ParseAllowList(sb.AllowNet)
	if err != nil {
		// The proxy's own sentinels are internal: the text, without
		// their package's name, says which entry and why.
		return nil, fmt.Errorf("%w: %s", ErrBadAllowNet, strings.ReplaceAll(err.Error(), "netproxy: ", ""))
	}
	return a, nil
}

// startProxy starts the run's proxy for allow, serving ln (nil: a new
// listener on 127.0.0.1, port picked by the kernel). It runs until
// closed, outside the sandbox, with this process's network and DNS.
func startProxy(allow *netproxy.AllowList, ln net.Listener) (*netproxy.Server, error) {
	cfg := netproxy.Config{Allow: allow, Listener: ln}
	if proxyTestConfig != nil {
		proxyTestConfig(&cfg)
	}
	srv, err := netproxy.Start(context.Background(), cfg)
	if err != nil {
		return nil, fmt.Errorf("exec: network proxy: %w", err)
	}
	return srv, nil
}

// netDenied moves what srv refused into rep.
func netDenied(rep *Report, srv *netproxy.Server) {
	ds, more := srv.Denied()
	for _, d := range ds {
		rep.NetDenied = append(rep.NetDenied, NetDenial{
			Host: d.Host, Port: int(d.Port), Count: d.Count,
			Reason: string(d.Reason), Detail: d.Detail, Message: d.Message(),
		})
	}
	rep.NetDeniedMore = more
}
