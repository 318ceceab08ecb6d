package main

import (
	"bufio"
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

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/host/walk"
)

func init() {
	register("walk", "list the files under PATH (default .) the way git sees them, like rg --files", cmdWalk)
}

// walkOutBuf is the output buffer: large enough that a walk of 100,000
// files makes a few hundred write calls, not 100,000.
const walkOutBuf = 256 << 10

// cmdWalk prints the files (and symbolic links) under PATH, one per line,
// as they are found: relative to the current directory when PATH is
// relative, as rg --files does. Exit 0 when the whole tree was read, 2 when
// something could not be (each problem is printed to stderr; the other
// files are still printed) or on a usage error.
func cmdWalk(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs, hf := newFlagSet("walk", stderr)
	hidden := fs.Bool("hidden", false, "include dot-files (.git is always skipped)")
	noIgnore := fs.Bool("no-ignore", false, "do not apply .gitignore, info/exclude or the global excludes file")
	maxDepth := nonNegativeIntFlag(fs, "max-depth", 0, "descend at most `N` levels (1: only PATH's children; 0: unlimited)")
	maxEntries := nonNegativeIntFlag(fs, "max-entries", 0, "stop after `N` entries, files and directories (0: unlimited)")
	sorted := fs.Bool("sort", false, "print in path order (waits for the whole walk)")
	nul := fs.Bool("0", false, "end each path with NUL instead of a newline")
	dirs := fs.Bool("dirs", false, "print directories too, with a trailing /")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) > 1 {
		return usageFail(stderr, "walk", "want at most one PATH, got %d arguments", len(pos))
	}
	arg := "."
	if len(pos) == 1 {
		arg = pos[0]
	}
	h, err := hf.open()
	if err != nil {
		return fail(stderr, "walk", err, 2)
	}
	defer h.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	opts := host.WalkOptions{Hidden: *hidden, NoIgnore: *noIgnore, MaxDepth: *maxDepth, MaxEntries: *maxEntries}

	// Each path is printed as PATH as typed, joined with the part below the
	// resolved directory: "." prints bare relative paths.
	prefix := strings.TrimRight(arg, "/"+string(os.PathSeparator))
	if arg == "." || prefix == "." {
		prefix = ""
	} else if prefix == "" {
		prefix = string(os.PathSeparator) // the file system root
	} else {
		prefix += string(os.PathSeparator)
	}
	sep := byte('\n')
	if *nul {
		sep = 0
	}
	out := &lineWriter{w: bufio.NewWriterSize(stdout, walkOutBuf), sep: sep, json: hf.json}

	cwd := cliCwd(h)
	root, err := h.ResolveInJail(ctx, cwd, cliPath(arg))
	if err != nil {
		return fail(stderr, "walk", err, 2)
	}
	var collected []host.WalkEntry
	var cmu sync.Mutex
	err = h.WalkFunc(ctx, cwd, root, opts, func(e host.WalkEntry) error {
		if e.IsDir && !*dirs {
			return nil
		}
		if *sorted {
			cmu.Lock()
			collected = append(collected, e)
			cmu.Unlock()
			return nil
		}
		return out.entry(e, root, prefix)
	})
	if *sorted {
		slices.SortFunc(collected, func(a, b host.WalkEntry) int { return strings.Compare(a.Path, b.Path) })
		for _, e := range collected {
			if out.entry(e, root, prefix) != nil {
				break
			}
		}
	}
	ferr := out.flush()
	code := 0
	var partial *walk.PartialError
	switch {
	case errors.As(err, &partial):
		for _, e := range partial.Errs {
			warn(stderr, "walk", e, 2)
		}
		code = 2
	case err != nil && (errors.Is(err, errBrokenOutput) || errors.Is(err, context.Canceled)):
		code = 1
	case err != nil:
		return fail(stderr, "walk", err, 2)
	}
	if ferr != nil && code == 0 {
		code = 1
	}
	return code
}

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

// entry writes one walk entry: prefix plus its path below root.
func (lw *lineWriter) entry(e host.WalkEntry, root, prefix string) error {
	rel := e.Path
	if e.Depth > 0 {
		rel = e.Path[len(root):]
		rel = strings.TrimLeft(rel, string(os.PathSeparator))
		rel = prefix + rel
	} else if prefix != "" {
		rel = filepath.Clean(strings.TrimSuffix(prefix, string(os.PathSeparator)))
	} else {
		rel = filepath.Base(e.Path)
	}
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return lw.err
	}
	if lw.json {
		lw.err = writeJSON(lw.w, map[string]any{"path": rel, "abs": e.Path, "depth": e.Depth, "is_dir": e.IsDir})
	} else {
		lw.w.WriteString(rel)
		if e.IsDir {
			lw.w.WriteByte(filepath.Separator)
		}
		lw.err = lw.w.WriteByte(lw.sep)
	}
	if lw.err != nil {
		lw.err = fmt.Errorf("%w: %v", errBrokenOutput, lw.err)
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
