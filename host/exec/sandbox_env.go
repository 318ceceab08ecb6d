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
		if sb.credentialName(name) || urlWithPassword(kv[len(name):]) && !sb.allowed(name) {
			dropped = append(dropped, name)
			continue
		}
		kept = append(kept, kv)
	}
	return kept, dropped
}

// allowed reports whether sb.AllowEnv names the variable.
func (sb *Sandbox) allowed(name string) bool {
	for _, a := range sb.AllowEnv {
		if a == name {
			return true
		}
	}
	return false
}

// urlWithPassword reports whether v holds a URL with a password in it:
// scheme://user:password@host.
func urlWithPassword(v string) bool {
	for {
		i := strings.Index(v, "://")
		if i < 0 {
			return false
		}
		v = v[i+3:]
		auth := v
		if j := strings.IndexAny(auth, "/?# \t\n"); j >= 0 {
			auth = auth[:j]
		}
		if at := strings.LastIndexByte(auth, '@'); at >= 0 {
			if c := strings.IndexByte(auth[:at], ':'); c >= 0 && c < at-1 {
				return true
			}
		}
	}
}

// credentialName reports whether the variable name is not passed.
func (sb *Sandbox) credentialName(name string) bool {
	if sb.allowed(name) {
		return false
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
