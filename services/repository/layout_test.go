package repository_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// maxLocalMethods bounds Local's method set (issue #34: no product type
// over 40 methods). Local's exported methods are the Repository
// interface; a helper belongs to the small value that holds what it needs
// (refStore, objectIO, ancestry), so a new helper on Local shows here.
const maxLocalMethods = 40

// TestLocalMethods counts the methods declared on Local in the package's
// non-test files, and refuses embedded fields in Local: an embedded
// type's methods would be promoted into Local's method set without being
// declared on it.
func TestLocalMethods(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	methods, structs := 0, 0
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if receiverIs(d, "Local") {
					methods++
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					ts, ok := spec.(*ast.TypeSpec)
					if !ok || ts.Name.Name != "Local" {
						continue
					}
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						t.Fatalf("%s: Local is not a struct", name)
					}
					structs++
					for _, fld := range st.Fields.List {
						if len(fld.Names) == 0 {
							t.Errorf("%s: Local embeds %s: its methods would join Local's; hold it in a named field", fset.Position(fld.Pos()), types(fld.Type))
						}
					}
				}
			}
		}
	}
	if structs != 1 {
		t.Fatalf("found %d declarations of Local: the test must run in the package's directory", structs)
	}
	t.Logf("*Local has %d methods", methods)
	if methods > maxLocalMethods {
		t.Errorf("*Local has %d methods, more than %d: give the new helper a home on the value that holds what it needs (refStore, objectIO, ancestry)", methods, maxLocalMethods)
	}
}

// receiverIs reports whether fn is a method of name (or *name).
func receiverIs(fn *ast.FuncDecl, name string) bool {
	if fn.Recv == nil || len(fn.Recv.List) != 1 {
		return false
	}
	t := fn.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.Name == name
}

// types names an embedded field's type for the failure message.
func types(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return "*" + types(e.X)
	case *ast.SelectorExpr:
		return types(e.X) + "." + e.Sel.Name
	case *ast.Ident:
		return e.Name
	}
	return "a type"
}
