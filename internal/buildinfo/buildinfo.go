// Package buildinfo says which version of this module a program was built
// from, for agent-host --version, agent-host-mcp --version and the MCP
// server's serverInfo.version, so that all three say the same.
package buildinfo

import "runtime/debug"

// Module is this module's path.
const Module = "github.com/agenthost/agenthost"

// Version returns the version of this module that the running program was
// built from, as the Go toolchain recorded it: the main module's version
// when the program is one of ours (a tag, or a pseudo-version from the VCS
// stamp of a build in a clone), the required version when another module's
// program embeds ours, and "devel" when the build recorded none (a test
// binary, a build with -buildvcs=false, a replace directive).
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return fromInfo(bi)
}

func fromInfo(bi *debug.BuildInfo) string {
	v := ""
	if bi.Main.Path == Module {
		v = bi.Main.Version
	} else {
		for _, d := range bi.Deps {
			if d.Path == Module {
				v = d.Version
				if d.Replace != nil {
					v = d.Replace.Version
				}
				break
			}
		}
	}
	if v == "" || v == "(devel)" {
		return "devel"
	}
	return v
}
