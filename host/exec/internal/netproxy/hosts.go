package netproxy

import (
	_ "embed"
	"slices"
	"strings"
	"sync"
)

//go:embed hosts.txt
var hostsText string

// ToolHost is one line of hosts.txt: a host a package manager needs.
type ToolHost struct {
	Tool  string // "npm", "go", "go-direct", "pip", "cargo", "git", ...
	Entry string // the allow-list entry, as --allow-net takes it
	Why   string
}

// PackageHosts returns the hosts npm, Go, pip, cargo and git need with
// their default configuration, in the file's order. The data lives in
// hosts.txt beside this file, so the README and the list cannot differ.
// The caller may modify the slice it gets.
func PackageHosts() []ToolHost { return slices.Clone(packageHosts()) }

var packageHosts = sync.OnceValue(func() []ToolHost {
	var out []ToolHost
	for line := range strings.Lines(hostsText) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		out = append(out, ToolHost{Tool: f[0], Entry: f[1], Why: strings.Join(f[2:], " ")})
	}
	return out
})

// HostsFor returns the allow-list entries of the named tool ("npm",
// "go", "pip", "cargo", "git", ...), nil for a tool the file does not
// name.
func HostsFor(tool string) []string {
	var out []string
	for _, h := range packageHosts() {
		if h.Tool == tool {
			out = append(out, h.Entry)
		}
	}
	return out
}
