package repository

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"

	"gitlab.com/glmcp/glmcp/services/repository/catfile"
)

// Resolving a ref name as git's dwim_ref (refs.c) does, without go-git's
// ResolveRevision: that one asks its storage for each candidate name in
// turn, and each miss of a loose file re-reads and parses the whole
// packed-refs file (1,000 tags on git's own repository: ~0.9 ms a
// resolution, most of a small call's in-process time). Here packed-refs is
// read once per resolution, after every loose file that matters, so a ref
// that pack-refs moves from its loose file into packed-refs meanwhile is
// found in one or the other (pack-refs writes packed-refs before it
// deletes the loose file; a delete removes the packed entry first).

// dwimRules are git's ref_rev_parse_rules, in git's order: the first name
// that exists wins, as git resolves an ambiguous name (with a warning).
var dwimRules = [...]string{"%s", "refs/%s", "refs/tags/%s", "refs/heads/%s", "refs/remotes/%s", "refs/remotes/%s/HEAD"}

// maxSymrefDepth is how many symbolic refs a resolution follows, as git's
// SYMREF_MAXDEPTH.
const maxSymrefDepth = 5

// plainRefName reports whether rev is a name dwimRef can resolve alone:
// no revision syntax (~ ^ : @{ …) and a valid ref name once expanded.
// Anything else goes to go-git's revision parser.
func plainRefName(rev string) bool {
	if rev == "HEAD" {
		return true
	}
	if strings.ContainsAny(rev, "~^:@\\") {
		return false
	}
	return plumbing.ReferenceName("refs/heads/"+rev).Validate() == nil
}

// looseRef is what the loose file of a candidate name led to: a hash, a
// name to look up in packed-refs (no loose file at the end of the chain),
// or nothing (a broken ref, or a symbolic ref chain too deep: git skips
// the candidate).
type looseRef struct {
	hash   plumbing.Hash
	ok     bool
	packed plumbing.ReferenceName
}

// dwimRef returns the hash name resolves to under git's rules (dwimRules),
// ok false when no ref by that name exists.
func (rs refStore) dwimRef(name string) (h plumbing.Hash, ok bool, err error) {
	var found [len(dwimRules)]looseRef
	n := 0
	for _, rule := range dwimRules {
		found[n], err = rs.followLoose(plumbing.ReferenceName(fmt.Sprintf(rule, name)), 0)
		if err != nil {
			return plumbing.ZeroHash, false, err
		}
		n++
		if found[n-1].ok {
			break // the later candidates cannot win
		}
	}
	var packed []byte
	readPacked := false
	for _, c := range found[:n] {
		if c.ok {
			return c.hash, true, nil
		}
		if c.packed == "" {
			continue
		}
		if !readPacked {
			readPacked = true
			packed, err = os.ReadFile(filepath.Join(rs.dir, "packed-refs"))
			if errors.Is(err, fs.ErrNotExist) {
				packed, err = nil, nil
			}
			if err != nil {
				return plumbing.ZeroHash, false, fmt.Errorf("read packed-refs: %w", err)
			}
		}
		if h, ok := packedRef(packed, c.packed); ok {
			return h, true, nil
		}
	}
	return plumbing.ZeroHash, false, nil
}

// followLoose reads name's loose file, following symbolic refs through
// their loose files.
func (rs refStore) followLoose(name plumbing.ReferenceName, depth int) (looseRef, error) {
	b, missing, err := readLooseRef(filepath.Join(rs.dir, filepath.FromSlash(name.String())))
	switch {
	case err != nil:
		return looseRef{}, fmt.Errorf("read ref %s: %w", name, err)
	case missing:
		return looseRef{packed: name}, nil // git reads packed-refs for a missing loose file or a directory
	case len(b) > maxRefFile:
		return looseRef{}, nil // no ref is this long: broken, git ignores it
	}
	s := strings.TrimSpace(string(b))
	if target, sym := strings.CutPrefix(s, "ref:"); sym {
		target = strings.TrimSpace(target)
		if depth >= maxSymrefDepth || plumbing.ReferenceName(target).Validate() != nil {
			return looseRef{}, nil
		}
		return rs.followLoose(plumbing.ReferenceName(target), depth+1)
	}
	if len(s) < 40 || !IsFullHash(s[:40]) {
		return looseRef{}, nil // broken: git ignores it
	}
	return looseRef{hash: plumbing.NewHash(s[:40]), ok: true}, nil
}

// packedRef finds name's line ("<40 hex> <name>") in packed-refs' content.
func packedRef(data []byte, name plumbing.ReferenceName) (plumbing.Hash, bool) {
	want := []byte(" " + name.String())
	for off := 0; ; {
		i := bytes.Index(data[off:], want)
		if i < 0 {
			return plumbing.ZeroHash, false
		}
		i += off
		off = i + len(want)
		end := off == len(data) || data[off] == '\n' || data[off] == '\r'
		start := i >= 40 && (i == 40 || data[i-41] == '\n')
		if end && start && IsFullHash(string(data[i-40:i])) {
			return plumbing.NewHash(string(data[i-40 : i])), true
		}
	}
}

// abbreviatedIDs expands an abbreviated object id (4 to 39 hex digits)
// to the objects it may name. git's cat-file answers first: it binary
// searches the pack indexes, where go-git's HashesWithPrefix reads every
// entry of every index (~13 ms of CPU on git's own repository, most of a
// get_commit given a short id). An ambiguous prefix, or no cat-file, is
// left to go-git, which lists every candidate (the first commit wins, as
// before).
func abbreviatedIDs(ctx context.Context, cat *catfile.Pool, dir string, storer any, s string) []plumbing.Hash {
	if len(s) < 4 || len(s) >= 40 || !isHex(s) {
		return nil
	}
	s = strings.ToLower(s)
	if cat != nil {
		info, err := cat.Info(ctx, dir, s)
		switch {
		case err == nil && IsFullHash(info.OID) && strings.HasPrefix(strings.ToLower(info.OID), s):
			return []plumbing.Hash{plumbing.NewHash(info.OID)}
		case errors.Is(err, catfile.ErrMissing):
			return nil
		}
	}
	even, err := hex.DecodeString(s[:len(s)&^1])
	if err != nil {
		return nil
	}
	hp, ok := storer.(interface {
		HashesWithPrefix([]byte) ([]plumbing.Hash, error)
	})
	if !ok {
		return nil
	}
	hs, err := hp.HashesWithPrefix(even)
	if err != nil {
		return nil
	}
	out := hs[:0]
	for _, h := range hs {
		if strings.HasPrefix(h.String(), s) {
			out = append(out, h)
		}
	}
	return out
}

// maxRefFile bounds what a loose ref's read takes: a ref file holds an
// object id or "ref: <name>", far shorter. A ref name that names some
// other file of the repository (objects/info/commit-graph) reads no more.
const maxRefFile = 512

// readLooseRef reads the loose ref file at path, at most maxRefFile+1
// bytes. missing is true when there is no such file: absent, a directory
// there (a ref prefix of other refs), or a file where a directory of the
// path should be (main/x when main is a branch), all of which git reads
// as "not a loose ref".
func readLooseRef(path string) (b []byte, missing bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil, true, nil
		}
		return nil, false, err
	}
	defer f.Close()
	b = make([]byte, maxRefFile+1)
	n, err := io.ReadFull(f, b)
	switch {
	case errors.Is(err, syscall.EISDIR):
		return nil, true, nil
	case err != nil && err != io.EOF && err != io.ErrUnexpectedEOF:
		return nil, false, err
	}
	return b[:n], false, nil
}
