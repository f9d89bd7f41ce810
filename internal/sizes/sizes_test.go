// Package sizes holds the product-wide size rule of issue #34: no type in
// the product has more than 40 methods. It is a test only: it reads the
// product's Go files as text (go/parser), runs nothing. So it counts the
// methods of the module's own types: a type embedded from another module
// (go-git's *filesystem.Storage in repository's objectStore, 34 exported
// methods today) adds none to the count.
package sizes_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// maxMethods bounds every type's method set: a type past it serves more
// than one purpose and is split by what it serves (as store.Projects was
// into Projects, Groups and Imports, and repository.Local's helpers into
// refStore, objectIO and ancestry). It has no exceptions: the last, the
// GitLab tools' store binding (a struct embedding every store family and
// the union of the tools' store interfaces), became gitlab.Families, a
// struct of one field per family with no methods.
const maxMethods = 40

const module = "gitlab.com/glmcp/glmcp"

// typeInfo is what the rule reads of one type: the methods declared on it
// (or listed in it, for an interface) and the types it embeds, whose
// methods it gets too.
type typeInfo struct {
	methods map[string]bool
	embeds  []string // "pkgdir.Type"
}

// TestNoTypeOverFortyMethods counts each product type's method set: the
// methods declared on it, and those of the types it embeds (an embedded
// type's methods are promoted into it), interfaces likewise. Tests,
// specs, benchmarks and generated test fixtures are not the product.
func TestNoTypeOverFortyMethods(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]*typeInfo{}
	get := func(key string) *typeInfo {
		ti := types[key]
		if ti == nil {
			ti = &typeInfo{methods: map[string]bool{}}
			types[key] = ti
		}
		return ti
	}
	fset := token.NewFileSet()
	files := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch {
			case rel == ".":
			case strings.HasPrefix(d.Name(), "."), d.Name() == "node_modules", d.Name() == "testdata",
				rel == "spec", rel == "bench", rel == "internal/sizes":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		dir := path.Dir(rel)
		imports := map[string]string{} // local name → package dir
		for _, im := range f.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			if !strings.HasPrefix(ip, module+"/") {
				continue
			}
			pdir := strings.TrimPrefix(ip, module+"/")
			name := path.Base(pdir)
			if im.Name != nil {
				name = im.Name.Name
			}
			imports[name] = pdir
		}
		typeKey := func(e ast.Expr) string {
			if s, ok := e.(*ast.StarExpr); ok {
				e = s.X
			}
			switch e := e.(type) {
			case *ast.Ident:
				return dir + "." + e.Name
			case *ast.SelectorExpr:
				if x, ok := e.X.(*ast.Ident); ok && imports[x.Name] != "" {
					return imports[x.Name] + "." + e.Sel.Name
				}
			case *ast.IndexExpr: // a generic type's instance
				if id, ok := e.X.(*ast.Ident); ok {
					return dir + "." + id.Name
				}
			}
			return ""
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Recv != nil && len(decl.Recv.List) == 1 {
					if key := typeKey(decl.Recv.List[0].Type); key != "" {
						get(key).methods[decl.Name.Name] = true
					}
				}
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					ts, ok := spec.(*ast.TypeSpec)
					if !ok {
						continue
					}
					ti := get(dir + "." + ts.Name.Name)
					switch typ := ts.Type.(type) {
					case *ast.StructType:
						for _, fld := range typ.Fields.List {
							if len(fld.Names) == 0 {
								if key := typeKey(fld.Type); key != "" {
									ti.embeds = append(ti.embeds, key)
								}
							}
						}
					case *ast.InterfaceType:
						for _, m := range typ.Methods.List {
							if len(m.Names) == 0 {
								if key := typeKey(m.Type); key != "" {
									ti.embeds = append(ti.embeds, key)
								}
								continue
							}
							for _, n := range m.Names {
								ti.methods[n.Name] = true
							}
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 200 {
		t.Fatalf("read %d product files: the test must run in internal/sizes of the module", files)
	}
	var set func(key string, seen map[string]bool, out map[string]bool)
	set = func(key string, seen map[string]bool, out map[string]bool) {
		if seen[key] {
			return
		}
		seen[key] = true
		ti := types[key]
		if ti == nil {
			return
		}
		for m := range ti.methods {
			out[m] = true
		}
		for _, e := range ti.embeds {
			set(e, seen, out)
		}
	}
	keys := make([]string, 0, len(types))
	for k := range types {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	largest, largestKey := 0, ""
	for _, key := range keys {
		ms := map[string]bool{}
		set(key, map[string]bool{}, ms)
		n := len(ms)
		if n > largest {
			largest, largestKey = n, key
		}
		if n > maxMethods {
			t.Errorf("%s has %d methods (promoted ones counted), more than %d: split it by what it serves", key, n, maxMethods)
		}
	}
	t.Logf("%d types in %d files; the largest: %s, %d methods", len(keys), files, largestKey, largest)
}
