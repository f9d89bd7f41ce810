package gitlab_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The package's layout rules, read from its source with go/parser (the
// non-test files of this directory).
//
// A tool file is a file that declares a tool: a method of *gitlab without
// parameters whose only result is tools.Definition (func (g *gitlab) x()
// tools.Definition). Every other file is a shared file (gitlab.go,
// store.go, and the family files: namespaces.go, work_items.go, …).
//
// A tool file holds its tool (the Definition method, its args type, its run
// function) and helpers used only by it; what two tools share lives in a
// shared file. So nothing a tool file declares at the top level (function,
// method, type, variable, constant) is used from another file, tool or
// shared, except the tool's Definition method, which the registration
// list names.

// pkgSource is the parsed package: each non-test file by name.
type pkgSource struct {
	fset  *token.FileSet
	files map[string]*ast.File
}

func parsePackage(t *testing.T) pkgSource {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	src := pkgSource{fset: token.NewFileSet(), files: map[string]*ast.File{}}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(src.fset, name, b, 0)
		if err != nil {
			t.Fatal(err)
		}
		src.files[name] = f
	}
	if len(src.files) == 0 {
		t.Fatal("no Go files found: the test must run in the package's directory")
	}
	return src
}

// gitlabMethod reports whether fn is a method of gitlab or *gitlab, the
// type every tool hangs from.
func gitlabMethod(fn *ast.FuncDecl) bool {
	if fn.Recv == nil || len(fn.Recv.List) != 1 {
		return false
	}
	t := fn.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.Name == "gitlab"
}

// definitionMethod reports whether fn declares a tool: a method
// func (g *gitlab) name() tools.Definition, or a function
// func name(g *gitlab) tools.Definition that builds a small tool value
// from what the tools share (the form every tool moves to, issue #34).
func definitionMethod(fn *ast.FuncDecl) bool {
	if fn.Type.Results.NumFields() != 1 {
		return false
	}
	switch {
	case gitlabMethod(fn) && fn.Type.Params.NumFields() == 0:
	case definitionFunc(fn):
	default:
		return false
	}
	sel, ok := fn.Type.Results.List[0].Type.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "tools" && sel.Sel.Name == "Definition"
}

// definitionFunc reports whether fn is a function whose one parameter is
// a *gitlab (the registration form func name(g *gitlab) tools.Definition).
func definitionFunc(fn *ast.FuncDecl) bool {
	if fn.Recv != nil || fn.Type.Params.NumFields() != 1 {
		return false
	}
	star, ok := fn.Type.Params.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	id, ok := star.X.(*ast.Ident)
	return ok && id.Name == "gitlab"
}

// toolMethods lists the tool-declaring methods and functions of a file.
func toolMethods(f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && definitionMethod(fn) {
			out = append(out, fn.Name.Name)
		}
	}
	return out
}

// topLevel lists what a file declares at the top level: functions and
// types, variables and constants by name, methods of *gitlab as "method
// name" (a method of a type the file declares is reached through the type,
// or a value a function of the file returns, so through a name listed
// already).
func topLevel(f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil {
				if gitlabMethod(d) {
					out = append(out, "method "+d.Name.Name)
				}
			} else if d.Name.Name != "init" {
				out = append(out, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					out = append(out, s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.Name != "_" {
							out = append(out, n.Name)
						}
					}
				}
			}
		}
	}
	return out
}

// uses lists the package-level names a file refers to: identifiers the
// parser left unresolved in the file (so not a local, a parameter or a
// name of the file itself) and the names after a dot (methods; a field
// of the same name as another file's method is reported too, and is
// better renamed). Keys of composite literals are field names, not uses.
func uses(f *ast.File) map[string]token.Pos {
	out := map[string]token.Pos{}
	add := func(name string, pos token.Pos) {
		if _, ok := out[name]; !ok {
			out[name] = pos
		}
	}
	keys := map[*ast.Ident]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CompositeLit:
			for _, e := range n.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					if id, ok := kv.Key.(*ast.Ident); ok {
						keys[id] = true
					}
				}
			}
		case *ast.SelectorExpr:
			add("method "+n.Sel.Name, n.Sel.Pos())
			ast.Inspect(n.X, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok && id.Obj == nil && !keys[id] {
					add(id.Name, id.Pos())
				}
				return true
			})
			return false
		case *ast.Ident:
			if n.Obj == nil && !keys[n] {
				add(n.Name, n.Pos())
			}
		}
		return true
	})
	return out
}

// TestToolFilesStandAlone: no file uses what a tool file declares, but
// for the Definition methods.
func TestToolFilesStandAlone(t *testing.T) {
	src := parsePackage(t)
	owner := map[string]string{} // declared name → the tool file declaring it
	var toolFiles []string
	for name, f := range src.files {
		if len(toolMethods(f)) == 0 {
			continue
		}
		toolFiles = append(toolFiles, name)
		for _, d := range topLevel(f) {
			owner[d] = name
		}
		for _, m := range toolMethods(f) {
			delete(owner, "method "+m)
			delete(owner, m)
		}
	}
	if len(toolFiles) < 40 {
		t.Fatalf("found %d tool files; the tool-file rule no longer matches the package", len(toolFiles))
	}
	var files []string
	for name := range src.files {
		files = append(files, name)
	}
	sort.Strings(files)
	for _, name := range files {
		u := uses(src.files[name])
		var names []string
		for n := range u {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			if o, ok := owner[n]; ok && o != name {
				t.Errorf("%s: %s is declared in the tool file %s; move it to a shared file",
					src.fset.Position(u[n]), n, o)
			}
		}
	}
}

// TestCatalog_registrationList: tools.go is generated: its definitions method
// lists every Definition method of the package, once, sorted by name
// (`go test ./services/tools/gitlab -run TestCatalog -update` writes it with
// the catalog snapshot, so a new tool file needs no edit elsewhere), and
// the package has no init function (registration is that list, nothing
// else).
func TestCatalog_registrationList(t *testing.T) {
	src := parsePackage(t)
	var declared []string
	for _, f := range src.files {
		declared = append(declared, toolMethods(f)...)
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
				t.Errorf("%s: func init: list the tool in tools.go instead", src.fset.Position(fn.Pos()))
			}
		}
	}
	slices.Sort(declared)
	funcs := map[string]bool{}
	for _, f := range src.files {
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && definitionFunc(fn) && definitionMethod(fn) {
				funcs[fn.Name.Name] = true
			}
		}
	}
	if checkGenerated(t, "tools.go", []byte(registrationFile(declared, funcs))) {
		// This test binary was built from the old list: its snapshot
		// lacks the tools just listed.
		t.Errorf("tools.go now lists %d tools: run the generator once more to snapshot them", len(declared))
	}
	if listed := registrationList(t, src); !*update && !slices.Equal(listed, declared) {
		t.Errorf("tools.go lists %v, want %v", listed, declared)
	}
}

// registrationFile is tools.go listing methods (g.x()) and functions
// (x(g), the names in funcs).
func registrationFile(methods []string, funcs map[string]bool) string {
	var b strings.Builder
	b.WriteString("// Code generated by `go test ./services/tools/gitlab -run TestCatalog -update`; DO NOT EDIT.\n\n" +
		"package gitlab\n\nimport \"gitlab.com/glmcp/glmcp/services/tools\"\n\n" +
		"// definitions lists every GitLab tool, sorted by name: every function\n" +
		"// func x(g *gitlab) tools.Definition and every method\n" +
		"// func (g *gitlab) x() tools.Definition of the package (layout_test.go\n" +
		"// writes this file).\n" +
		"func (g *gitlab) definitions() []tools.Definition {\n\treturn []tools.Definition{\n")
	for _, m := range methods {
		if funcs[m] {
			b.WriteString("\t\t" + m + "(g),\n")
		} else {
			b.WriteString("\t\tg." + m + "(),\n")
		}
	}
	b.WriteString("\t}\n}\n")
	return b.String()
}

// registrationList returns the methods tools.go's definitions returns, in
// order: the elements of its one composite literal, each g.x().
func registrationList(t *testing.T, src pkgSource) []string {
	t.Helper()
	f := src.files["tools.go"]
	if f == nil {
		t.Fatal("tools.go is missing")
	}
	var out []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "definitions" || !gitlabMethod(fn) {
			continue
		}
		if len(fn.Body.List) != 1 {
			t.Fatal("tools.go: definitions must be one return of a list literal")
		}
		ret, ok := fn.Body.List[0].(*ast.ReturnStmt)
		if !ok || len(ret.Results) != 1 {
			t.Fatal("tools.go: definitions must be one return of a list literal")
		}
		lit, ok := ret.Results[0].(*ast.CompositeLit)
		if !ok {
			t.Fatal("tools.go: definitions must be one return of a list literal")
		}
		for _, e := range lit.Elts {
			call, ok := e.(*ast.CallExpr)
			if !ok {
				t.Fatalf("%s: each element of the list is g.tool() or tool(g)", src.fset.Position(e.Pos()))
			}
			switch fun := call.Fun.(type) {
			case *ast.SelectorExpr:
				if len(call.Args) != 0 {
					t.Fatalf("%s: each element of the list is g.tool() or tool(g)", src.fset.Position(e.Pos()))
				}
				out = append(out, fun.Sel.Name)
			case *ast.Ident:
				if len(call.Args) != 1 {
					t.Fatalf("%s: each element of the list is g.tool() or tool(g)", src.fset.Position(e.Pos()))
				}
				out = append(out, fun.Name)
			default:
				t.Fatalf("%s: each element of the list is g.tool() or tool(g)", src.fset.Position(e.Pos()))
			}
		}
		return out
	}
	t.Fatal("tools.go: no func (g *gitlab) definitions() []tools.Definition")
	return nil
}

// maxGitlabMethods ratchets the methods of *gitlab down (issue #34: one
// receiver for every tool): a tool that stands alone is a small
// value with its needs declared (get_user.go: getUserTool and its
// getUserStore), whose methods are its own, so converting a tool lowers
// the count here and a new tool may not raise it.
const maxGitlabMethods = 8

// maxToolStoreMethods bounds the store interface a tool value declares,
// and the store struct that puts several families' parts together.
const maxToolStoreMethods = 15

// wiring is the package's types every tool is built from, not a tool's
// need: the registration kit, its Deps and the store by family
// (Families: one field per family, no methods of its own).
var wiring = map[string]bool{"Deps": true, "gitlab": true, "Families": true}

// TestToolNeeds: *gitlab has no more methods than the ratchet allows, and
// every store interface a tool file declares is small, and so is every
// struct that embeds interfaces (a store struct such as saveNoteStore:
// the methods it gets from them, and from the structs it embeds).
func TestToolNeeds(t *testing.T) {
	src := parsePackage(t)
	methods := 0
	for _, f := range src.files {
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && gitlabMethod(fn) {
				methods++
			}
		}
	}
	t.Logf("*gitlab has %d methods", methods)
	if methods > maxGitlabMethods {
		t.Errorf("*gitlab has %d methods, more than %d: make the new tool a small value with its needs declared (see get_user.go)", methods, maxGitlabMethods)
	}
	ifaces := interfaces(src)
	structs := structTypes(src)
	for _, name := range sortedFiles(src) {
		f := src.files[name]
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range gd.Specs {
				ts, ok := spec.(*ast.TypeSpec)
				if !ok {
					continue
				}
				switch typ := ts.Type.(type) {
				case *ast.InterfaceType:
					// A store interface a tool or a family helper
					// declares (the family interfaces Families holds,
					// IssueFamily and the like, are the wiring).
					if !strings.HasSuffix(ts.Name.Name, "Store") {
						continue
					}
					if n := len(methodSet(ifaces, ts.Name.Name)); n > maxToolStoreMethods {
						t.Errorf("%s: %s has %d methods (embedded ones counted), more than %d", name, ts.Name.Name, n, maxToolStoreMethods)
					}
				case *ast.StructType:
					// What a tool value or a shared value holds: every
					// interface field, expanded; and a store struct's
					// promoted methods.
					if wiring[ts.Name.Name] {
						continue // the wiring every tool is built from, not a tool
					}
					if n := len(promotedSet(ifaces, structs, ts.Name.Name)); n > maxToolStoreMethods {
						t.Errorf("%s: %s gets %d methods from what it embeds, more than %d", name, ts.Name.Name, n, maxToolStoreMethods)
					}
					for _, fld := range typ.Fields.List {
						// Never the wiring itself: a tool holds its
						// narrow pieces, not *gitlab or all of Families.
						typName := fld.Type
						if star, ok := typName.(*ast.StarExpr); ok {
							typName = star.X
						}
						if id, ok := typName.(*ast.Ident); ok && wiring[id.Name] {
							t.Errorf("%s: %s holds a %s: the wiring, not what a tool needs", name, ts.Name.Name, id.Name)
						}
						id, ok := fld.Type.(*ast.Ident)
						if !ok || ifaces[id.Name] == nil {
							continue
						}
						if n := len(methodSet(ifaces, id.Name)); n > maxToolStoreMethods {
							t.Errorf("%s: %s holds a %s of %d methods (embedded ones counted), more than %d", name, ts.Name.Name, id.Name, n, maxToolStoreMethods)
						}
					}
				}
			}
		}
	}
}

// interfaces maps each interface type the package declares to its type.
func interfaces(src pkgSource) map[string]*ast.InterfaceType {
	out := map[string]*ast.InterfaceType{}
	for _, f := range src.files {
		ast.Inspect(f, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok {
				if it, ok := ts.Type.(*ast.InterfaceType); ok {
					out[ts.Name.Name] = it
				}
			}
			return true
		})
	}
	return out
}

// structTypes maps each struct type the package declares to its type.
func structTypes(src pkgSource) map[string]*ast.StructType {
	out := map[string]*ast.StructType{}
	for _, f := range src.files {
		ast.Inspect(f, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok {
				if st, ok := ts.Type.(*ast.StructType); ok {
					out[ts.Name.Name] = st
				}
			}
			return true
		})
	}
	return out
}

// promotedSet is the names of the methods struct name gets from the
// package's interfaces and structs it embeds (directly or through an
// embedded struct); an embedded type of another package counts as one.
// Methods declared on the structs themselves are not counted.
func promotedSet(ifaces map[string]*ast.InterfaceType, structs map[string]*ast.StructType, name string) map[string]bool {
	out := map[string]bool{}
	var walk func(name string, depth int)
	walk = func(name string, depth int) {
		st := structs[name]
		if st == nil || depth > 10 {
			return
		}
		for _, fld := range st.Fields.List {
			if len(fld.Names) != 0 {
				continue
			}
			typ := fld.Type
			if star, ok := typ.(*ast.StarExpr); ok {
				typ = star.X
			}
			id, ok := typ.(*ast.Ident)
			switch {
			case !ok:
				out[fmt.Sprint(typ)] = true
			case ifaces[id.Name] != nil:
				for m := range methodSet(ifaces, id.Name) {
					out[m] = true
				}
			case structs[id.Name] != nil:
				walk(id.Name, depth+1)
			}
		}
	}
	walk(name, 0)
	return out
}

// methodSet is the method names of the package's interface name, with
// the ones of the package's interfaces it embeds (an embedded interface
// of another package counts as one).
func methodSet(ifaces map[string]*ast.InterfaceType, name string) map[string]bool {
	out := map[string]bool{}
	var walk func(name string, depth int)
	walk = func(name string, depth int) {
		it := ifaces[name]
		if it == nil || depth > 10 {
			out[name] = true
			return
		}
		for _, m := range it.Methods.List {
			switch typ := m.Type.(type) {
			case *ast.FuncType:
				for _, n := range m.Names {
					out[n.Name] = true
				}
			case *ast.Ident:
				walk(typ.Name, depth+1)
			default:
				out[fmt.Sprint(typ)] = true
			}
		}
	}
	walk(name, 0)
	return out
}

// sortedFiles is the package's file names in order.
func sortedFiles(src pkgSource) []string {
	var names []string
	for name := range src.files {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}
