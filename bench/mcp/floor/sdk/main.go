// Command sdk links the MCP Go SDK's mcp package and does nothing: what
// linking it adds to every start of a binary, for bench/mcp.
package main

import _ "github.com/modelcontextprotocol/go-sdk/mcp"

func main() {}
