package importexport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// relation is a relation file read as a stream, so that an import holds
// one record of it at a time, not the relation: checked line by line
// while the archive is read (check), parsed again one record at a time
// while it is imported (each).
type relation[T any] struct {
	entry, file string
	lim         Limits
	// plan has a step per record (non-blank line), in order.
	plan []planned
	kept int
}

// planned is what the checks decided for one record: whether it is
// imported, under which number.
type planned struct {
	n    int   // the line
	iid  int64 // the number (given, or the next free one)
	keep bool
}

// Len is the number of records imported.
func (r *relation[T]) Len() int {
	if r == nil {
		return 0
	}
	return r.kept
}

// each parses the relation again and calls fn with every record kept,
// its number set and fix applied (the same repairs the checks made).
func (r *relation[T]) each(ctx context.Context, fix func(p planned, rec *T), fn func(p planned, rec *T) error) error {
	if r == nil {
		return nil
	}
	k := 0
	skip := func(n int, _ string) error {
		// A record of the wrong shape: left out when checked.
		if k < len(r.plan) && r.plan[k].n == n && !r.plan[k].keep {
			k++
			return nil
		}
		return refuse(r.entry, n, "changed while it was imported")
	}
	return scanNDJSON(ctx, r.entry, r.file, r.lim, skip, func(n int, rec *T) error {
		if k >= len(r.plan) || r.plan[k].n != n {
			return refuse(r.entry, n, "changed while it was imported")
		}
		p := r.plan[k]
		k++
		if !p.keep {
			return nil
		}
		fix(p, rec)
		return fn(p, rec)
	})
}

// scanNDJSON reads the relation file entry (unpacked at file): one JSON
// object a line, blank lines skipped, fn called with each record. A line
// that is not JSON refuses the archive, as GitLab's reader does; a
// record of the wrong shape (a number for a text, a time that is none)
// is a record GitLab would fail to save: bad says why (nil: refused too).
func scanNDJSON[T any](ctx context.Context, entry, file string, lim Limits, bad func(n int, msg string) error, fn func(n int, rec *T) error) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	for n := 1; ; n++ {
		if n%1000 == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("read %s: %w", entry, err)
			}
		}
		b, err := readLine(r, lim.MaxLine)
		if errors.Is(err, errLongLine) {
			return refuse(entry, n, "a line longer than %d bytes", lim.MaxLine)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if t := bytes.TrimSpace(b); len(t) > 0 {
			if t[0] != '{' {
				return refuse(entry, n, "not a JSON object")
			}
			var rec T
			if jerr := json.Unmarshal(t, &rec); jerr != nil {
				var syn *json.SyntaxError
				if errors.As(jerr, &syn) {
					return refuse(entry, n, "not JSON: %v", jerr)
				}
				why := strings.TrimPrefix(jerr.Error(), "json: ")
				var pe *time.ParseError
				if errors.As(jerr, &pe) {
					why = fmt.Sprintf("%q is not a time (RFC 3339)", truncate(pe.Value, 40))
				}
				msg := fmt.Sprintf("not a record of %s: %s", relationNoun(entry), why)
				if bad == nil {
					return refuse(entry, n, "%s", msg)
				}
				if berr := bad(n, msg); berr != nil {
					return berr
				}
			} else if ferr := fn(n, &rec); ferr != nil {
				return ferr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
	}
}

// readNDJSON reads a whole relation file (the small relations); bad gets
// the records of the wrong shape.
func readNDJSON[T any](ctx context.Context, entry, file string, lim Limits, bad func(n int, msg string) error) ([]line[T], error) {
	var out []line[T]
	err := scanNDJSON(ctx, entry, file, lim, bad, func(n int, rec *T) error {
		out = append(out, line[T]{N: n, Rec: *rec})
		return nil
	})
	return out, err
}
