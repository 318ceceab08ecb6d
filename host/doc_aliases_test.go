package host_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAliasesSayWhereTheFieldsAre: go doc on a type the facade re-exports
// shows only the alias's comment, so each one must name the type it is and
// the go doc command that shows its fields.
func TestAliasesSayWhereTheFieldsAre(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	seen := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				sel, ok := ts.Type.(*ast.SelectorExpr)
				if !ts.Assign.IsValid() || !ok || !ts.Name.IsExported() {
					continue
				}
				seen++
				doc := g.Doc.Text()
				pkg, typ := sel.X.(*ast.Ident).Name, sel.Sel.Name
				if !strings.Contains(doc, "["+pkg+"."+typ+"]") || !regexp.MustCompile(`go doc\s+github\.com/agenthost/agenthost/host/\w+\s+`+typ+`\b`).MatchString(doc) {
					t.Errorf("%s: the doc of %s = %s.%s does not say where its fields are documented (want [%s.%s] and a go doc command):\n%s",
						name, ts.Name.Name, pkg, typ, pkg, typ, doc)
				}
			}
		}
	}
	if seen < 5 {
		t.Fatalf("found only %d re-exported types: the test looks in the wrong place", seen)
	}
}
