package netproxy

// Env returns the environment a sandboxed command gets so that its
// HTTP clients go through the proxy at addr ("127.0.0.1:PORT", as the
// command sees it; in a network namespace, the forwarder's address):
// HTTP_PROXY, HTTPS_PROXY and ALL_PROXY and their lower-case forms (curl
// and git read only http_proxy in lower case) set to "http://addr", and
// NO_PROXY and no_proxy set empty so that an inherited value cannot send
// a host around the proxy (it could not get out anyway; the point is an
// error that names the proxy rather than a timeout).
func Env(addr string) []string {
	u := "http://" + addr
	return []string{
		"HTTP_PROXY=" + u,
		"HTTPS_PROXY=" + u,
		"ALL_PROXY=" + u,
		"http_proxy=" + u,
		"https_proxy=" + u,
		"all_proxy=" + u,
		"NO_PROXY=",
		"no_proxy=",
	}
}
