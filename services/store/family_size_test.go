package store_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxFamilyMethods bounds each family (issue #34): a family past it serves
// more than one purpose and is split by what it serves, as Projects was
// into Projects, Groups and Imports.
const maxFamilyMethods = 40

// TestFamilySizes counts the methods of each family, read from the
// package's non-test files with go/parser: the families are the types of
// Store's pointer fields, and a method counts whatever its receiver's
// form (T or *T, exported or not).
func TestFamilySizes(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	counts := map[string]int{}
	for _, f := range files {
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
				for _, spec := range gd.Specs {
					ts := spec.(*ast.TypeSpec)
					st, ok := ts.Type.(*ast.StructType)
					if !ok || ts.Name.Name != "Store" {
						continue
					}
					for _, field := range st.Fields.List {
						star, ok := field.Type.(*ast.StarExpr)
						if !ok || len(field.Names) == 0 {
							continue // the embedded *core
						}
						if id, ok := star.X.(*ast.Ident); ok {
							counts[id.Name] = 0
						}
					}
				}
			}
		}
	}
	// The families named in the issue must be found, so that a change to
	// Store's shape cannot leave this test counting nothing.
	for _, want := range []string{"Projects", "Groups", "Imports", "Issues"} {
		if _, ok := counts[want]; !ok {
			t.Fatalf("family %s not found among Store's fields %v", want, counts)
		}
	}
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || len(fn.Recv.List) != 1 {
				continue
			}
			typ := fn.Recv.List[0].Type
			if star, ok := typ.(*ast.StarExpr); ok {
				typ = star.X
			}
			if id, ok := typ.(*ast.Ident); ok {
				if _, family := counts[id.Name]; family {
					counts[id.Name]++
				}
			}
		}
	}
	families := make([]string, 0, len(counts))
	for name := range counts {
		families = append(families, name)
	}
	sort.Strings(families)
	for _, name := range families {
		n := counts[name]
		t.Logf("%s: %d methods", name, n)
		if n > maxFamilyMethods {
			t.Errorf("family %s has %d methods, more than %d: split it by what it serves (a new family type beside it in store.go)", name, n, maxFamilyMethods)
		}
	}
}
