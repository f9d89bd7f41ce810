package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"gitlab.com/glmcp/glmcp/handlers"
	"gitlab.com/glmcp/glmcp/middleware"
)

func TestRecovery_panicBecomesInternalError(t *testing.T) {
	logger, logs := newLogger()
	after := 0
	r := gin.New()
	r.Use(middleware.RequestLogger(logger), handlers.RenderRefusals, middleware.Recovery(logger))
	r.POST("/api/v4/mcp", func(*gin.Context) { panic("boom") }, func(*gin.Context) { after++ })

	req := httptest.NewRequest(http.MethodPost, "/api/v4/mcp", nil)
	req.Header.Set(middleware.RequestIDHeader, "req-panic")
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)

	wantStatus(t, w, http.StatusInternalServerError)
	if got := w.Body.String(); got != internalBody {
		t.Fatalf("body = %s, want %s", got, internalBody)
	}
	wantHeader(t, w, "Content-Type", "application/json")
	if after != 0 {
		t.Fatalf("handler after the panic ran")
	}

	panics := logs.recordsWithMsg(t, "panic")
	if len(panics) != 1 {
		t.Fatalf("panic logged %d times, want once:\n%s", len(panics), logs)
	}
	p := panics[0]
	if p["level"] != "ERROR" || p["error"] != "boom" || p["request_id"] != "req-panic" {
		t.Fatalf("panic line = %v", p)
	}
	if stack, _ := p["stack"].(string); !strings.Contains(stack, "recovery_test.go") {
		t.Fatalf("stack does not show the panicking frame:\n%s", stack)
	}
	access := logs.recordsWithMsg(t, "request")
	if len(access) != 1 || access[0]["status"] != float64(http.StatusInternalServerError) {
		t.Fatalf("access log = %v, want one line with status 500", access)
	}
}

func TestRecovery_afterResponseStarted(t *testing.T) {
	logger, logs := newLogger()
	r := gin.New()
	r.Use(handlers.RenderRefusals, middleware.Recovery(logger))
	r.GET("/x", func(c *gin.Context) {
		c.String(http.StatusOK, "partial")
		c.Writer.Flush()
		panic("late")
	})
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/x", nil))
	if w.Code != http.StatusOK || w.Body.String() != "partial" {
		t.Fatalf("response = %d %q, want the started 200 %q untouched", w.Code, w.Body, "partial")
	}
	if n := len(logs.recordsWithMsg(t, "panic")); n != 1 {
		t.Fatalf("panic logged %d times, want once", n)
	}
}

func TestRecovery_abortHandlerRepanics(t *testing.T) {
	logger, logs := newLogger()
	r := gin.New()
	r.Use(middleware.Recovery(logger))
	r.GET("/x", func(*gin.Context) { panic(http.ErrAbortHandler) })

	var recovered any
	func() {
		defer func() { recovered = recover() }()
		r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/x", nil))
	}()
	if recovered != http.ErrAbortHandler {
		t.Fatalf("recovered %v, want http.ErrAbortHandler re-panicked", recovered)
	}
	if out := logs.String(); out != "" {
		t.Fatalf("abort logged as a panic:\n%s", out)
	}
}
