package exec

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const thisModule = "github.com/agenthost/agenthost"

// basement are the packages of this module that host/exec may import
// although the layering says "host/exec: nothing of ours" (API.md,
// "Imports flow one way"): leaves that import nothing of ours either, so
// they pull no floor in. Each says why it is one.
var basement = map[string]string{
	thisModule + "/internal/gitconfig": "git's config syntax, a parser that runs and reads nothing (protect_linux.go reads .git/config with it, as host/walk does)",
}

// ourImports returns, for every non-test Go file beneath dir (every
// platform's and build tag's: the files are parsed, not built), the
// imports of this module it has, as "file: import".
func ourImports(t *testing.T, dir string) (found []string, files int) {
	t.Helper()
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != dir && (name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if path == thisModule || strings.HasPrefix(path, thisModule+"/") {
				found = append(found, filepath.ToSlash(p)+": "+path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found, files
}

// TestImportsNothingOfOurs: no non-test file of host/exec, or of a
// package beneath it, imports a package of this module but host/exec's
// own (internal/helper) and the basement. host/walk above all: the
// caller passes the walk's answers (Sandbox.WorkTree), so the sandbox
// never asks a walk of its own (issue 21).
func TestImportsNothingOfOurs(t *testing.T) {
	const self = thisModule + "/host/exec"
	found, files := ourImports(t, ".")
	if files < 20 {
		t.Fatalf("parsed %d files: the test is not looking at host/exec", files)
	}
	for _, f := range found {
		_, path, _ := strings.Cut(f, ": ")
		if path == self || strings.HasPrefix(path, self+"/") || basement[path] != "" {
			continue
		}
		t.Errorf("%s: host/exec imports nothing of ours (API.md, \"Imports flow one way\")", f)
	}
	// The basement stays a basement.
	for path := range basement {
		dir := filepath.Join("..", "..", filepath.FromSlash(strings.TrimPrefix(path, thisModule+"/")))
		found, files := ourImports(t, dir)
		if files == 0 {
			t.Errorf("%s: no Go file in %s", path, dir)
		}
		for _, f := range found {
			t.Errorf("%s, in host/exec's basement, imports a package of ours", f)
		}
	}
}
