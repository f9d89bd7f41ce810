package resources

import (
	"errors"

	"gitlab.com/glmcp/glmcp/internal/cursor"
)

// verbList is the verb resources/list cursors are bound to.
const verbList = "resources/list"

// maxCursorLen bounds a resources/list cursor (its position is one id).
const maxCursorLen = 128

// cursorSigner mints and opens resources/list cursors (internal/cursor):
// self-contained (the last project id of the page), bound to the verb and
// to the user they were issued to, and tamper-evident. A cursor from
// tools/list or a tool, from another user, or edited by hand is refused
// with an *InvalidError.
type cursorSigner struct{ s *cursor.Signer }

func newCursorSigner(secret []byte) cursorSigner {
	return cursorSigner{s: cursor.New(secret, maxCursorLen)}
}

func (c cursorSigner) seal(userID, lastID int64) string {
	return c.s.SealInt(cursor.Binding{Verb: verbList, User: userID}, lastID)
}

func (c cursorSigner) open(cur string, userID int64) (int64, error) {
	last, err := c.s.OpenInt(cursor.Binding{Verb: verbList, User: userID}, cur)
	var e *cursor.Error
	switch {
	case errors.As(err, &e):
		return 0, invalidf("Invalid cursor: " + e.Detail() + "; pass the nextCursor of a resources/list answer to this caller")
	case err != nil || last <= 0:
		return 0, invalidf("Invalid cursor: pass the nextCursor of a resources/list answer to this caller")
	}
	return last, nil
}
