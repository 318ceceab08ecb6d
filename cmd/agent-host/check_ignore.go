package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
)

func init() {
	register("check-ignore", "print each PATH that git would ignore, like git check-ignore (exit 0 if any, 1 if none)", cmdCheckIgnore)
}

// cmdCheckIgnore prints each given path that is ignored, as given, in
// order, like git check-ignore: exit 0 when at least one was ignored, 1
// when none was, 2 on a usage error or when a path could not be judged
// (outside the jail, say; the error is printed and the other paths are
// still judged). With --stdin the paths are read one per line (NUL-ended
// with -z, which also ends the output lines with NUL).
func cmdCheckIgnore(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, hf := newFlagSet("check-ignore", stderr)
	fromStdin := fs.Bool("stdin", false, "read the paths from standard input, one per line")
	nul := fs.Bool("z", false, "paths in and out are NUL-terminated")
	nonMatching := fs.Bool("n", false, "also print the paths that are not ignored (with --json: all paths)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if (len(pos) == 0) == !*fromStdin {
		return usageFail(stderr, "check-ignore", "want PATH... or --stdin, one of the two")
	}
	h, err := hf.open()
	if err != nil {
		return fail(stderr, "check-ignore", err, 2)
	}
	defer h.Close()

	ctx := context.Background()
	cwd := cliCwd(h)
	sep := byte('\n')
	if *nul {
		sep = 0
	}
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	// As git does, answer path by path when the output is a pipe or a
	// terminal (another program may be waiting for each answer), and
	// buffer when it is a file.
	flushEach := *fromStdin && !isRegularFile(stdout)
	anyIgnored, anyError := false, false
	judge := func(p string) {
		ignored, err := h.IsPathIgnored(ctx, cwd, cliPath(p))
		if err != nil {
			anyError = true
			out.Flush()
			warn(stderr, "check-ignore", err, 2)
			return
		}
		anyIgnored = anyIgnored || ignored
		switch {
		case hf.json:
			if ignored || *nonMatching {
				writeJSON(out, map[string]any{"path": p, "ignored": ignored})
			}
		case ignored:
			out.WriteString(p)
			out.WriteByte(sep)
		case *nonMatching:
			out.WriteString("::\t" + p)
			out.WriteByte(sep)
		}
		if flushEach {
			out.Flush()
		}
	}
	if *fromStdin {
		sc := bufio.NewScanner(stdin)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		if *nul {
			sc.Split(splitNUL)
		}
		for sc.Scan() {
			if p := sc.Text(); p != "" {
				judge(p)
			}
		}
		if err := sc.Err(); err != nil {
			return fail(stderr, "check-ignore", err, 2)
		}
	} else {
		for _, p := range pos {
			judge(p)
		}
	}
	switch {
	case anyError:
		return 2
	case anyIgnored:
		return 0
	}
	return 1
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

// isRegularFile reports whether w is an *os.File on a regular file.
func isRegularFile(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode().IsRegular()
}
