// Command empty does nothing: the floor of a Go process's start on this
// machine, for bench/mcp.
package main

func main() {}
