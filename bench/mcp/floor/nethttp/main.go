// Command nethttp links net/http and does nothing: what linking it (as the
// MCP SDK does) adds to every start, for bench/mcp.
package main

import _ "net/http"

func main() {}
