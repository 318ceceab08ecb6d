package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/internal/cli"
)

func init() {
	register("check-ignore", "print each PATH that git would ignore, like git check-ignore (exit 0 if any, 1 if none, 128 on a fatal error)", cmdCheckIgnore)
}

// checkIgnoreFatal is git's exit status for a fatal error: a usage error,
// a path that cannot be judged (outside the jail, say), an index that
// cannot be read.
const checkIgnoreFatal = 128

// checkIgnoreBatch is the most --stdin paths judged as one batch (one
// freshness check, and each distinct parent directory resolved through
// the jail once, per batch: Host.CheckIgnore). A batch is what can be read
// without waiting (readPathBatches), so it is this large only when the
// input is a file or a full pipe. Paths are a few dozen bytes and a
// result about a hundred, so a batch holds a few MiB at most.
const checkIgnoreBatch = 1 << 14

// checkIgnoreMemLimit is the heap size at which check-ignore's collector
// runs (it is off below it): the bound on the process's heap, whatever
// the number of paths (the walk cache's share is bounded by walk's
// maxCacheBytes, 32 MiB of its own estimate, a batch by
// checkIgnoreBatch). A run of a few thousand paths ends before the
// collector ever runs.
const checkIgnoreMemLimit = 32 << 20

// gcOff counts the check-ignore calls running in this process (tests run
// several at once), so that the collector's settings are changed by the
// first and restored by the last.
var gcOff struct {
	sync.Mutex
	n   int
	pct int
	lim int64 // the limit before the first call
	cur int64 // the limit set now (0: the caller's, left alone)
}

// collectLess turns the collector off below checkIgnoreMemLimit and
// returns the function that undoes it.
func collectLess() func() {
	gcOff.Lock()
	if gcOff.n == 0 {
		watchCollections()
		gcLive.Store(0)
		gcOff.pct = debug.SetGCPercent(-1)
		gcOff.lim = debug.SetMemoryLimit(checkIgnoreMemLimit)
		gcOff.cur = checkIgnoreMemLimit
		if gcOff.lim < checkIgnoreMemLimit {
			debug.SetMemoryLimit(gcOff.lim) // GOMEMLIMIT asked for less
			gcOff.cur = 0
		}
	}
	gcOff.n++
	gcOff.Unlock()
	return func() {
		gcOff.Lock()
		if gcOff.n--; gcOff.n == 0 {
			debug.SetGCPercent(gcOff.pct)
			debug.SetMemoryLimit(gcOff.lim)
		}
		gcOff.Unlock()
	}
}

// roomForLive raises the heap limit collectLess set to twice the live
// heap when the live heap has passed half of it (a repository whose
// index alone is tens of MiB): the collector would otherwise run again
// and again for little. The limit then follows what the repository
// needs, not the number of paths. The live heap is what gcLive last
// measured, after a collection; none having run since the last call (no
// heap past the limit: every run of fewer paths than fill it), it costs
// an atomic load.
func roomForLive() {
	live := gcLive.Swap(0)
	if live == 0 {
		return
	}
	gcOff.Lock()
	defer gcOff.Unlock()
	if gcOff.n > 0 && gcOff.cur > 0 && live > gcOff.cur/2 {
		gcOff.cur = 2 * live
		debug.SetMemoryLimit(gcOff.cur)
	}
}

// gcLive is the heap in use (runtime.MemStats.HeapAlloc) measured just
// after the last collection that roomForLive has not yet looked at, or
// 0. A cleanup attached to an object nothing refers to runs after each
// collection that finds it (see watchCollections); this replaces
// runtime/metrics' "/gc/heap/live:bytes", whose package initialisation
// alone costs each agent-host process about a millisecond.
var gcLive atomic.Int64

// gcSentinel is the object watchCollections lets go (not a tiny
// allocation, which the runtime may keep alive with its neighbours).
type gcSentinel struct {
	_ *int
	_ [48]byte
}

var watchOnce sync.Once

// watchCollections arranges for gcLive to be set after every collection
// from now on.
func watchCollections() { watchOnce.Do(armCollectionWatch) }

func armCollectionWatch() {
	runtime.AddCleanup(new(gcSentinel), func(struct{}) {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		gcLive.Store(int64(m.HeapAlloc))
		armCollectionWatch()
	}, struct{}{})
}

// workTreeTop is the top of the git work tree that holds the current
// directory, found as git finds it (the nearest directory upward with a
// .git entry, a directory or a gitfile), or "" outside any.
func workTreeTop() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for d := wd; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return ""
		}
		d = up
	}
}

// cmdCheckIgnore prints each given path that is ignored, as given, in
// order, like git check-ignore: exit 0 when at least one was ignored (with
// -v, matched by any rule, a negated one included, as git counts it), 1
// when none was, 128 on a fatal error (the message is printed; with
// --stdin the answers before it are kept). -v prints
// "source:line:pattern<TAB>path" as git does (with -n, "::<TAB>path" for
// a path no rule matches), -q prints nothing, --no-index judges tracked
// paths by the rules too. With --stdin the paths are read one per line
// (NUL-ended with -z, which also ends every output field with NUL) and
// judged in batches of what could be read without waiting: the answers
// to every path read so far are written out before a read that waits, so
// a program that writes one path and waits for its answer gets it
// (readPathBatches).
func cmdCheckIgnore(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, hf := newFlagSet("check-ignore", stderr)
	fromStdin := fs.Bool("stdin", false, "read the paths from standard input, one per line")
	nul := fs.Bool("z", false, "paths in and out are NUL-terminated")
	verbose := fs.Bool("verbose", false, "print the matching rule's source, line and pattern")
	fs.BoolVar(verbose, "v", false, "short for --verbose")
	quiet := fs.Bool("quiet", false, "print nothing; the exit status tells")
	fs.BoolVar(quiet, "q", false, "short for --quiet")
	nonMatching := fs.Bool("non-matching", false, "with -v, also print the paths no rule matches")
	fs.BoolVar(nonMatching, "n", false, "short for --non-matching")
	noIndex := fs.Bool("no-index", false, "do not consult the index: judge tracked paths by the rules too")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2 // the shared voice's usage error (git's is 129)
	}
	fatal := func(msg string) int {
		fmt.Fprintf(stderr, "fatal: %s\n", msg)
		return checkIgnoreFatal
	}
	switch {
	case *fromStdin && len(pos) > 0:
		return fatal("cannot specify pathnames with --stdin")
	case !*fromStdin && len(pos) == 0:
		return fatal("no path specified")
	case *quiet && *verbose:
		return fatal("cannot have both --quiet and --verbose")
	case *quiet && (*fromStdin || len(pos) != 1):
		return fatal("--quiet is only valid with a single pathname")
	case *nonMatching && !*verbose && !hf.json: // with --json, -n lists every path
		return fatal("--non-matching is only valid with --verbose")
	case *nul && !*fromStdin:
		return fatal("-z only makes sense with --stdin")
	}
	if len(hf.roots) == 0 {
		// git's scope, not the directory's: from a subdirectory,
		// ../debug.log is a path of the same work tree, which git
		// answers.
		if top := workTreeTop(); top != "" {
			hf.roots = multiFlag{top}
		}
	}
	h, err := hf.open()
	if err != nil {
		return fail(stderr, "check-ignore", err, 2)
	}
	defer h.Close()
	// One process, one short-lived cache: no inotify watches (they cost
	// more to set up than a batch saves; each batch re-checks what it
	// uses by stat instead, so a long session still sees edits), and the
	// collector held back to a fixed heap size (checkIgnoreMemLimit),
	// which bounds the process whatever the number of paths: the walk
	// cache is bounded (walk's maxCacheBytes), a batch holds at most
	// checkIgnoreBatch paths, and the rest is garbage.
	h.OneShot()
	defer collectLess()()

	ctx := context.Background()
	cwd := cliCwd(h)
	out := bufio.NewWriterSize(stdout, 64<<10)
	defer out.Flush()
	opts := host.CheckIgnoreOptions{NoIndex: *noIndex, VerdictOnly: !*verbose && !hf.json, Pathspec: true}
	anyIgnored := false
	// judge answers a batch; false means a fatal error was reported.
	judge := func(paths []string) bool {
		args := make([]string, len(paths))
		for i, p := range paths {
			args[i] = cliPath(p) // "~x" is a file of that name
		}
		res, err := h.CheckIgnore(ctx, cwd, args, opts)
		defer roomForLive()
		if err != nil {
			out.Flush()
			warn(stderr, "check-ignore", err, checkIgnoreFatal)
			return false
		}
		for i, r := range res {
			if r.Err != nil {
				out.Flush()
				warn(stderr, "check-ignore", r.Err, checkIgnoreFatal)
				return false
			}
			matched := r.Rule != nil && (*verbose || !r.Rule.Negated())
			if r.Ignored || matched && *verbose {
				anyIgnored = true
			}
			if *quiet {
				continue
			}
			switch {
			case hf.json:
				if r.Ignored || *nonMatching || matched {
					v := map[string]any{"path": paths[i], "ignored": r.Ignored, "tracked": r.Tracked}
					if r.Rule != nil {
						v["source"], v["line"], v["pattern"] = r.Rule.Source, r.Rule.Line, r.Rule.Pattern
					}
					cli.AddRaw(v, "path", "source")
					writeJSON(out, v)
				}
			case *verbose && (matched || *nonMatching):
				src, line, pat := "", "", ""
				if matched {
					src, line, pat = r.Rule.Source, strconv.Itoa(r.Rule.Line), r.Rule.Pattern
				}
				if *nul {
					for _, f := range []string{src, line, pat, paths[i]} {
						out.WriteString(f)
						out.WriteByte(0)
					}
				} else {
					fmt.Fprintf(out, "%s:%s:%s\t%s\n", quoteC(src), line, quoteC(pat), quoteC(paths[i]))
				}
			case r.Ignored:
				if *nul {
					out.WriteString(paths[i])
					out.WriteByte(0)
				} else {
					out.WriteString(quoteC(paths[i]))
					out.WriteByte('\n')
				}
			}
		}
		return true
	}
	if *fromStdin {
		switch err := readPathBatches(stdin, *nul, out, judge); {
		case errors.Is(err, errJudged):
			return checkIgnoreFatal
		case err != nil:
			out.Flush()
			return fatal(err.Error())
		}
	} else if !judge(pos) {
		return checkIgnoreFatal
	}
	if anyIgnored {
		return 0
	}
	return 1
}

// quoteC quotes s as git's quote_c_style does with core.quotePath (the
// default): unchanged when it holds no '"', '\\', control byte or byte at
// or above 0x80, else in double quotes with C escapes and octal for the
// rest.
func quoteC(s string) string {
	need := false
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x7f {
			need = true
			break
		}
	}
	if !need {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\v':
			b.WriteString(`\v`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		default:
			if c < 0x20 || c >= 0x7f {
				fmt.Fprintf(&b, `\%03o`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// splitNUL is a bufio.SplitFunc for NUL-terminated records.
func splitNUL(data []byte, atEOF bool) (advance int, token []byte, err error) {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}
