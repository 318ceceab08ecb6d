package exec

import (
	"bytes"
	"errors"
	"strings"
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
// backslash-newline continuations) and returns its keys in order. Nothing
// is run and nothing else is read: the protected-set check must start no
// program (a `git` on PATH may be one the command planted). It is
// stricter than git where git's rules are obscure: anything it does not
// understand is errGitConfig, never a guess.
func parseGitConfig(b []byte) ([]gitConfigEntry, error) {
	if bytes.IndexByte(b, 0) >= 0 {
		return nil, errGitConfig
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	s := string(b)
	var out []gitConfigEntry
	section := "" // "section" or "section.subsection", as keys get it
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\n' || c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '#' || c == ';':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '[':
			sec, n, err := parseSectionHeader(s[i:])
			if err != nil {
				return nil, err
			}
			section, i = sec, i+n
		case isAlpha(c):
			if section == "" {
				return nil, errGitConfig
			}
			j := i
			for j < len(s) && (isAlpha(s[j]) || s[j] >= '0' && s[j] <= '9' || s[j] == '-') {
				j++
			}
			name := strings.ToLower(s[i:j])
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			val := ""
			switch {
			case j >= len(s) || s[j] == '\n' || s[j] == '#' || s[j] == ';' || s[j] == '\r':
				// A key alone: boolean true. The rest of the line is
				// a comment or nothing.
				for j < len(s) && (s[j] == '\r' || s[j] == ' ' || s[j] == '\t') {
					j++
				}
				if j < len(s) && (s[j] == '#' || s[j] == ';') {
					for j < len(s) && s[j] != '\n' {
						j++
					}
				}
				if j < len(s) && s[j] != '\n' {
					return nil, errGitConfig
				}
			case s[j] == '=':
				v, n, err := parseConfigValue(s[j+1:])
				if err != nil {
					return nil, err
				}
				val, j = v, j+1+n
			default:
				return nil, errGitConfig
			}
			out = append(out, gitConfigEntry{Key: section + "." + name, Value: val})
			i = j
		default:
			return nil, errGitConfig
		}
	}
	return out, nil
}

// parseSectionHeader reads a header starting at s[0] == '[' and returns
// the key prefix and the bytes read.
func parseSectionHeader(s string) (string, int, error) {
	i := 1
	j := i
	for j < len(s) && (isAlpha(s[j]) || s[j] >= '0' && s[j] <= '9' || s[j] == '-' || s[j] == '.') {
		j++
	}
	name := s[i:j]
	if name == "" || j >= len(s) {
		return "", 0, errGitConfig
	}
	if s[j] == ']' {
		// [section] or the old [section.sub] (both lower-cased).
		if strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") {
			return "", 0, errGitConfig
		}
		return strings.ToLower(name), j + 1, nil
	}
	if s[j] != ' ' && s[j] != '\t' || strings.Contains(name, ".") {
		return "", 0, errGitConfig
	}
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	if j >= len(s) || s[j] != '"' {
		return "", 0, errGitConfig
	}
	j++
	var sub strings.Builder
	for {
		if j >= len(s) || s[j] == '\n' {
			return "", 0, errGitConfig
		}
		c := s[j]
		if c == '"' {
			j++
			break
		}
		if c == '\\' {
			j++
			if j >= len(s) || s[j] == '\n' {
				return "", 0, errGitConfig
			}
			c = s[j]
		}
		sub.WriteByte(c)
		j++
	}
	if j >= len(s) || s[j] != ']' {
		return "", 0, errGitConfig
	}
	return strings.ToLower(name) + "." + sub.String(), j + 1, nil
}

// parseConfigValue reads a value after `=` up to the end of its line
// (after continuations) and returns it and the bytes read.
func parseConfigValue(s string) (string, int, error) {
	var v strings.Builder
	quoted := false
	pendingSpace := 0 // unquoted whitespace kept only if more follows
	i := 0
	for j := 0; j < len(s) && (s[j] == ' ' || s[j] == '\t'); j++ {
		i = j + 1
	}
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\n':
			if quoted {
				return "", 0, errGitConfig
			}
			return v.String(), i, nil
		case !quoted && (c == '#' || c == ';'):
			for i < len(s) && s[i] != '\n' {
				i++
			}
			return v.String(), i, nil
		case !quoted && (c == ' ' || c == '\t' || c == '\r'):
			pendingSpace++
			i++
			continue
		case c == '"':
			if pendingSpace > 0 && v.Len() > 0 {
				v.WriteString(strings.Repeat(" ", pendingSpace))
			}
			quoted = !quoted
			pendingSpace = 0
			i++
		case c == '\\':
			if i+1 >= len(s) {
				return "", 0, errGitConfig
			}
			i++
			switch s[i] {
			case '\n':
				// continuation
			case '\r':
				if i+1 < len(s) && s[i+1] == '\n' {
					i++
				} else {
					return "", 0, errGitConfig
				}
			case 'n':
				v.WriteByte('\n')
			case 't':
				v.WriteByte('\t')
			case 'b':
				v.WriteByte('\b')
			case '\\', '"':
				v.WriteByte(s[i])
			default:
				return "", 0, errGitConfig
			}
			i++
		default:
			if pendingSpace > 0 && v.Len() > 0 {
				v.WriteString(strings.Repeat(" ", pendingSpace))
			}
			v.WriteByte(c)
			pendingSpace = 0
			i++
		}
	}
	if quoted {
		return "", 0, errGitConfig
	}
	return v.String(), i, nil
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
