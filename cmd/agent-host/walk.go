package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/internal/cli"
)

func init() {
	register("walk", "list the files under PATH (default .) the way git sees them, like rg --files", cmdWalk)
}

// walkOutBuf is the output buffer: one write call per 64 KiB (a walk of
// 100,000 files makes about a hundred, not 100,000), small enough that a
// short walk does not fault in a large buffer it never fills.
const walkOutBuf = 64 << 10

// sortFlag is --sort: "path" (also the bare flag) or "none".
type sortFlag string

func (f *sortFlag) String() string   { return string(*f) }
func (f *sortFlag) IsBoolFlag() bool { return true } // "--sort" alone is --sort=path

// IsValue makes "--sort path" and "--sort none" mean --sort=path and
// --sort=none, as ripgrep reads them (cli.OptionalValue); "--sort x"
// leaves x a PATH.
func (f *sortFlag) IsValue(arg string) bool { return arg == "path" || arg == "none" }
func (f *sortFlag) Set(v string) error {
	switch v {
	case "true", "path":
		*f = "path"
	case "false", "none":
		*f = "none"
	default:
		return fmt.Errorf("--sort takes path or none, not %q", v)
	}
	return nil
}

// countFlag is a flag that counts its occurrences (-u, -uu, -uuu).
type countFlag int

func (f *countFlag) String() string   { return fmt.Sprint(int(*f)) }
func (f *countFlag) IsBoolFlag() bool { return true }
func (f *countFlag) Set(v string) error {
	if v == "false" {
		return nil
	}
	*f++
	return nil
}

// walkGlob is one -g/--glob: ripgrep's reading of a gitignore-style glob,
// matched with doublestar. A glob holding no '/' (but a trailing one)
// matches the name at any depth; any other matches the path from the walk's
// start (a leading '/' only anchors); a trailing '/' matches directories
// only; a leading '!' excludes.
type walkGlob struct {
	pattern string
	exclude bool
	dirOnly bool
	base    bool // match the name, not the path
}

func parseGlob(g string) (walkGlob, error) {
	var w walkGlob
	if strings.HasPrefix(g, "!") {
		w.exclude, g = true, g[1:]
	}
	if strings.HasSuffix(g, "/") {
		w.dirOnly, g = true, strings.TrimSuffix(g, "/")
	}
	w.base = !strings.Contains(g, "/")
	w.pattern = strings.TrimPrefix(g, "/")
	if strings.HasSuffix(w.pattern, "/**") {
		// A trailing "/**" matches what is inside, not the directory
		// itself (doublestar's "a/**" also matches "a"; ripgrep's and
		// git's do not).
		w.pattern = strings.TrimSuffix(w.pattern, "**") + "*/**"
	}
	if !doublestar.ValidatePattern(w.pattern) {
		return w, fmt.Errorf("bad glob %q", g)
	}
	return w, nil
}

// globOverride is the host.WalkOptions.Override for globs, as ripgrep applies
// its overrides: the last glob that matches decides, ahead of the hidden
// and ignore rules (so -g '*.log' lists an ignored x.log, and -g '.env' a
// dot-file); a '!' one leaves the entry out, and a directory left out is
// not entered. When some glob includes, a file no glob matches is left
// out; a directory no glob matches is left to the rules.
func globOverride(globs []walkGlob) func(string, bool) host.WalkVerdict {
	includes := false
	for _, g := range globs {
		includes = includes || !g.exclude
	}
	return func(rel string, isDir bool) host.WalkVerdict {
		name := rel[strings.LastIndexByte(rel, '/')+1:]
		for i := len(globs) - 1; i >= 0; i-- {
			g := globs[i]
			if g.dirOnly && !isDir {
				continue
			}
			subject := rel
			if g.base {
				subject = name
			}
			if ok, _ := doublestar.Match(g.pattern, subject); ok {
				if g.exclude {
					return host.WalkExclude
				}
				return host.WalkInclude
			}
		}
		if includes && !isDir {
			return host.WalkExclude
		}
		return host.WalkUndecided
	}
}

// cmdWalk prints the files (and symbolic links) under each PATH (default
// .), one per line, as they are found: relative to the current directory
// when PATH is relative, as rg --files does. With no flags it prints the
// set git ls-files -co --exclude-standard prints (dot-files and tracked
// files the rules ignore included; a tracked file deleted from disk is not
// there to list). Exit 0 when every tree was read, 2 when something could
// not be (each problem is printed to stderr; the other files are still
// printed) or on a usage error.
func cmdWalk(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs, hf := newFlagSet("walk", stderr)
	hidden := fs.Bool("hidden", true, "include dot-files, as git does (the default; .git is always skipped)")
	fs.BoolVar(hidden, "H", true, "short for --hidden")
	fs.BoolVar(hidden, ".", true, "short for --hidden, as ripgrep spells it")
	noHidden := fs.Bool("no-hidden", false, "skip dot-files, as rg --files does")
	noIgnore := fs.Bool("no-ignore", false, "do not apply .gitignore, info/exclude or the global excludes file")
	var unrestricted countFlag
	fs.Var(&unrestricted, "u", "as ripgrep's -u: --no-ignore (-uu and -uuu too: dot-files are already in)")
	fs.Var(&unrestricted, "uu", "as -u -u")
	fs.Var(&unrestricted, "uuu", "as -u -u -u")
	noIndex := fs.Bool("no-index", false, "leave out tracked files the rules ignore (git ls-files -o --exclude-standard, plus what is tracked and not ignored)")
	maxDepth := nonNegativeIntFlag(fs, "max-depth", 0, "descend at most `N` levels (1: only PATH's children; 0: unlimited)")
	maxEntries := nonNegativeIntFlag(fs, "max-entries", 0, "stop after `N` entries, files and directories (0: unlimited): the first N in path order, said on stderr (--json: a last line {\"truncated\":true}) when more follow")
	var sortBy sortFlag = "none"
	fs.Var(&sortBy, "sort", "`path`: print in path order (waits for the whole walk); none: as found")
	nul := fs.Bool("0", false, "end each path with NUL instead of a newline")
	dirs := fs.Bool("dirs", false, "print directories too, with a trailing /")
	follow := fs.Bool("follow", false, "enter symbolic links to directories inside the roots (a link back to a directory above is skipped)")
	fs.BoolVar(follow, "L", false, "short for --follow")
	var globArgs multiFlag
	fs.Var(&globArgs, "glob", "include (or, with a leading !, exclude) files and directories matching `GLOB` (repeatable; ripgrep's rules)")
	fs.Var(&globArgs, "g", "short for --glob")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) == 0 {
		pos = []string{"."}
	}
	var globs []walkGlob
	for _, g := range globArgs {
		wg, err := parseGlob(g)
		if err != nil {
			return fail(stderr, "walk", err, 2)
		}
		globs = append(globs, wg)
	}
	h, err := hf.open()
	if err != nil {
		return fail(stderr, "walk", err, 2)
	}
	defer h.Close()
	h.OneShot()

	ctx, stop := lateInterrupt(context.Background(), interruptAfter)
	defer stop()
	// --max-entries counts what is printed (directories only with
	// --dirs), so the walk is asked for its sorted order and stopped here
	// once one entry more than the limit comes.
	opts := host.WalkOptions{Hidden: *hidden && !*noHidden, NoIgnore: *noIgnore || unrestricted > 0, NoIndex: *noIndex,
		MaxDepth: *maxDepth, Sorted: *maxEntries > 0, Follow: *follow}
	if len(globs) > 0 {
		opts.Override = globOverride(globs)
	}
	sep := byte('\n')
	if *nul {
		sep = 0
	}
	out := &lineWriter{w: bufio.NewWriterSize(stdout, walkOutBuf), sep: sep, json: hf.json}
	cwd := cliCwd(h)
	code := 0
	type found struct {
		e            host.WalkEntry
		root, prefix string
	}
	var collected []found
	var cmu sync.Mutex
	var cuts []string // the PATHs --max-entries cut
	for _, arg := range pos {
		// Each path is printed as PATH as typed, joined with the part below
		// the resolved directory: "." prints bare relative paths.
		prefix := strings.TrimRightFunc(arg, func(r rune) bool { return r == '/' || r == os.PathSeparator })
		if arg == "." || prefix == "." {
			prefix = ""
		} else if prefix == "" {
			prefix = string(os.PathSeparator) // the file system root
		} else {
			prefix += string(os.PathSeparator)
		}
		root, err := h.ResolveInJail(ctx, cwd, cliPath(arg))
		if err != nil {
			// The exit table's row (3 outside the roots, 4 missing);
			// the first fault's, when several PATHs fail.
			c := exitCode(err)
			warn(stderr, "walk", err, c)
			if code == 0 {
				code = c
			}
			continue
		}
		// The entries come in runs (opts.Batch), their paths lent: written
		// out or copied before the call returns.
		printBatch := func(ents []host.WalkEntry) error {
			if sortBy == "path" {
				cmu.Lock()
				defer cmu.Unlock()
				for _, e := range ents {
					if !e.IsDir || *dirs {
						e.Path = strings.Clone(e.Path)
						collected = append(collected, found{e, root, prefix})
					}
				}
				return nil
			}
			return out.entries(ents, root, prefix, *dirs)
		}
		printed := 0
		opts.Batch = func(ents []host.WalkEntry) error {
			var stop error
			if *maxEntries > 0 {
				// The walk is sequential: one call at a time.
				for i, e := range ents {
					if e.IsDir && !*dirs {
						continue
					}
					if printed == *maxEntries {
						cuts = append(cuts, arg)
						ents, stop = ents[:i], errEnough
						break
					}
					printed++
				}
			}
			if err := printBatch(ents); err != nil {
				return err
			}
			return stop
		}
		err = h.WalkFunc(ctx, cwd, root, opts, func(e host.WalkEntry) error { return opts.Batch([]host.WalkEntry{e}) }) // PATH is a file
		if errors.Is(err, errEnough) {
			err = nil
		}
		var partial *host.PartialError
		switch {
		case errors.As(err, &partial):
			// A directory that could not be read (the rest is still
			// listed): 2, as rg says it.
			for _, e := range partial.Errs {
				warn(stderr, "walk", e, 2)
			}
			if code == 0 {
				code = 2
			}
		case err != nil && errors.Is(err, context.Canceled):
			out.flush()
			fmt.Fprintln(stderr, "agent-host walk: interrupted")
			return execCancelled // 130, as exec and read give
		case err != nil && errors.Is(err, errBrokenOutput):
			out.flush()
			return 1
		case err != nil:
			out.flush()
			return fail(stderr, "walk", err, exitCode(err))
		}
	}
	if sortBy == "path" {
		slices.SortFunc(collected, func(a, b found) int {
			return strings.Compare(a.prefix+a.e.Path[len(a.root):], b.prefix+b.e.Path[len(b.root):])
		})
		for _, f := range collected {
			if out.entry(f.e, f.root, f.prefix) != nil {
				break
			}
		}
	}
	// A cut is said after the entries: on stderr, and with --json as a
	// last line of its own on stdout.
	for _, arg := range cuts {
		if hf.json {
			out.record(cli.AddRaw(map[string]any{"path": arg, "truncated": true, "max_entries": *maxEntries}, "path"))
		} else {
			out.flush()
			fmt.Fprintf(stderr, "agent-host walk: %s: stopped after %d entries (--max-entries): more follow\n", arg, *maxEntries)
		}
	}
	if ferr := out.flush(); ferr != nil && code == 0 {
		code = 1
	}
	return code
}

// interruptAfter is how long a walk runs before an interrupt (Ctrl-C)
// stops it cleanly (what was found is printed, exit 1) instead of ending
// the process at once, the default: a walk that ends sooner never sets up
// the signal handler. That handler is not free in a one-shot process:
// signal.Notify starts a goroutine that waits for signals on a thread of
// its own, and the threads the scheduler starts and wakes around it cost a
// tenth of the CPU of a 10,000-file walk.
const interruptAfter = 100 * time.Millisecond

// lateInterrupt is ctx, cancelled too by an interrupt that arrives after
// the delay (see interruptAfter). stop releases the timer and the handler.
func lateInterrupt(parent context.Context, after time.Duration) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	var mu sync.Mutex
	stopped := false
	sigStop := func() {}
	t := time.AfterFunc(after, func() {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return
		}
		sctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
		sigStop = stop
		context.AfterFunc(sctx, cancel)
	})
	return ctx, func() {
		mu.Lock()
		stopped = true
		t.Stop()
		sigStop()
		mu.Unlock()
		cancel()
	}
}

// errEnough stops a walk that has printed --max-entries entries and met
// one more.
var errEnough = errors.New("walk: --max-entries reached")

// errBrokenOutput stops a walk whose output can no longer be written (a
// closed pipe, as with "| head").
var errBrokenOutput = errors.New("output closed")

// lineWriter serializes the walk's concurrent deliveries into one buffered
// stream.
type lineWriter struct {
	mu   sync.Mutex
	w    *bufio.Writer
	sep  byte
	json bool
	err  error
}

// relPath is what the walk prints for e: prefix plus its path below root.
func relPath(e host.WalkEntry, root, prefix string) string {
	switch {
	case e.Depth > 0:
		return prefix + strings.TrimLeft(e.Path[len(root):], string(os.PathSeparator))
	case prefix != "":
		return filepath.Clean(strings.TrimSuffix(prefix, string(os.PathSeparator)))
	default:
		return filepath.Base(e.Path)
	}
}

// entry writes one walk entry: prefix plus its path below root.
func (lw *lineWriter) entry(e host.WalkEntry, root, prefix string) error {
	return lw.entries([]host.WalkEntry{e}, root, prefix, true)
}

// lineBufs are the lines of one directory's entries, formatted before the
// lock is taken.
var lineBufs = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// entries writes the walk entries ents (directories only with dirs) as
// entry does, formatting them first and holding the lock for one copy.
func (lw *lineWriter) entries(ents []host.WalkEntry, root, prefix string, dirs bool) error {
	bp := lineBufs.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= 1<<20 { // one huge directory's lines are not kept
			lineBufs.Put(bp)
		}
	}()
	b := (*bp)[:0]
	for _, e := range ents {
		if e.IsDir && !dirs {
			continue
		}
		if lw.json {
			jb := bytes.NewBuffer(b)
			v := map[string]any{"path": relPath(e, root, prefix), "abs": e.Path, "depth": e.Depth, "is_dir": e.IsDir}
			cli.AddRaw(v, "path", "abs")
			if err := writeJSON(jb, v); err != nil {
				return err
			}
			b = jb.Bytes()
			continue
		}
		if e.Depth > 0 {
			rel := e.Path[len(root):]
			for len(rel) > 0 && rel[0] == os.PathSeparator {
				rel = rel[1:]
			}
			b = append(append(b, prefix...), rel...)
		} else {
			b = append(b, relPath(e, root, prefix)...)
		}
		if e.IsDir {
			b = append(b, filepath.Separator)
		}
		b = append(b, lw.sep)
	}
	*bp = b
	if len(b) == 0 {
		return nil
	}
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return lw.err
	}
	if _, err := lw.w.Write(b); err != nil {
		lw.err = fmt.Errorf("%w: %v", errBrokenOutput, err)
	}
	return lw.err
}

// record writes v as one JSON line.
func (lw *lineWriter) record(v any) error {
	var b bytes.Buffer
	if err := writeJSON(&b, v); err != nil {
		return err
	}
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return lw.err
	}
	if _, err := lw.w.Write(b.Bytes()); err != nil {
		lw.err = fmt.Errorf("%w: %v", errBrokenOutput, err)
	}
	return lw.err
}

func (lw *lineWriter) flush() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return lw.err
	}
	return lw.w.Flush()
}
