package catfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// request is one command on a process checked out for ctx. Until done is
// called, the end of ctx kills the process.
type request struct {
	pool *Pool
	pr   *process
	ctx  context.Context
	stop func() bool
}

func (p *Pool) begin(ctx context.Context, dir, verb, name string) (*request, Info, error) {
	if name == "" || strings.ContainsAny(name, "\n\x00 ") {
		return nil, Info{}, fmt.Errorf("object name %q: %w", name, ErrMissing)
	}
	pr, err := p.get(ctx, dir)
	if err != nil {
		return nil, Info{}, err
	}
	r := &request{pool: p, pr: pr, ctx: ctx, stop: context.AfterFunc(ctx, pr.kill)}
	pr.requests++
	if _, err := io.WriteString(pr.in, verb+" "+name+"\n"); err != nil {
		return nil, Info{}, r.done(err)
	}
	info, err := r.header()
	if errors.Is(err, ErrMissing) || errors.Is(err, ErrAmbiguous) {
		// The whole answer was the header: the process is clean.
		return nil, Info{}, fmt.Errorf("object %s: %w", name, r.done(err))
	}
	if err != nil {
		return nil, Info{}, r.done(err)
	}
	return r, info, nil
}

// header reads "<oid> <type> <size>", "<name> missing" or "<name>
// ambiguous".
func (r *request) header() (Info, error) {
	line, err := r.pr.out.ReadString('\n')
	if err != nil {
		return Info{}, fmt.Errorf("read cat-file answer: %w", err)
	}
	line = strings.TrimSuffix(line, "\n")
	switch {
	case strings.HasSuffix(line, " missing"):
		return Info{}, ErrMissing
	case strings.HasSuffix(line, " ambiguous"):
		return Info{}, ErrAmbiguous
	}
	f := strings.Fields(line)
	if len(f) != 3 {
		return Info{}, fmt.Errorf("cat-file answered %q", line)
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || size < 0 {
		return Info{}, fmt.Errorf("cat-file answered %q", line)
	}
	return Info{OID: f[0], Type: f[1], Size: size}, nil
}

// done ends the request: the process goes back to the pool when err is
// nil or an object's absence (the answer was read whole), else it is
// killed. A request whose context ended answers the context's error.
func (r *request) done(err error) error {
	if !r.stop() {
		r.pr.kill() // the context ended: the kill is under way
		if cerr := r.ctx.Err(); cerr != nil {
			return cerr
		}
	}
	if err == nil || errors.Is(err, ErrMissing) || errors.Is(err, ErrAmbiguous) {
		r.pool.put(r.pr)
		return err
	}
	r.pr.kill()
	return err
}

// Info returns the type and size of the object name names (an object id,
// full or abbreviated): ErrMissing when there is none.
func (p *Pool) Info(ctx context.Context, dir, name string) (Info, error) {
	r, info, err := p.begin(ctx, dir, "info", name)
	if err != nil {
		return Info{}, err
	}
	return info, r.done(nil)
}

// Read returns the object name names, whole, when it is at most max
// bytes. A larger one is only described (its content nil) and the
// process that began to send it is ended: ask Info first when an object
// may be large.
func (p *Pool) Read(ctx context.Context, dir, name string, max int64) (Info, []byte, error) {
	info, rc, err := p.Open(ctx, dir, name)
	if err != nil {
		return Info{}, nil, err
	}
	if info.Size > max {
		rc.Close()
		return info, nil, nil
	}
	b := make([]byte, info.Size)
	if _, err := io.ReadFull(rc, b); err != nil {
		rc.Close()
		return Info{}, nil, err
	}
	return info, b, rc.Close()
}

// Open starts reading the object name names. The reader holds a process
// until it is closed: read it to io.EOF and Close it to give the process
// back; a Close before the end kills the process.
func (p *Pool) Open(ctx context.Context, dir, name string) (Info, io.ReadCloser, error) {
	r, info, err := p.begin(ctx, dir, "contents", name)
	if err != nil {
		return Info{}, nil, err
	}
	return info, &reader{req: r, left: info.Size}, nil
}

// reader is an object's content on a process's output.
type reader struct {
	req    *request
	left   int64
	err    error
	closed bool
}

func (r *reader) Read(b []byte) (int, error) {
	if r.closed {
		return 0, ErrClosed
	}
	if r.err != nil {
		return 0, r.err
	}
	if r.left == 0 {
		return 0, io.EOF
	}
	if int64(len(b)) > r.left {
		b = b[:r.left]
	}
	n, err := r.req.pr.out.Read(b)
	r.left -= int64(n)
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		if cerr := r.req.ctx.Err(); cerr != nil {
			err = cerr
		}
		r.err = fmt.Errorf("read object: %w", err)
		return n, r.err
	}
	return n, nil
}

// Close gives the process back when the content was read whole (its
// closing newline is consumed here), and kills it otherwise.
func (r *reader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	err := r.err
	if err == nil && r.left > 0 {
		err = errors.New("object read stopped midway")
	}
	if err == nil {
		if c, rerr := r.req.pr.out.ReadByte(); rerr != nil || c != '\n' {
			err = fmt.Errorf("cat-file answer not terminated: %v", rerr)
		}
	}
	derr := r.req.done(err)
	if r.err == nil && r.left > 0 {
		return nil // the caller chose to stop: not an error
	}
	if r.err != nil {
		return nil // Read reported it already
	}
	return derr
}
