package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"path/filepath"
	"syscall"
	"time"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/internal/cli"
	"github.com/agenthost/agenthost/internal/rawname"
)

func init() {
	register("resolve", "print the canonical path of PATH inside the jail", cmdResolve)
	register("read", "print the contents of the file PATH, byte for byte", cmdRead)
	register("stat", "print the mode, size, time and canonical path of PATH", cmdStat)
	register("write", "write stdin to the file PATH, atomically", cmdWrite)
	register("mkdir", "create the directory PATH ([-p] for parents)", cmdMkdir)
	register("rm", "remove the file or symbolic link PATH", cmdRm)
}

// fileCmd parses the common flags plus extra, requires exactly one PATH,
// opens the Host and calls do with the path as the Host must get it (see
// cliPath). do returns the error that ends the subcommand, or nil.
func fileCmd(name string, args []string, stderr io.Writer, extra func(*flagSet), do func(h *host.Host, cwd, path string, hf *hostFlags) error) int {
	fs, hf := newFlagSet(name, stderr)
	if extra != nil {
		extra(fs)
	}
	pos, err := parseArgs(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) != 1 {
		return usageFail(stderr, name, "want one PATH, got %d arguments", len(pos))
	}
	h, err := hf.open()
	if err != nil {
		return fail(stderr, name, err, exitCode(err))
	}
	defer h.Close()
	if err := do(h, cliCwd(h), cliPath(pos[0]), hf); err != nil {
		return fail(stderr, name, err, exitCode(err))
	}
	return exitOK
}

func cmdResolve(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	return fileCmd("resolve", args, stderr, nil, func(h *host.Host, cwd, path string, hf *hostFlags) error {
		p, err := h.ResolveInJail(context.Background(), cwd, path)
		if err != nil {
			return err
		}
		if hf.json {
			return writeJSON(stdout, newPathJSON(p, false))
		}
		_, err = fmt.Fprintln(stdout, p)
		return err
	})
}

// pathJSON is the --json result of resolve, mkdir and rm; PathB64 is set
// for a path that is not UTF-8 (see internal/rawname).
type pathJSON struct {
	Path    string `json:"path"`
	PathB64 string `json:"path_b64,omitempty"`
	Removed bool   `json:"removed,omitempty"` // rm
}

func newPathJSON(p string, removed bool) pathJSON {
	return pathJSON{Path: p, PathB64: rawname.B64(p), Removed: removed}
}

// cmdRead copies the file to stdout exactly, as cat does: from the
// descriptor the jail opened, with no size limit and no conversion. With
// --json the result is one object: the contents as a string when they are
// UTF-8 text, else (binary: a NUL byte in the first 8000, as git decides;
// or not UTF-8) in base64 ("encoding" says which), for a file up to
// ReadFile's limit (see readJSONTo).
func cmdRead(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	return fileCmd("read", args, stderr, nil, func(h *host.Host, cwd, path string, hf *hostFlags) error {
		f, st, err := h.OpenFile(context.Background(), cwd, path)
		if err != nil {
			return err
		}
		defer f.Close()
		if !hf.json {
			_, err := io.Copy(stdout, f)
			return err
		}
		return readJSONTo(stdout, f, st, path)
	})
}

// readJSON is read's --json result.
type readJSON struct {
	Path     string `json:"path"`
	PathB64  string `json:"path_b64,omitempty"` // a path that is not UTF-8 (internal/rawname)
	Size     int64  `json:"size"`
	Encoding string `json:"encoding"` // "utf-8" or "base64"
	Contents string `json:"contents"`
}

func printStat(stdout io.Writer, st host.FileStat, asJSON bool) error {
	if asJSON {
		return writeJSON(stdout, cli.AddRaw(map[string]any{
			"path": st.Path, "size": st.Size, "mode": st.Mode.String(),
			"mod_time": st.ModTime.UTC().Format(time.RFC3339Nano), "is_dir": st.IsDir,
		}, "path"))
	}
	_, err := fmt.Fprintf(stdout, "%s\t%d\t%s\t%s\n", st.Mode, st.Size, st.ModTime.UTC().Format(time.RFC3339), st.Path)
	return err
}

func cmdStat(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	return fileCmd("stat", args, stderr, nil, func(h *host.Host, cwd, path string, hf *hostFlags) error {
		st, err := h.Stat(context.Background(), cwd, path)
		if err != nil {
			return err
		}
		return printStat(stdout, st, hf.json)
	})
}

// cmdWrite streams stdin into the Host's one atomic writer (WriteFrom):
// the bytes go to a new file as they come, with no copy held, and the
// file is put in place only once stdin has ended; a read error from stdin
// leaves the old file as it was.
func cmdWrite(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return fileCmd("write", args, stderr, nil, func(h *host.Host, cwd, path string, hf *hostFlags) error {
		st, err := h.WriteFrom(context.Background(), cwd, path, stdinReader{stdin}, host.Options{})
		if err != nil {
			return missingParent(path, err, "")
		}
		if hf.json {
			return printStat(stdout, st, true)
		}
		return nil
	})
}

func cmdMkdir(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var parents bool
	return fileCmd("mkdir", args, stderr, func(fs *flagSet) {
		fs.BoolVar(&parents, "p", false, "create missing parents; an existing directory is not an error")
	}, func(h *host.Host, cwd, path string, hf *hostFlags) error {
		ctx := context.Background()
		if err := h.CreateDir(ctx, cwd, path, parents, parents); err != nil {
			return missingParent(path, err, " (-p creates it)")
		}
		if !hf.json {
			return nil
		}
		p, err := h.ResolveInJail(ctx, cwd, path)
		if err != nil {
			return err
		}
		return writeJSON(stdout, newPathJSON(p, false))
	})
}

func cmdRm(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	return fileCmd("rm", args, stderr, nil, func(h *host.Host, cwd, path string, hf *hostFlags) error {
		ctx := context.Background()
		// The name removed is the link itself, so its canonical path is
		// its directory's joined with its own name, taken before it goes.
		dir, err := h.ResolveInJail(ctx, cwd, filepath.Dir(path))
		if err != nil {
			return err
		}
		if err := h.RemoveFile(ctx, cwd, path); err != nil {
			return err
		}
		if hf.json {
			return writeJSON(stdout, newPathJSON(filepath.Join(dir, filepath.Base(path)), true))
		}
		return nil
	})
}

// stdinReader is standard input as write reads it: a read error names
// it, and a file redirected to stdin stays seekable, so that the writer
// can read it again if the path turned into a link while it was written.
type stdinReader struct{ r io.Reader }

func (s stdinReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		// Only the cause: the writer words a *PathError inside as its
		// own, about the file written.
		var pe *iofs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		err = fmt.Errorf("standard input: %w", err)
	}
	return n, err
}

func (s stdinReader) Seek(off int64, whence int) (int64, error) {
	if sk, ok := s.r.(io.Seeker); ok {
		return sk.Seek(off, whence)
	}
	return 0, errors.ErrUnsupported
}

// missingParent rewords a not-found error from creating path: what is
// missing is a directory on the way to it, and the message says so (with
// hint after it, if any).
func missingParent(path string, err error, hint string) error {
	if !errors.Is(err, iofs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, host.ErrEscape) {
		return err
	}
	return &iofs.PathError{Op: "create", Path: path, Err: missingDirError{dir: filepath.Dir(path), hint: hint}}
}

// missingDirError is a missing parent directory; it matches
// fs.ErrNotExist.
type missingDirError struct{ dir, hint string }

func (e missingDirError) Error() string {
	return fmt.Sprintf("directory %s does not exist%s", e.dir, e.hint)
}
func (e missingDirError) Is(target error) bool { return target == iofs.ErrNotExist }
