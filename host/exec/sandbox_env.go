package exec

import (
	"path"
	"slices"
	"strings"
	"sync/atomic"
)

// scrubEnv returns env without the variables that look like credentials,
// by name (DefaultScrubEnv and sb.ScrubEnv) or by value (see
// credentialValue), except those named in sb.AllowEnv, and the names it
// dropped.
func (sb *Sandbox) scrubEnv(env []string) (kept, dropped []string) {
	m := envMatcher{def: defaultEnvPatterns(), extra: compileEnvPatterns(sb.ScrubEnv)}
	kept = env[:0:0]
	for _, kv := range env {
		name, val, _ := strings.Cut(kv, "=")
		if !sb.allowed(name) && (m.credentialName(name) || credentialValue(val)) {
			dropped = append(dropped, name)
			continue
		}
		kept = append(kept, kv)
	}
	return kept, dropped
}

// allowed reports whether sb.AllowEnv names the variable.
func (sb *Sandbox) allowed(name string) bool {
	return slices.Contains(sb.AllowEnv, name)
}

// envMatcher holds the compiled name patterns of one scrub.
type envMatcher struct {
	def, extra []envPattern
}

// credentialName reports whether a pattern matches the variable's
// upper-cased name or, when the name holds '/' or ':' (npm's
// npm_config_//registry.npmjs.org/:_authToken), the part after the last
// of them: path.Match's '*' does not cross '/', and such a name is a
// per-URL setting whose key says what it holds.
func (m *envMatcher) credentialName(name string) bool {
	up := strings.ToUpper(name)
	if m.matchAny(up) {
		return true
	}
	if i := strings.LastIndexAny(up, "/:"); i >= 0 && i < len(up)-1 {
		return m.matchAny(up[i+1:])
	}
	return false
}

func (m *envMatcher) matchAny(up string) bool {
	mask := charMask(up)
	for _, pats := range [2][]envPattern{m.def, m.extra} {
		for _, p := range pats {
			if p.mask&^mask == 0 && p.match(up) {
				return true
			}
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
	// mask has a bit for each character the pattern's literal parts
	// hold (see charMask); a name lacking one cannot match, which
	// skips most pairs with an AND. 0 (match always tried) when the
	// pattern has another metacharacter than '*'.
	mask uint64
}

func compileEnvPatterns(lists ...[]string) []envPattern {
	var out []envPattern
	for _, list := range lists {
		for _, pat := range list {
			p := envPattern{pat: strings.ToUpper(pat)}
			if !strings.ContainsAny(p.pat, `?[\`) {
				p.parts = strings.Split(p.pat, "*")
				p.mask = charMask(strings.ReplaceAll(p.pat, "*", ""))
			}
			out = append(out, p)
		}
	}
	return out
}

// charMask has bit c-'A' for a letter, 26+c-'0' for a digit, 36 for '_'
// and 63 for any other byte of s.
func charMask(s string) uint64 {
	var m uint64
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'A' <= c && c <= 'Z':
			m |= 1 << (c - 'A')
		case '0' <= c && c <= '9':
			m |= 1 << (26 + c - '0')
		case c == '_':
			m |= 1 << 36
		default:
			m |= 1 << 63
		}
	}
	return m
}

// compiledDefault is DefaultScrubEnv compiled, with the list it was
// compiled from: a program that changes DefaultScrubEnv gets it compiled
// again at its next scrub.
var compiledDefault atomic.Pointer[struct {
	src  []string
	pats []envPattern
}]

func defaultEnvPatterns() []envPattern {
	if c := compiledDefault.Load(); c != nil && slices.Equal(c.src, DefaultScrubEnv) {
		return c.pats
	}
	src := slices.Clone(DefaultScrubEnv)
	pats := compileEnvPatterns(src)
	compiledDefault.Store(&struct {
		src  []string
		pats []envPattern
	}{src, pats})
	return pats
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

// credentialValue reports whether an environment variable's value holds
// a credential whatever the variable's name: a URL that carries one (see
// urlCredential) or a token of a well-known shape (see tokenInValue).
// It runs on every value of every sandboxed command's environment, so
// it reads each value once, without allocating, and a value without
// "://" costs one search for it plus one pass over its bytes.
func credentialValue(v string) bool {
	if strings.Contains(v, "://") && urlCredential(v) {
		return true
	}
	return len(v) >= minTokenLen && tokenInValue(v)
}

// urlCredential reports whether v holds a URL that carries a credential:
//   - a password in its userinfo (scheme://user:password@host, also
//     x-access-token:TOKEN@ and a user with an empty name);
//   - a userinfo without a password that is a token (scheme://TOKEN@host:
//     a known token shape, or 20 or more letters, digits, '_' and '-'
//     holding both letters and digits; git@, bob@ and first.last@ pass);
//   - a query or fragment parameter named for a secret (see secretParam)
//     with a value: ?access_token=..., &sig=..., #id_token=...;
//   - a well-known webhook endpoint, whose path is its secret (see
//     webhookURL).
func urlCredential(v string) bool {
	for {
		i := strings.Index(v, "://")
		if i < 0 {
			return false
		}
		v = v[i+3:]
		u := v
		if j := strings.IndexAny(u, " \t\r\n\"'<>"); j >= 0 {
			u = u[:j]
		}
		auth, rest := u, ""
		if j := strings.IndexAny(u, "/?#"); j >= 0 {
			auth, rest = u[:j], u[j:]
		}
		host := auth
		if at := strings.LastIndexByte(auth, '@'); at >= 0 {
			user := auth[:at]
			host = auth[at+1:]
			if c := strings.IndexByte(user, ':'); c >= 0 {
				if c < len(user)-1 {
					return true
				}
			} else if tokenUser(user) {
				return true
			}
		}
		if webhookURL(host, rest) || secretQuery(rest) {
			return true
		}
	}
}

// tokenUser reports whether a URL's userinfo without a password is a
// token rather than a user name.
func tokenUser(u string) bool {
	if len(u) >= minTokenLen && knownToken(u, "") {
		return true
	}
	if len(u) < 20 {
		return false
	}
	var letter, digit bool
	for i := 0; i < len(u); i++ {
		switch c := u[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
			letter = true
		case '0' <= c && c <= '9':
			digit = true
		case c == '_' || c == '-':
		default:
			return false
		}
	}
	return letter && digit
}

// webhookURL reports whether host and path (with its query) name a
// well-known incoming webhook, whose URL is all it takes to post as its
// owner.
func webhookURL(host, path string) bool {
	if c := strings.LastIndexByte(host, ':'); c >= 0 {
		host = host[:c]
	}
	host = strings.ToLower(host)
	p := path
	if j := strings.IndexAny(p, "?#"); j >= 0 {
		p = p[:j]
	}
	switch {
	case host == "hooks.slack.com":
		return len(p) > 1
	case host == "discord.com", host == "discordapp.com", strings.HasSuffix(host, ".discord.com"), strings.HasSuffix(host, ".discordapp.com"):
		return strings.HasPrefix(p, "/api/") && strings.Contains(p, "/webhooks/")
	case strings.HasSuffix(host, ".webhook.office.com"):
		return len(p) > 1
	case host == "outlook.office.com":
		return strings.HasPrefix(p, "/webhook")
	case host == "hooks.zapier.com":
		return len(p) > 1
	case host == "maker.ifttt.com":
		return strings.HasPrefix(p, "/trigger/")
	case host == "api.telegram.org":
		return strings.HasPrefix(p, "/bot")
	}
	return false
}

// secretQuery reports whether the query or the fragment of a URL's rest
// (its path onwards) has a parameter named for a secret, with a value.
func secretQuery(rest string) bool {
	j := strings.IndexAny(rest, "?#")
	if j < 0 {
		return false
	}
	q := rest[j+1:]
	for q != "" {
		var kv string
		if k := strings.IndexAny(q, "&;#?"); k >= 0 {
			kv, q = q[:k], q[k+1:]
		} else {
			kv, q = q, ""
		}
		name, val, ok := strings.Cut(kv, "=")
		if ok && val != "" && secretParam(name) {
			return true
		}
	}
	return false
}

// secretParams are the endings of a query parameter's name, lower-cased
// without '_', '-' and '.', that say it holds a secret: token,
// access_token, X-Amz-Security-Token, key, api_key, sig (an Azure SAS),
// X-Amz-Signature, secret, client_secret, password, pwd, auth,
// credential. A parameter ending in "key" that is not a secret (sortkey)
// is rare in an environment variable.
var secretParams = []string{"token", "key", "sig", "signature", "secret", "password", "passwd", "pwd", "auth", "credential", "credentials", "jwt"}

func secretParam(name string) bool {
	var b [32]byte
	n := 0
	for i := len(name) - 1; i >= 0 && n < len(b); i-- {
		c := name[i]
		switch {
		case c == '_' || c == '-' || c == '.':
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		n++
		b[len(b)-n] = c
	}
	norm := string(b[len(b)-n:])
	for _, s := range secretParams {
		if strings.HasSuffix(norm, s) {
			return true
		}
	}
	return false
}

// tokenByte are the bytes of a token: letters, digits, '_' and '-'.
var tokenByte = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
	}
	return t
}()

// minTokenLen is the length of the shortest token knownToken takes (an
// AWS access key id; a JWT is longer).
const minTokenLen = 20

// tokenInValue reports whether v holds, as a whole word (a run of
// tokenByte), a token of a well-known shape (see knownToken), or a PEM
// private key.
func tokenInValue(v string) bool {
	for i := 0; i < len(v); {
		if !tokenByte[v[i]] {
			i++
			continue
		}
		j := i + 1
		for j < len(v) && tokenByte[v[j]] {
			j++
		}
		w := v[i:j]
		if w[0] == '-' && strings.HasSuffix(w, "BEGIN") && strings.HasPrefix(v[j:], " ") {
			// -----BEGIN [RSA |EC |OPENSSH |ENCRYPTED |PGP ]PRIVATE KEY[ BLOCK]-----
			if end := strings.Index(v[j:], "-----"); end >= 0 && strings.Contains(v[j:j+end], "PRIVATE KEY") {
				return true
			}
		}
		if len(w) >= minTokenLen-10 && knownToken(w, v[j:]) {
			return true
		}
		i = j
	}
	return false
}

// tokenPrefixes are the prefixes of the tokens that say what they are
// (GitHub, GitLab, Slack, OpenAI, Anthropic, Stripe, npm, Hugging Face,
// PyPI, ...), each with the fewest characters that must follow it: the
// real tokens are longer, and the minimum keeps a word that merely
// starts like one (sk-learn) from being taken for it.
var tokenPrefixes = []struct {
	prefix string
	min    int
}{
	{"ghp_", 30}, {"gho_", 30}, {"ghu_", 30}, {"ghs_", 30}, {"ghr_", 30}, {"github_pat_", 30},
	{"glpat-", 20}, {"gldt-", 20}, {"glrt-", 20}, {"glptt-", 20}, {"glsoat-", 20}, {"glcbt-", 20},
	{"xoxb-", 20}, {"xoxp-", 20}, {"xoxa-", 20}, {"xoxe-", 20}, {"xoxr-", 20}, {"xoxs-", 20}, {"xapp-", 20},
	{"sk-ant-", 30}, {"sk-proj-", 30}, {"sk_live_", 20}, {"sk_test_", 20}, {"rk_live_", 20}, {"whsec_", 20},
	{"AIza", 35}, {"npm_", 36}, {"hf_", 30}, {"pypi-", 50}, {"dckr_pat_", 20}, {"dop_v1_", 40},
	{"shpat_", 30}, {"glsa_", 30}, {"AGE-SECRET-KEY-1", 50},
}

// knownToken reports whether the word w (a run of tokenByte; after is
// what follows it in the value) is a token of a well-known shape: one of
// tokenPrefixes; sk- with 32 or more characters holding a digit (OpenAI);
// AKIA or ASIA and 16 upper-case letters or digits (an AWS access key
// id); a JWT (eyJ..., '.', eyJ...: two base64url JSON objects). Hex
// strings, however long, are not tokens: a commit id, a checksum or a
// D-Bus guid cannot be told from a hex secret by its value.
func knownToken(w, after string) bool {
	switch w[0] {
	case 'e':
		return len(w) >= 10 && strings.HasPrefix(w, "eyJ") && strings.HasPrefix(after, ".eyJ")
	case 'A':
		if len(w) == 20 && (strings.HasPrefix(w, "AKIA") || strings.HasPrefix(w, "ASIA")) && upperAlnum(w[4:]) {
			return true
		}
	case 's':
		if len(w) >= 3+32 && strings.HasPrefix(w, "sk-") && strings.ContainsAny(w[3:], "0123456789") {
			return true
		}
	}
	if len(w) < minTokenLen {
		return false
	}
	for _, t := range tokenPrefixes {
		if len(w) >= len(t.prefix)+t.min && strings.HasPrefix(w, t.prefix) {
			return true
		}
	}
	return false
}

func upperAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
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
