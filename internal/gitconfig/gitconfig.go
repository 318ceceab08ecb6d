// Package gitconfig reads git's config file syntax as git does. It is a
// port of git's config.c parser, checked against git (the table test and
// FuzzParseGitConfig run git as the oracle). It runs nothing and reads
// nothing itself: Parse takes the bytes of one file, and a Loader follows
// includes through the caller's functions (which file a path names, its
// bytes, whether a condition holds), with git's depth limit and bounds on
// size, count and time (FuzzConfigIncludes checks it against git).
package gitconfig

import (
	"bytes"
	"errors"
	"strings"
)

// ErrSyntax is the error of a config text this parser does not accept:
// one git refuses too, or one where git's rules are obscure and the parser
// is stricter than git.
var ErrSyntax = errors.New("gitconfig: git config does not parse")

// Entry is one key of a git config file: Key as git lists it (section and
// name lower-cased, the subsection as written: "core.hookspath",
// `remote.Origin.url`), and its value ("" for a key given without `=`,
// which also sets NoValue; git reads such a boolean as true). File is
// the name of the file holding it when a Loader read it ("" from Parse).
type Entry struct {
	Key, Value string
	NoValue    bool
	File       string
}

// Section returns the section of e's key, lower-cased ("core").
func (e Entry) Section() string {
	s, _, _ := strings.Cut(e.Key, ".")
	return s
}

// Subsection returns the subsection of e's key as written ("" when the key
// has none: `[core]`; for the old `[section.sub]` form, lower-cased, as
// git reads it). An empty subsection (`[core ""]`, key "core..name") is
// also "": the key itself tells the two apart.
func (e Entry) Subsection() string {
	first, last := strings.IndexByte(e.Key, '.'), strings.LastIndexByte(e.Key, '.')
	if first < 0 || first == last {
		return ""
	}
	return e.Key[first+1 : last]
}

// Name returns the variable name of e's key, lower-cased ("hookspath").
func (e Entry) Name() string {
	return e.Key[strings.LastIndexByte(e.Key, '.')+1:]
}

// Parse reads git's config syntax ([section], [section "sub"], the old
// [section.sub], key = value with quotes, escapes, comments and
// backslash-newline continuations) and returns its keys in order. It is a
// port of git's config.c parser (git_parse_source, get_base_var,
// get_extended_base_var, get_value, parse_value). Nothing is run and
// nothing else is read: a caller that must start no program (a `git` on
// PATH may be one an agent planted) can use it. Where git's rules are
// obscure it is stricter than git: a text it does not accept gives
// ErrSyntax, never a guess, together with the entries before the point
// where it stopped (git refuses the whole file; a caller decides whether
// the part it read is of use).
func Parse(b []byte) ([]Entry, error) {
	if bytes.IndexByte(b, 0) >= 0 {
		return nil, ErrSyntax
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	r := &cfgReader{s: string(b)}
	var out []Entry
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
				return out, err
			}
			section = sec
			continue
		}
		if !isAlpha(c) || section == "" {
			return out, ErrSyntax
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
		val, noValue := "", true
		if c != '\n' {
			if c != '=' {
				return out, ErrSyntax
			}
			v, err := r.value()
			if err != nil {
				return out, err
			}
			val, noValue = v, false
		}
		out = append(out, Entry{Key: section + "." + string(name), Value: val, NoValue: noValue})
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
			return "", ErrSyntax
		}
		if c == ']' {
			if len(name) == 0 || name[0] == '.' || name[len(name)-1] == '.' || bytes.Contains(name, []byte("..")) {
				return "", ErrSyntax
			}
			return string(name), nil
		}
		if isSpace(c) {
			if len(name) == 0 || bytes.IndexByte(name, '.') >= 0 {
				return "", ErrSyntax
			}
			return r.subsection(string(name), c)
		}
		if !isKeyChar(c) && c != '.' {
			return "", ErrSyntax
		}
		name = append(name, lower(c))
	}
}

// subsection reads ` "sub"]` after a section name, c being the first
// space.
func (r *cfgReader) subsection(section string, c byte) (string, error) {
	for {
		if c == '\n' {
			return "", ErrSyntax
		}
		c = r.get()
		if !isSpace(c) {
			break
		}
	}
	if c != '"' {
		return "", ErrSyntax
	}
	var sub []byte
	for {
		c := r.get()
		if c == '\n' {
			return "", ErrSyntax
		}
		if c == '"' {
			break
		}
		if c == '\\' {
			if c = r.get(); c == '\n' {
				return "", ErrSyntax
			}
		}
		sub = append(sub, c)
	}
	if r.get() != ']' {
		return "", ErrSyntax
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
				return "", ErrSyntax
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
					return "", ErrSyntax
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
				return "", ErrSyntax
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
