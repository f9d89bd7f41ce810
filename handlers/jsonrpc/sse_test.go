package jsonrpc

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

func TestNewSSE_headers(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	rec.Header().Set("Content-Length", "12") // must not survive on a stream
	if _, err := NewSSE(rec); err != nil {
		t.Fatalf("NewSSE() error = %v", err)
	}
	if rec.Code != http.StatusOK {
		t.Errorf("status = %d, want 200", rec.Code)
	}
	if !rec.Flushed {
		t.Error("headers were not flushed")
	}
	for name, want := range map[string]string{
		"Content-Type":      "text/event-stream",
		"Cache-Control":     "no-cache",
		"X-Accel-Buffering": "no",
		"Content-Length":    "",
	} {
		if got := rec.Header().Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if rec.Body.Len() != 0 {
		t.Errorf("body = %q, want empty", rec.Body.String())
	}
}

func TestSSE_SendAndComment(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	s, err := NewSSE(rec)
	if err != nil {
		t.Fatalf("NewSSE() error = %v", err)
	}
	msg, err := EncodeNotification("notifications/subscriptions/acknowledged", map[string]string{"a": "<&>"})
	if err != nil {
		t.Fatalf("EncodeNotification() error = %v", err)
	}
	steps := []struct {
		do   func() error
		want string
	}{
		{func() error { return s.Send(msg) }, "event: message\ndata: " + string(msg) + "\n\n"},
		{func() error { return s.Comment("keep-alive") }, ": keep-alive\n\n"},
		{func() error { return s.Send([]byte("{\n\"a\":1\r\n}\r")) }, "event: message\ndata: {\ndata: \"a\":1\ndata: }\n\n"},
		{func() error { return s.Send([]byte("{}\n")) }, "event: message\ndata: {}\n\n"},
		{func() error { return s.Comment("") }, ": \n\n"},
		{func() error { return s.Comment("a\nb") }, ": a\n: b\n\n"},
	}
	var want strings.Builder
	for i, step := range steps {
		rec.Flushed = false
		if err := step.do(); err != nil {
			t.Fatalf("step %d: error = %v", i, err)
		}
		if !rec.Flushed {
			t.Errorf("step %d: not flushed", i)
		}
		want.WriteString(step.want)
		if got := rec.Body.String(); got != want.String() {
			t.Fatalf("step %d: body =\n%q\nwant\n%q", i, got, want.String())
		}
	}
}

func TestSSE_concurrentSendsStayWhole(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	s, err := NewSSE(rec)
	if err != nil {
		t.Fatalf("NewSSE() error = %v", err)
	}
	const senders, each = 8, 50
	msg := []byte(`{"jsonrpc":"2.0","method":"notifications/x","params":{"k":"` + strings.Repeat("v", 200) + `"}}`)
	var wg sync.WaitGroup
	for range senders {
		wg.Go(func() {
			for range each {
				if err := s.Send(msg); err != nil {
					t.Errorf("Send() error = %v", err)
				}
				if err := s.Comment("ka"); err != nil {
					t.Errorf("Comment() error = %v", err)
				}
			}
		})
	}
	wg.Wait()
	event := "event: message\ndata: " + string(msg) + "\n\n"
	body := rec.Body.String()
	if n := strings.Count(body, event); n != senders*each {
		t.Errorf("whole events = %d, want %d", n, senders*each)
	}
	if rest := strings.ReplaceAll(strings.ReplaceAll(body, event, ""), ": ka\n\n", ""); rest != "" {
		t.Errorf("interleaved bytes left over: %q", rest)
	}
}

// plainWriter is a ResponseWriter that cannot flush.
type plainWriter struct {
	header http.Header
	code   int
	body   strings.Builder
}

func (w *plainWriter) Header() http.Header         { return w.header }
func (w *plainWriter) Write(b []byte) (int, error) { return w.body.Write(b) }
func (w *plainWriter) WriteHeader(code int)        { w.code = code }

func TestNewSSE_cannotFlushLeavesResponseUntouched(t *testing.T) {
	t.Parallel()
	w := &plainWriter{header: http.Header{}}
	s, err := NewSSE(w)
	if !errors.Is(err, ErrFlushNotSupported) || s != nil {
		t.Fatalf("NewSSE() = %v, %v; want nil, ErrFlushNotSupported", s, err)
	}
	if w.code != 0 || len(w.header) != 0 || w.body.Len() != 0 {
		t.Errorf("response touched: code %d, header %v, body %q", w.code, w.header, w.body.String())
	}
	// The caller can still answer in JSON.
	WriteError(w, EraModern, intID(1), Internal())
	if w.code != 500 || w.header.Get("Content-Type") != "application/json" {
		t.Errorf("fallback answer: code %d, Content-Type %q", w.code, w.header.Get("Content-Type"))
	}
}

// wrappingWriter hides the recorder's Flush behind Unwrap, as middleware
// wrappers do; it counts WriteHeader so status-recording wrappers are served.
type wrappingWriter struct {
	http.ResponseWriter
	status int
}

func (w *wrappingWriter) WriteHeader(code int)        { w.status = code; w.ResponseWriter.WriteHeader(code) }
func (w *wrappingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
func (w *wrappingWriter) Write(b []byte) (int, error) { return w.ResponseWriter.Write(b) }
func (w *wrappingWriter) Header() http.Header         { return w.ResponseWriter.Header() }

func TestNewSSE_flushesThroughUnwrap(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	w := &wrappingWriter{ResponseWriter: rec}
	if _, ok := any(w).(http.Flusher); ok {
		t.Fatal("test wrapper must not implement http.Flusher itself")
	}
	s, err := NewSSE(w)
	if err != nil {
		t.Fatalf("NewSSE() error = %v", err)
	}
	if w.status != http.StatusOK {
		t.Errorf("wrapper saw status %d, want 200", w.status)
	}
	if err := s.Comment("x"); err != nil {
		t.Fatalf("Comment() error = %v", err)
	}
	if !rec.Flushed || rec.Body.String() != ": x\n\n" {
		t.Errorf("flushed %v, body %q", rec.Flushed, rec.Body.String())
	}
}

// failingWriter accepts headers and flushes but fails every Write.
type failingWriter struct{ *httptest.ResponseRecorder }

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestSSE_writeErrorIsSticky(t *testing.T) {
	t.Parallel()
	s, err := NewSSE(failingWriter{httptest.NewRecorder()})
	if err != nil {
		t.Fatalf("NewSSE() error = %v", err)
	}
	first := s.Send([]byte(`{}`))
	if first == nil || !strings.Contains(first.Error(), "connection reset") {
		t.Fatalf("Send() error = %v, want the write error", first)
	}
	if err := s.Comment("ka"); err != first {
		t.Errorf("Comment() after failure = %v, want %v", err, first)
	}
}
