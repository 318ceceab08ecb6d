package exec

import (
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// SeatbeltProfile returns the macOS Seatbelt (sandbox-exec -p) profile
// with sb's rules, tmp being the command's private temporary directory:
// read everything but the secrets (the roots are readable even beneath a
// secret), write only beneath the roots, sb.WritePaths, tmp and the usual
// device files, never a protected path of ProtectedPaths (Seatbelt,
// unlike Landlock, can refuse names inside a writable directory, by
// regular expression) nor a setuid or setgid bit, no network unless
// sb.Network, signals only within the sandbox.
//
// The profile is built and its text tested on every platform; it has not
// been run on a Mac by this project yet, so the Runner does not apply it
// (a sandboxed run on macOS reports the sandbox missing).
func SeatbeltProfile(sb *Sandbox, tmp string) string {
	var b strings.Builder
	w := func(s ...string) {
		for _, x := range s {
			b.WriteString(x)
		}
		b.WriteByte('\n')
	}
	w("(version 1)")
	w("(deny default)")
	w("(allow process-exec process-fork)")
	w("(allow signal (target same-sandbox))")
	w("(allow process-info* (target same-sandbox))")
	w("(allow sysctl-read)")
	w("(allow mach-lookup (global-name \"com.apple.system.opendirectoryd.libinfo\") (global-name \"com.apple.system.logger\") (global-name \"com.apple.coreservices.launchservicesd\"))")
	w("(allow ipc-posix-sem)")
	w("(allow pseudo-tty)")
	w("(allow file-ioctl (literal \"/dev/tty\") (regex #\"^/dev/ttys[0-9]+$\"))")

	w("; read: everything but the secrets; the roots always")
	w("(allow file-read*)")
	deny := sb.denyPaths()
	sort.Strings(deny)
	if len(deny) > 0 {
		w("(deny file-read*")
		for _, p := range deny {
			w("  (subpath ", sbString(p), ")")
		}
		w(")")
	}
	roots := append([]string(nil), sb.Roots...)
	if len(roots) > 0 {
		w("(allow file-read*")
		for _, r := range roots {
			w("  (subpath ", sbString(r), ")")
		}
		w(")")
	}

	w("; write: the roots, the private TMPDIR, the devices")
	w("(allow file-write*")
	for _, r := range append(append(roots, sb.WritePaths...), tmp) {
		if r != "" {
			w("  (subpath ", sbString(r), ")")
		}
	}
	for _, d := range []string{"/dev/null", "/dev/zero", "/dev/tty", "/dev/dtracehelper"} {
		w("  (literal ", sbString(d), ")")
	}
	w(")")

	w("; plant nothing that runs later")
	if len(roots) > 0 {
		w("(deny file-write*")
		for _, re := range seatbeltProtected(roots, sb.Protect) {
			w("  (regex #", sbString(re), ")")
		}
		w(")")
	}
	w("(deny file-write-setugid)")

	if !sb.Network {
		w("; no network")
		w("(deny network*)")
	} else {
		w("(allow network*)")
		w("(allow mach-lookup (global-name \"com.apple.dnssd.service\") (global-name \"com.apple.SystemConfiguration.configd\"))")
	}
	return b.String()
}

// seatbeltProtected returns the regular expressions of the protected
// paths beneath roots: the git parts (hooks, config, commondir at any
// depth, .git/modules included) and ProtectedPaths plus extra, each at any
// depth.
func seatbeltProtected(roots, extra []string) []string {
	var names []string
	for _, p := range append(append([]string(nil), ProtectedPaths...), extra...) {
		if p == ".git" {
			continue // the .git file: below
		}
		names = append(names, globToRegexp(strings.Trim(p, "/"))+"(/|$)")
	}
	names = append(names,
		`\.git(/modules/.+|/worktrees/[^/]+)?/(hooks(/|$)|config$|config\.worktree$|commondir$|gitdir$)`,
		`\.git$`, // a .git file (gitdir:) or the directory itself replaced
	)
	var out []string
	for _, r := range roots {
		prefix := "^" + regexp.QuoteMeta(filepath.Clean(r)) + "/(.*/)?"
		for _, n := range names {
			out = append(out, prefix+n)
		}
	}
	return out
}

// globToRegexp turns a path.Match pattern into a regular expression for
// the same names (no anchors).
func globToRegexp(glob string) string {
	var b strings.Builder
	for _, c := range glob {
		switch c {
		case '*':
			b.WriteString(`[^/]*`)
		case '?':
			b.WriteString(`[^/]`)
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}

// sbString quotes s as a Seatbelt (Scheme) string literal.
func sbString(s string) string {
	return strconv.Quote(s)
}
