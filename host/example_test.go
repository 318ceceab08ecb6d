package host_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agenthost/agenthost/host"
)

// project makes a small project in a temporary directory and returns its
// canonical path and a function that removes it.
func project() (string, func()) {
	dir, err := os.MkdirTemp("", "example-")
	if err != nil {
		log.Fatal(err)
	}
	dir, _ = filepath.EvalSymlinks(dir)
	for name, body := range map[string]string{
		".gitignore":     "*.log\nnode_modules/\n",
		"main.go":        "package main\n",
		"src/util.go":    "package src\n",
		"debug.log":      "noise\n",
		"node_modules/x": "dependency\n",
	} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
	}
	// A repository (what git init makes, in short), so that .gitignore applies.
	for _, d := range []string{".git/objects", ".git/refs"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	os.WriteFile(filepath.Join(dir, ".git/HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	return dir, func() { os.RemoveAll(dir) }
}

// A Host is one session's view of the machine: every path its methods get
// must lie inside a root, the workspace first.
func ExampleNew() {
	dir, done := project()
	defer done()

	h, err := host.New(host.Config{WorkspaceRoot: dir})
	if err != nil {
		log.Fatal(err) // errors.Is(err, host.ErrInvalidRoot) for a missing directory
	}
	defer h.Close()
	fmt.Println(h.WorkspaceRoot() == dir, len(h.Roots()))

	_, err = host.New(host.Config{WorkspaceRoot: filepath.Join(dir, "missing")})
	fmt.Println(errors.Is(err, host.ErrInvalidRoot))
	// Output:
	// true 1
	// true
}

// AddRoot widens the jail, as /add-dir does in an agent: a path outside
// the workspace is refused until its directory is added.
func ExampleHost_AddRoot() {
	dir, done := project()
	defer done()
	notes, _ := os.MkdirTemp("", "notes-")
	defer os.RemoveAll(notes)
	os.WriteFile(filepath.Join(notes, "todo.md"), []byte("- ship it\n"), 0o644)

	h, err := host.New(host.Config{WorkspaceRoot: dir})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()

	_, err = h.ReadFile(ctx, "", filepath.Join(notes, "todo.md"))
	fmt.Println("before:", errors.Is(err, host.ErrEscape))
	if _, err := h.AddRoot(notes); err != nil {
		log.Fatal(err)
	}
	r, err := h.ReadFile(ctx, "", filepath.Join(notes, "todo.md"))
	fmt.Printf("after: %q %v\n", r.Contents, err)
	// Output:
	// before: true
	// after: "- ship it\n" <nil>
}

// ReadFile reads through the jail: relative paths are relative to cwd, and
// no "..", absolute path or symbolic link leads out.
func ExampleHost_ReadFile() {
	dir, done := project()
	defer done()
	os.Symlink("/etc/passwd", filepath.Join(dir, "innocent.txt"))

	h, err := host.New(host.Config{WorkspaceRoot: dir})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()

	r, err := h.ReadFile(ctx, "src", "util.go") // cwd "src", relative to the workspace
	fmt.Printf("%q %d %v\n", r.Contents, r.Stat.Size, err)
	fmt.Println(strings.TrimPrefix(r.Path, dir)) // canonical

	for _, p := range []string{"../../etc/passwd", "/etc/passwd", "innocent.txt"} {
		_, err := h.ReadFile(ctx, "", p)
		fmt.Println(p, errors.Is(err, host.ErrEscape))
	}
	_, err = h.ReadFile(ctx, "", "missing.go")
	fmt.Println("missing.go", errors.Is(err, fs.ErrNotExist))
	// Output:
	// "package src\n" 12 <nil>
	// /src/util.go
	// ../../etc/passwd true
	// /etc/passwd true
	// innocent.txt true
	// missing.go true
}

// WriteFile replaces a file atomically: a reader sees the old contents or
// the new, never a mix.
func ExampleHost_WriteFile() {
	dir, done := project()
	defer done()
	h, err := host.New(host.Config{WorkspaceRoot: dir})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()

	st, err := h.WriteFile(ctx, "src", "../README.md", []byte("# project\n"))
	fmt.Println(strings.TrimPrefix(st.Path, dir), st.Size, err)
	_, err = h.WriteFile(ctx, "", "no/such/dir/file", nil)
	fmt.Println(errors.Is(err, fs.ErrNotExist)) // a missing parent
	_, err = h.WriteFile(ctx, "", "../outside.txt", nil)
	fmt.Println(errors.Is(err, host.ErrEscape))
	// Output:
	// /README.md 10 <nil>
	// true
	// true
}

// Walk lists what git would: ignored files and directories are left out.
func ExampleHost_Walk() {
	dir, done := project()
	defer done()
	h, err := host.New(host.Config{WorkspaceRoot: dir})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()

	entries, err := h.Walk(context.Background(), "", ".", host.WalkOptions{Hidden: true})
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir {
			fmt.Println(strings.TrimPrefix(e.Path, dir+"/"), e.Depth)
		}
	}
	// Output:
	// .gitignore 1
	// main.go 1
	// src/util.go 2
}

// IsPathIgnored answers as git check-ignore does, for paths that need not
// exist.
func ExampleHost_IsPathIgnored() {
	dir, done := project()
	defer done()
	h, err := host.New(host.Config{WorkspaceRoot: dir})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()

	for _, p := range []string{"debug.log", "node_modules/x", "main.go", "new/trace.log"} {
		ignored, err := h.IsPathIgnored(context.Background(), "", p)
		fmt.Println(p, ignored, err)
	}
	// Output:
	// debug.log true <nil>
	// node_modules/x true <nil>
	// main.go false <nil>
	// new/trace.log true <nil>
}

// Exec runs a shell command in a directory of the jail, with a timeout,
// and returns its output and status; a non-zero exit is not an error.
func ExampleHost_Exec() {
	dir, done := project()
	defer done()
	h, err := host.New(host.Config{WorkspaceRoot: dir})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()

	out, err := h.Exec(ctx, host.ExecRequest{Command: "ls; echo oops >&2; exit 3", Cwd: "src", Timeout: 10 * time.Second})
	fmt.Printf("%q %q %d %v\n", out.Stdout, out.Stderr, out.ExitCode, err)

	out, _ = h.Exec(ctx, host.ExecRequest{Command: "sleep 10", Timeout: 100 * time.Millisecond})
	fmt.Println(out.TimedOut)

	_, err = h.Exec(ctx, host.ExecRequest{Command: "true", Cwd: "/"})
	fmt.Println(errors.Is(err, host.ErrEscape)) // only where it starts is jailed
	// Output:
	// "util.go\n" "oops\n" 3 <nil>
	// true
	// true
}
