package exec

import (
	"path"
	"strings"
)

// scrubEnv returns env without the variables that look like credentials
// (DefaultScrubEnv and sb.ScrubEnv), except those named in sb.AllowEnv,
// and the names it dropped.
func (sb *Sandbox) scrubEnv(env []string) (kept, dropped []string) {
	kept = env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if sb.credentialName(name) {
			dropped = append(dropped, name)
			continue
		}
		kept = append(kept, kv)
	}
	return kept, dropped
}

// credentialName reports whether the variable name is not passed.
func (sb *Sandbox) credentialName(name string) bool {
	for _, a := range sb.AllowEnv {
		if a == name {
			return false
		}
	}
	up := strings.ToUpper(name)
	for _, list := range [][]string{DefaultScrubEnv, sb.ScrubEnv} {
		for _, pat := range list {
			if ok, _ := path.Match(strings.ToUpper(pat), up); ok {
				return true
			}
		}
	}
	return false
}
