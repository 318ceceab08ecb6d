package exec

import (
	"bytes"
	"errors"
)

// errGitConfig is the error of a config text this parser does not accept.
// The protected-set check treats such a config as unsafe: it is restored.
var errGitConfig = errors.New("exec: git config does not parse")

// gitConfigEntry is one key of a git config file: Key as git lists it
// (section and name lower-cased, the subsection as written), and its
// value ("" for a key given without `=`).
type gitConfigEntry struct {
	Key, Value string
}

// parseGitConfig reads git's config syntax ([section], [section "sub"],
// the old [section.sub], key = value with quotes, escapes, comments and
// backslash-newline continuations) and returns its keys in order. It is a
// port of git's config.c parser (git_parse_source, get_base_var,
// get_extended_base_var, get_value, parse_value), checked against git by
// TestParseGitConfigMatchesGit and FuzzParseGitConfig. Nothing is run
// and nothing else is read: the protected-set check must start no program
// (a `git` on PATH may be one the command planted). Where git's rules are
// obscure it is stricter than git: anything it does not accept is
// errGitConfig, never a guess.
func parseGitConfig(b []byte) ([]gitConfigEntry, error) {
	if bytes.IndexByte(b, 0) >= 0 {
		return nil, errGitConfig
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	r := &cfgReader{s: string(b)}
	var out []gitConfigEntry
	section := ""
	comment := false
	for {
		c := r.get()
		if c == '\n' {
			if r.eof {
				return out, nil
			}
			comment = false
			continue
		}
		if comment || isSpace(c) {
			continue
		}
		if c == '#' || c == ';' {
			comment = true
			continue
		}
		if c == '[' {
			sec, err := r.header()
			if err != nil {
				return nil, err
			}
			section = sec
			continue
		}
		if !isAlpha(c) || section == "" {
			return nil, errGitConfig
		}
		name := []byte{lower(c)}
		for {
			c = r.get()
			if r.eof || !isKeyChar(c) {
				break
			}
			name = append(name, lower(c))
		}
		for c == ' ' || c == '\t' {
			c = r.get()
		}
		val := ""
		if c != '\n' {
			if c != '=' {
				return nil, errGitConfig
			}
			v, err := r.value()
			if err != nil {
				return nil, err
			}
			val = v
		}
		out = append(out, gitConfigEntry{Key: section + "." + string(name), Value: val})
		if r.eof {
			return out, nil
		}
	}
}

// cfgReader gives the text a byte at a time as git's get_next_char does:
// "\r\n" is '\n', and the end is a '\n' with eof set.
type cfgReader struct {
	s   string
	i   int
	eof bool
}

func (r *cfgReader) get() byte {
	if r.i >= len(r.s) {
		r.eof = true
		return '\n'
	}
	c := r.s[r.i]
	r.i++
	if c == '\r' && r.i < len(r.s) && r.s[r.i] == '\n' {
		r.i++
		c = '\n'
	}
	return c
}

// header reads a section header after its '[' and returns the key
// prefix: the section lower-cased, then "." and the subsection as written
// for [section "sub"].
func (r *cfgReader) header() (string, error) {
	var name []byte
	for {
		c := r.get()
		if r.eof {
			return "", errGitConfig
		}
		if c == ']' {
			if len(name) == 0 || name[0] == '.' || name[len(name)-1] == '.' || bytes.Contains(name, []byte("..")) {
				return "", errGitConfig
			}
			return string(name), nil
		}
		if isSpace(c) {
			if len(name) == 0 || bytes.IndexByte(name, '.') >= 0 {
				return "", errGitConfig
			}
			return r.subsection(string(name), c)
		}
		if !isKeyChar(c) && c != '.' {
			return "", errGitConfig
		}
		name = append(name, lower(c))
	}
}

// subsection reads ` "sub"]` after a section name, c being the first
// space.
func (r *cfgReader) subsection(section string, c byte) (string, error) {
	for {
		if c == '\n' {
			return "", errGitConfig
		}
		c = r.get()
		if !isSpace(c) {
			break
		}
	}
	if c != '"' {
		return "", errGitConfig
	}
	var sub []byte
	for {
		c := r.get()
		if c == '\n' {
			return "", errGitConfig
		}
		if c == '"' {
			break
		}
		if c == '\\' {
			if c = r.get(); c == '\n' {
				return "", errGitConfig
			}
		}
		sub = append(sub, c)
	}
	if r.get() != ']' {
		return "", errGitConfig
	}
	return section + "." + string(sub), nil
}

// value reads a value after its '=' to the end of its line (after
// continuations), as git's parse_value.
func (r *cfgReader) value() (string, error) {
	var v []byte
	quote, comment := false, false
	space := 0
	for {
		c := r.get()
		if c == '\n' {
			if quote {
				return "", errGitConfig
			}
			return string(v), nil
		}
		if comment {
			continue
		}
		if isSpace(c) && !quote {
			if len(v) > 0 {
				space++
			}
			continue
		}
		if !quote && (c == ';' || c == '#') {
			comment = true
			continue
		}
		for ; space > 0; space-- {
			v = append(v, ' ')
		}
		if c == '\\' {
			c = r.get()
			switch c {
			case '\n':
				if r.eof {
					return "", errGitConfig
				}
				continue
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'n':
				c = '\n'
			case '\\', '"':
			default:
				return "", errGitConfig
			}
			v = append(v, c)
			continue
		}
		if c == '"' {
			quote = !quote
			continue
		}
		v = append(v, c)
	}
}

func isAlpha(c byte) bool   { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isKeyChar(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' || c == '-' }
func isSpace(c byte) bool   { return c == ' ' || c == '\t' || c == '\n' || c == '\r' } // git's sane_ctype: no \v, \f
func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
