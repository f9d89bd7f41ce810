package handlers_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "gitlab.com/glmcp/glmcp"

// layers ranks the server's top-level directories, top down: a package
// imports only packages of its own layer or a lower one (doc/architecture.md,
// "Dependency direction"). The middleware is below the handlers: it says
// what it refused, and the handlers layer writes it (RenderRefusals).
var layers = map[string]int{
	"cmd": 5, "app": 4, "handlers": 3, "middleware": 2, "services": 1,
	"internal": 0, "models": 0, "migrations": 0,
}

// envelopeWriters may hold a JSON-RPC envelope literal outside
// handlers/jsonrpc, with the reason.
var envelopeWriters = map[string]string{
	"app/demo.go": "the demo banner's curl example: a request for a person to send",
}

// serverFiles parses every non-test Go file of the layered directories
// (directories the go tool ignores, "_" and "." ones and testdata, left
// out), keyed by their path from the module root.
func serverFiles(t *testing.T, mode parser.Mode) (*token.FileSet, map[string]*ast.File) {
	t.Helper()
	root := ".."
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			if _, ok := layers[topDir(rel)]; rel != "." && !ok {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || !strings.Contains(rel, "/") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, mode|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files[rel] = f
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 50 {
		t.Fatalf("found %d files: not run from the handlers directory?", len(files))
	}
	return fset, files
}

func topDir(rel string) string {
	top, _, _ := strings.Cut(rel, "/")
	return top
}

// Ensure no package imports one of a layer above it: in particular the
// middleware imports nothing of handlers/, not even handlers/jsonrpc.
func TestLayers_noImportUpward(t *testing.T) {
	_, files := serverFiles(t, parser.ImportsOnly)
	for rel, f := range files {
		from := topDir(rel)
		for _, spec := range f.Imports {
			path, _ := strconv.Unquote(spec.Path.Value)
			inner, ok := strings.CutPrefix(path, module+"/")
			if !ok {
				continue
			}
			to := topDir(inner)
			if rank, known := layers[to]; known && rank > layers[from] {
				t.Errorf("%s imports %s: %s is above %s", rel, path, to, from)
			}
		}
	}
}

// Ensure every JSON-RPC body is written by handlers/jsonrpc: no other
// server file holds an envelope literal (a string with "jsonrpc":"2.0").
func TestLayers_envelopesOnlyInJSONRPC(t *testing.T) {
	fset, files := serverFiles(t, 0)
	for rel, f := range files {
		if strings.HasPrefix(rel, "handlers/jsonrpc/") || envelopeWriters[rel] != "" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && strings.Contains(s, `"jsonrpc":"2.0"`) {
				t.Errorf("%s: a JSON-RPC envelope written by hand; use handlers/jsonrpc", fset.Position(lit.Pos()))
			}
			return true
		})
	}
}

// Ensure the specs reach the store's state only through its API and
// storetest (which owns the raw reads they need): no Store.DB() call in
// spec/, so a schema change touches one helper, not the specs.
func TestLayers_specsUseNoStoreDB(t *testing.T) {
	paths, err := filepath.Glob("../spec/*.go")
	if err != nil || len(paths) < 20 {
		t.Fatalf("found %d spec files (%v): not run from the handlers directory?", len(paths), err)
	}
	fset := token.NewFileSet()
	for _, path := range paths {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 0 {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "DB" {
				t.Errorf("%s: Store.DB() in a spec; read the store through its API or storetest", fset.Position(call.Pos()))
			}
			return true
		})
	}
}
