package exec

import (
	"path"
	"strings"
)

// scrubEnv returns env without the variables that look like credentials
// (DefaultScrubEnv and sb.ScrubEnv), except those named in sb.AllowEnv,
// and the names it dropped.
func (sb *Sandbox) scrubEnv(env []string) (kept, dropped []string) {
	pats := compileEnvPatterns(DefaultScrubEnv, sb.ScrubEnv)
	kept = env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if sb.credentialName(name, pats) || urlWithPassword(kv[len(name):]) && !sb.allowed(name) {
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
func (sb *Sandbox) credentialName(name string, pats []envPattern) bool {
	if sb.allowed(name) {
		return false
	}
	up := strings.ToUpper(name)
	for _, p := range pats {
		if p.match(up) {
			return true
		}
	}
	return false
}

// envPattern is a scrub pattern, upper-cased, ready to match: the lists
// are matched against every variable of every sandboxed command, and
// path.Match with an upper-casing per pair was a twentieth of the
// process's time in agent-host exec.
type envPattern struct {
	pat   string   // upper-cased
	parts []string // split at '*' when '*' is its only metacharacter
}

func compileEnvPatterns(lists ...[]string) []envPattern {
	var out []envPattern
	for _, list := range lists {
		for _, pat := range list {
			p := envPattern{pat: strings.ToUpper(pat)}
			if !strings.ContainsAny(p.pat, `?[\`) {
				p.parts = strings.Split(p.pat, "*")
			}
			out = append(out, p)
		}
	}
	return out
}

// match is path.Match(p.pat, up), with a fast path for a pattern whose
// only metacharacter is '*' and a name without '/' (which '*' would not
// cross).
func (p envPattern) match(up string) bool {
	if p.parts == nil || strings.Contains(up, "/") {
		ok, _ := path.Match(p.pat, up)
		return ok
	}
	if len(p.parts) == 1 {
		return up == p.pat
	}
	first, last := p.parts[0], p.parts[len(p.parts)-1]
	if len(up) < len(first)+len(last) || !strings.HasPrefix(up, first) || !strings.HasSuffix(up, last) {
		return false
	}
	mid := up[len(first) : len(up)-len(last)]
	for _, part := range p.parts[1 : len(p.parts)-1] {
		i := strings.Index(mid, part)
		if i < 0 {
			return false
		}
		mid = mid[i+len(part):]
	}
	return true
}

// dedupEnv returns env with one entry per variable, the last one given
// (as os/exec does): the helper passes the command's environment as it
// gets it, and a program's getenv takes the first of two.
func dedupEnv(env []string) []string {
	seen := make(map[string]bool, len(env))
	out := make([]string, len(env))
	n := len(env)
	for i := len(env) - 1; i >= 0; i-- {
		kv := env[i]
		k := kv
		if eq := strings.IndexByte(kv, '='); eq >= 0 {
			k = kv[:eq]
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		n--
		out[n] = kv
	}
	return out[n:]
}
