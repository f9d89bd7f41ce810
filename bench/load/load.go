// Package load is a small closed-loop HTTP/1.1 load generator for the
// comparison command (bench/compare): a fixed number of keep-alive
// connections, each sending one prepared request and reading the whole
// answer before sending the next, for a fixed time. It speaks just enough
// HTTP/1.1 for that (Content-Length and chunked bodies) so that the
// generator itself costs little CPU next to the servers it measures, like
// wrk, and checks every answer: a status other than 200 or a body without
// the expected bytes is counted as an error.
package load

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Target is what one run sends.
type Target struct {
	// Addr is the server's host:port. Only loopback addresses are
	// accepted: this generator is for measuring on one machine.
	Addr string
	// Request is the complete HTTP/1.1 request (see [NewRequest]).
	Request []byte
	// Want must appear in every response body.
	Want []byte
}

// Options shape a run.
type Options struct {
	// Conns is the number of connections (and concurrent requests).
	Conns int
	// Warmup is sent before measuring; its answers are checked but not
	// counted.
	Warmup time.Duration
	// Duration is how long requests are measured.
	Duration time.Duration
}

// Result is one run's outcome.
type Result struct {
	// Requests completed inside the measured window.
	Requests int
	// Errors: answers that were not a 200 with Want in the body, and
	// connection failures.
	Errors int
	// FirstError describes the first error, if any.
	FirstError string
	// Elapsed is the measured window.
	Elapsed time.Duration
	// Latencies of the counted requests, sorted.
	Latencies []time.Duration
	// ResponseBytes is the body size of the last answer.
	ResponseBytes int
}

// Rate is requests per second.
func (r Result) Rate() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Requests) / r.Elapsed.Seconds()
}

// Quantile returns the latency below which the fraction q of the
// counted requests finished (0 when none was).
func (r Result) Quantile(q float64) time.Duration {
	if len(r.Latencies) == 0 {
		return 0
	}
	i := int(q * float64(len(r.Latencies)))
	return r.Latencies[min(i, len(r.Latencies)-1)]
}

// NewRequest builds a POST of body to path on addr with the given header
// lines (name → value), Content-Length set.
func NewRequest(addr, path string, header [][2]string, body []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: %s\r\n", path, addr)
	for _, h := range header {
		fmt.Fprintf(&b, "%s: %s\r\n", h[0], h[1])
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n", len(body))
	b.Write(body)
	return b.Bytes()
}

// Run sends t's request on opts.Conns connections for opts.Warmup +
// opts.Duration and returns what was measured. It stops by itself; ctx
// ends it early (the result then covers the time until then).
func Run(ctx context.Context, t Target, opts Options) (Result, error) {
	if err := checkLoopback(t.Addr); err != nil {
		return Result{}, err
	}
	if opts.Conns < 1 || opts.Duration <= 0 {
		return Result{}, fmt.Errorf("load: need at least one connection and a positive duration")
	}
	start := time.Now()
	from := start.Add(opts.Warmup)
	until := from.Add(opts.Duration)
	ctx, cancel := context.WithDeadline(ctx, until)
	defer cancel()

	workers := make([]*worker, opts.Conns)
	var wg sync.WaitGroup
	for i := range workers {
		w := &worker{t: t, from: from, until: until}
		workers[i] = w
		wg.Go(func() { w.run(ctx) })
	}
	wg.Wait()

	end := time.Now()
	if end.After(until) {
		end = until
	}
	res := Result{Elapsed: end.Sub(from)}
	for _, w := range workers {
		res.Requests += len(w.lat)
		res.Latencies = append(res.Latencies, w.lat...)
		res.Errors += w.errors
		if res.FirstError == "" && w.firstErr != nil {
			res.FirstError = w.firstErr.Error()
		}
		res.ResponseBytes = max(res.ResponseBytes, w.bodyLen)
	}
	slices.Sort(res.Latencies)
	return res, nil
}

func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("load: address %q: %w", addr, err)
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("load: %q is not a loopback address; this generator only measures on one machine", addr)
	}
	return nil
}

// worker owns one connection.
type worker struct {
	t           Target
	from, until time.Time

	conn     net.Conn
	rd       *bufio.Reader
	body     []byte
	lat      []time.Duration
	errors   int
	firstErr error
	bodyLen  int
}

func (w *worker) run(ctx context.Context) {
	defer w.close()
	for ctx.Err() == nil {
		if w.conn == nil {
			if err := w.dial(ctx); err != nil {
				if ctx.Err() == nil && time.Now().Before(w.until) {
					w.fail(err)
				}
				return
			}
		}
		began := time.Now()
		err := w.roundTrip()
		done := time.Now()
		if ctx.Err() != nil || done.After(w.until) {
			return // cut by the end of the run: not counted
		}
		if err != nil {
			w.fail(err)
			w.close()
			continue
		}
		if !began.Before(w.from) {
			w.lat = append(w.lat, done.Sub(began))
		}
	}
}

func (w *worker) fail(err error) {
	w.errors++
	if w.firstErr == nil {
		w.firstErr = err
	}
}

func (w *worker) dial(ctx context.Context) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", w.t.Addr)
	if err != nil {
		return err
	}
	w.conn = c
	if w.rd == nil {
		w.rd = bufio.NewReaderSize(c, 64<<10)
	} else {
		w.rd.Reset(c)
	}
	// A request in flight when the run ends is cut there.
	_ = c.SetDeadline(w.until)
	return nil
}

func (w *worker) close() {
	if w.conn != nil {
		_ = w.conn.Close()
		w.conn = nil
	}
}

// errWrongAnswer marks an answer that is not what the target wants.
var errWrongAnswer = errors.New("unexpected answer")

// roundTrip sends the request and reads the whole response.
func (w *worker) roundTrip() error {
	if _, err := w.conn.Write(w.t.Request); err != nil {
		return err
	}
	status, length, chunked, closeAfter, err := readHead(w.rd)
	if err != nil {
		return err
	}
	w.body = w.body[:0]
	switch {
	case chunked:
		w.body, err = readChunked(w.rd, w.body)
	case length >= 0:
		w.body = slices.Grow(w.body, length)[:length]
		_, err = io.ReadFull(w.rd, w.body)
	default:
		return fmt.Errorf("response without Content-Length or chunked encoding")
	}
	if err != nil {
		return err
	}
	if closeAfter {
		w.close()
	}
	w.bodyLen = len(w.body)
	if status != 200 || !bytes.Contains(w.body, w.t.Want) {
		return fmt.Errorf("%w: status %d, body %.300q", errWrongAnswer, status, w.body)
	}
	return nil
}

// readHead reads a status line and headers.
func readHead(rd *bufio.Reader) (status, length int, chunked, closeAfter bool, err error) {
	line, err := readLine(rd)
	if err != nil {
		return 0, 0, false, false, err
	}
	// "HTTP/1.1 200 OK"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return 0, 0, false, false, fmt.Errorf("bad status line %q", line)
	}
	status, err = strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, 0, false, false, fmt.Errorf("bad status line %q", line)
	}
	length = -1
	for {
		line, err = readLine(rd)
		if err != nil {
			return 0, 0, false, false, err
		}
		if len(line) == 0 {
			return status, length, chunked, closeAfter, nil
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return 0, 0, false, false, fmt.Errorf("bad header line %q", line)
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			length, err = strconv.Atoi(string(value))
			if err != nil || length < 0 {
				return 0, 0, false, false, fmt.Errorf("bad Content-Length %q", value)
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(value, []byte("chunked"))
		case bytes.EqualFold(name, []byte("Connection")):
			closeAfter = bytes.EqualFold(value, []byte("close"))
		}
	}
}

// readLine returns one CRLF-terminated line without its terminator. The
// slice is valid until the next read.
func readLine(rd *bufio.Reader) ([]byte, error) {
	line, err := rd.ReadSlice('\n')
	if err != nil {
		return nil, err
	}
	return bytes.TrimRight(line, "\r\n"), nil
}

// readChunked appends a chunked body (trailers discarded) to dst.
func readChunked(rd *bufio.Reader, dst []byte) ([]byte, error) {
	for {
		line, err := readLine(rd)
		if err != nil {
			return dst, err
		}
		if i := bytes.IndexByte(line, ';'); i >= 0 {
			line = line[:i]
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(line)), 16, 32)
		if err != nil || n < 0 {
			return dst, fmt.Errorf("bad chunk size %q", line)
		}
		if n == 0 {
			for { // trailers up to the blank line
				line, err := readLine(rd)
				if err != nil {
					return dst, err
				}
				if len(line) == 0 {
					return dst, nil
				}
			}
		}
		off := len(dst)
		dst = slices.Grow(dst, int(n))[:off+int(n)]
		if _, err := io.ReadFull(rd, dst[off:]); err != nil {
			return dst, err
		}
		if _, err := readLine(rd); err != nil { // CRLF after the chunk
			return dst, err
		}
	}
}
