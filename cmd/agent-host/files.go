package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/agenthost/agenthost/host"
)

func init() {
	register("resolve", "print the canonical path of PATH inside the jail", cmdResolve)
	register("read", "print the contents of the file PATH", cmdRead)
	register("stat", "print the size, mode and time of PATH", cmdStat)
	register("write", "write stdin to the file PATH, atomically", cmdWrite)
	register("mkdir", "create the directory PATH ([-p] for parents)", cmdMkdir)
	register("rm", "remove the file or symbolic link PATH", cmdRm)
}

// fileCmd parses the common flags plus extra, requires exactly one PATH,
// opens the Host and calls do.
func fileCmd(name string, args []string, stderr io.Writer, extra func(*flagSet), do func(h *host.Host, cwd, path string, hf *hostFlags) int) int {
	fs, hf := newFlagSet(name, stderr)
	if extra != nil {
		extra(fs)
	}
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "usage: agent-host %s [flags] PATH\n", name)
		return 2
	}
	h, err := hf.open()
	if err != nil {
		return fail(stderr, name, err, 2)
	}
	defer h.Close()
	return do(h, cliCwd(h), pos[0], hf)
}

func cmdResolve(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	return fileCmd("resolve", args, stderr, nil, func(h *host.Host, cwd, path string, hf *hostFlags) int {
		p, err := h.ResolveInJail(context.Background(), cwd, path)
		if err != nil {
			return fail(stderr, "resolve", err, exitCode(err))
		}
		if hf.json {
			writeJSON(stdout, map[string]string{"path": p})
		} else {
			fmt.Fprintln(stdout, p)
		}
		return 0
	})
}

func cmdRead(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	return fileCmd("read", args, stderr, nil, func(h *host.Host, cwd, path string, hf *hostFlags) int {
		r, err := h.ReadFile(context.Background(), cwd, path)
		if err != nil {
			return fail(stderr, "read", err, exitCode(err))
		}
		if hf.json {
			writeJSON(stdout, map[string]any{"path": r.Path, "contents": r.Contents, "size": r.Stat.Size})
		} else {
			io.WriteString(stdout, r.Contents)
		}
		return 0
	})
}

func printStat(stdout io.Writer, st host.FileStat, asJSON bool) {
	if asJSON {
		writeJSON(stdout, map[string]any{
			"path": st.Path, "size": st.Size, "mode": st.Mode.String(),
			"mod_time": st.ModTime.UTC().Format(time.RFC3339Nano), "is_dir": st.IsDir,
		})
		return
	}
	fmt.Fprintf(stdout, "%s\t%d\t%s\t%s\n", st.Mode, st.Size, st.ModTime.UTC().Format(time.RFC3339), st.Path)
}

func cmdStat(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	return fileCmd("stat", args, stderr, nil, func(h *host.Host, cwd, path string, hf *hostFlags) int {
		st, err := h.Stat(context.Background(), cwd, path)
		if err != nil {
			return fail(stderr, "stat", err, exitCode(err))
		}
		printStat(stdout, st, hf.json)
		return 0
	})
}

func cmdWrite(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return fileCmd("write", args, stderr, nil, func(h *host.Host, cwd, path string, hf *hostFlags) int {
		data, err := io.ReadAll(stdin)
		if err != nil {
			return fail(stderr, "write", err, 1)
		}
		st, err := h.WriteFile(context.Background(), cwd, path, data)
		if err != nil {
			return fail(stderr, "write", err, exitCode(err))
		}
		if hf.json {
			printStat(stdout, st, true)
		}
		return 0
	})
}

func cmdMkdir(args []string, _ io.Reader, _, stderr io.Writer) int {
	var parents bool
	return fileCmd("mkdir", args, stderr, func(fs *flagSet) {
		fs.BoolVar(&parents, "p", false, "create missing parents; an existing directory is not an error")
	}, func(h *host.Host, cwd, path string, _ *hostFlags) int {
		if err := h.CreateDir(context.Background(), cwd, path, parents, parents); err != nil {
			return fail(stderr, "mkdir", err, exitCode(err))
		}
		return 0
	})
}

func cmdRm(args []string, _ io.Reader, _, stderr io.Writer) int {
	return fileCmd("rm", args, stderr, nil, func(h *host.Host, cwd, path string, _ *hostFlags) int {
		if err := h.RemoveFile(context.Background(), cwd, path); err != nil {
			return fail(stderr, "rm", err, exitCode(err))
		}
		return 0
	})
}
