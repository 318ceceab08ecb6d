// Command gentree writes a deterministic source-like tree for the walk
// benchmarks: nested packages with source, docs and data files, nested
// .gitignore files (negations, anchored and dir-only patterns, "**"),
// node_modules, build and cache directories to prune, and dot-files.
//
// Usage: gentree [-files N] [-seed S] DIR
//
// DIR must not exist or be empty; it is made a git repository by the caller.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	files := flag.Int("files", 120000, "approximate number of files to write")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: gentree [-files N] [-seed S] DIR")
		os.Exit(2)
	}
	g := &gen{root: flag.Arg(0), r: rand.New(rand.NewPCG(*seed, 42)), budget: *files}
	if err := os.MkdirAll(g.root, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	g.write(".gitignore", "# top level\n*.log\n*.tmp\n!keep.log\n/dist/\nnode_modules/\n**/cache/\n*.o\n.env\n")
	for g.written < g.budget {
		g.pkg(fmt.Sprintf("pkg%03d", g.pkgs), 0)
		g.pkgs++
	}
	fmt.Printf("%d files, %d directories, %d .gitignore files under %s\n", g.written, g.dirs, g.ignores, g.root)
}

type gen struct {
	root    string
	r       *rand.Rand
	budget  int
	written int
	dirs    int
	ignores int
	pkgs    int
}

var (
	exts     = []string{".go", ".go", ".go", ".ts", ".js", ".md", ".json", ".txt", ".log", ".tmp", ".o", ".c", ".h", ".py"}
	subnames = []string{"internal", "util", "api", "cmd", "testdata", "docs", "gen", "build", "cache", "node_modules", "vendor", "assets", "src", "lib"}
	ignores  = []string{
		"build/\n", "*.gen.go\n!keep.gen.go\n", "/testdata/*.json\n", "gen/\n!gen/keep/\n",
		"*.md\n!README.md\n", "**/tmp/**\n", "[a-c]*.txt\n", "docs/**/*.txt\n", "*.py[co]\n", "vendor/\n",
	}
)

func (g *gen) write(rel, contents string) {
	p := filepath.Join(g.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		panic(err)
	}
	if err := os.WriteFile(p, []byte(contents), 0o644); err != nil {
		panic(err)
	}
	g.written++
}

// pkg writes one directory and, below a small depth, its subdirectories.
func (g *gen) pkg(dir string, depth int) {
	if g.written >= g.budget {
		return
	}
	g.dirs++
	n := 8 + g.r.IntN(40)
	for i := 0; i < n; i++ {
		ext := exts[g.r.IntN(len(exts))]
		name := fmt.Sprintf("%s%d%s", []string{"a", "b", "c", "file", "main", "util", "keep", "x"}[g.r.IntN(8)], i, ext)
		if g.r.IntN(20) == 0 {
			name = strings.TrimSuffix(name, ext) + ".gen.go"
		}
		g.write(filepath.Join(dir, name), "x\n")
	}
	if g.r.IntN(4) == 0 {
		g.write(filepath.Join(dir, ".gitignore"), ignores[g.r.IntN(len(ignores))])
		g.ignores++
	}
	if g.r.IntN(10) == 0 {
		g.write(filepath.Join(dir, ".hidden", "secret.txt"), "x\n")
	}
	if depth >= 4 {
		return
	}
	for i, k := 0, 1+g.r.IntN(4); i < k; i++ {
		sub := subnames[g.r.IntN(len(subnames))]
		if g.r.IntN(2) == 0 {
			sub = fmt.Sprintf("%s%d", sub, i)
		}
		g.pkg(filepath.Join(dir, sub), depth+1)
	}
}
