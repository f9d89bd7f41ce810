package app_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"gorm.io/gorm"

	"gitlab.com/glmcp/glmcp/app"
	"gitlab.com/glmcp/glmcp/services/store"
)

// The issue that redesigned the request path (#8) bounds the files a
// tools/call crosses from the route to the store and back at eight. This
// test measures it on the real server: it records the goroutine's stack
// at every SQL statement the call runs and at every write of the
// response, and counts the glmcp files with a frame between the route
// handler (mcp.Server.Handle) and that point. Helpers that return before
// (the envelope decoder, the schema validation, the access check) are
// stops beside the path, not on it; doc/architecture.md lists them too.

const maxPathFiles = 8

const modulePrefix = "gitlab.com/glmcp/glmcp/"

const routeHandler = modulePrefix + "handlers/mcp.(*Server).Handle"

// pathRecorder collects the files on the request path.
type pathRecorder struct {
	mu     sync.Mutex
	files  map[string]bool
	stacks int
	// truncated counts the stacks too deep to read to the route handler.
	truncated int
}

type pathKey struct{}

func (p *pathRecorder) record() {
	pcs := make([]uintptr, 128)
	n := runtime.Callers(2, pcs)
	if n == len(pcs) {
		// The outer frames, the route handler's among them, are cut
		// off: the point cannot be told from one before the route.
		p.mu.Lock()
		p.truncated++
		p.mu.Unlock()
	}
	frames := runtime.CallersFrames(pcs[:n])
	var files []string
	route := false
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, modulePrefix) && !strings.HasSuffix(f.File, "_test.go") {
			files = append(files, relFile(f.File))
		}
		if f.Function == routeHandler {
			route = true
			break
		}
		if !more {
			break
		}
	}
	if !route {
		return // before the route: the middleware's own statements
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stacks++
	for _, f := range files {
		p.files[f] = true
	}
}

// relFile names a file by its path inside the module.
func relFile(path string) string {
	path = filepath.ToSlash(path)
	for _, dir := range []string{"/handlers/", "/services/", "/middleware/", "/models/", "/app/", "/internal/"} {
		if i := strings.LastIndex(path, dir); i >= 0 {
			return path[i+1:]
		}
	}
	return path
}

// ObserveStatement is store.StatementObserver: statements run outside gorm.
func (p *pathRecorder) ObserveStatement(string) { p.record() }

func (p *pathRecorder) reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.files, p.stacks, p.truncated = map[string]bool{}, 0, 0
}

func (p *pathRecorder) sorted() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for f := range p.files {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}

// stackWriter records the path at every write of the response.
type stackWriter struct {
	http.ResponseWriter
	p *pathRecorder
}

func (w stackWriter) Write(b []byte) (int, error) {
	w.p.record()
	return w.ResponseWriter.Write(b)
}

func (w stackWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func TestToolsCall_pathFiles(t *testing.T) {
	ctx := context.Background()
	cfg := app.Defaults()
	cfg.DataDir = t.TempDir()
	cfg.RepositoriesPath = filepath.Join(cfg.DataDir, "repositories")
	if err := os.MkdirAll(cfg.RepositoriesPath, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg.Secret = "path-secret-0123456789abcdefghijklmnopqrstuvwxyz"
	cfg.RateLimit, cfg.AuthFailureLimit, cfg.LogLevel = "0", "0", "error"
	cfg.Listen, cfg.PublicURL = "127.0.0.1:8080", "http://127.0.0.1:8080"
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	logger := app.NewLogger(&cfg, io.Discard)
	env, err := app.OpenEnv(ctx, &cfg, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Close() })
	tokens, err := app.SeedDemo(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	var alice string
	for _, tok := range tokens {
		if tok.Username == "alice" {
			alice = tok.Token
		}
	}
	srv, err := app.New(ctx, &cfg, env, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)

	p := &pathRecorder{files: map[string]bool{}}
	record := func(db *gorm.DB) {
		if c := db.Statement.Context; c != nil && c.Value(pathKey{}) == p {
			p.record()
		}
	}
	cb := env.Store.DB().Callback()
	for _, err := range []error{
		cb.Query().Before("gorm:query").Register("path:query", record),
		cb.Row().Before("gorm:row").Register("path:row", record),
		cb.Raw().Before("gorm:raw").Register("path:raw", record),
		cb.Create().Before("gorm:create").Register("path:create", record),
		cb.Update().Before("gorm:update").Register("path:update", record),
		cb.Delete().Before("gorm:delete").Register("path:delete", record),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	h := srv.Handler()
	serve := func(body string, modern bool) *httptest.ResponseRecorder {
		t.Helper()
		req := httptest.NewRequest(http.MethodPost, "/api/v4/mcp", strings.NewReader(body))
		req.Host = "127.0.0.1:8080"
		req.Header.Set("Authorization", "Bearer "+alice)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if modern {
			req.Header.Set("MCP-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", "get_issue")
		} else {
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		ctx := context.WithValue(req.Context(), pathKey{}, p)
		req = req.WithContext(store.WithStatementObserver(ctx, p))
		rec := httptest.NewRecorder()
		h.ServeHTTP(stackWriter{ResponseWriter: rec, p: p}, req)
		return rec
	}
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientInfo":{"name":"path","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	// Warm up: the first call loads the tool catalog snapshot (kept for
	// its maximum age, then reloaded once), which is not the path of a
	// call but of the catalog's refresh.
	if rec := serve(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_issue","arguments":{"id":"gitlab-org/gitlab-mcp","issue_iid":3}}}`, false); rec.Code != http.StatusOK {
		t.Fatalf("warm-up: %d %s", rec.Code, rec.Body.String())
	}
	for _, tc := range []struct {
		name   string
		modern bool
		body   string
		// whole: the store's files count too (a read of one view);
		// otherwise the store counts as the destination, whose query
		// files follow the tables a write touches.
		whole bool
	}{
		{"get_issue modern", true, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_issue",` +
			`"arguments":{"id":"gitlab-org/gitlab-mcp","issue_iid":1},` + meta + `}}`, true},
		{"get_issue legacy", false, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_issue",` +
			`"arguments":{"id":"gitlab-org/gitlab-mcp","issue_iid":2}}}`, true},
		{"create_issue legacy", false, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_issue",` +
			`"arguments":{"id":"gitlab-org/gitlab-mcp","title":"path"}}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p.reset()
			rec := serve(tc.body, tc.modern)
			if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"iid":`) || strings.Contains(rec.Body.String(), `"isError":true`) {
				t.Fatalf("tools/call: %d %s", rec.Code, rec.Body.String())
			}
			files := p.sorted()
			if p.truncated > 0 {
				t.Fatalf("%d stacks deeper than the recorder reads: their files were not counted", p.truncated)
			}
			if p.stacks < 2 {
				t.Fatalf("recorded %d stacks (want a statement and a write at least): %v", p.stacks, files)
			}
			var above, inStore []string
			for _, f := range files {
				if strings.HasPrefix(f, "services/store/") {
					inStore = append(inStore, f)
				} else {
					above = append(above, f)
				}
			}
			t.Logf("%d files to the store and back: %s; in the store: %s",
				len(above), strings.Join(above, " "), strings.Join(inStore, " "))
			counted := above
			if tc.whole {
				counted = files
			}
			if len(counted) > maxPathFiles {
				t.Errorf("tools/call crosses %d files, more than %d:\n%s", len(counted), maxPathFiles, strings.Join(counted, "\n"))
			}
		})
	}
}
