package catalog

import (
	"errors"
	"fmt"

	"gitlab.com/glmcp/glmcp/internal/cursor"
	"gitlab.com/glmcp/glmcp/models"
)

// MaxCursorLen is the longest cursor accepted, in characters.
const MaxCursorLen = 512

// errNameTooLong is returned when a tool name cannot fit in a cursor.
var errNameTooLong = errors.New("tool name too long to fit in a cursor")

// binding is what a tools/list cursor is bound to besides the secret: the
// verb, the user, and the listing (filter fingerprint, edition, read-only
// state). The cursor's position is the name of the last tool returned.
func binding(q Query) cursor.Binding {
	ro := "rw"
	if q.ReadOnly {
		ro = "ro"
	}
	return cursor.Binding{Verb: q.Verb, User: q.User,
		List: q.Filter.Fingerprint() + "\x00" + string(q.Edition) + "\x00" + ro}
}

// encodeCursor mints a cursor resuming after the tool named last.
func encodeCursor(s *cursor.Signer, b cursor.Binding, last string) (string, error) {
	c, err := s.Seal(b, []byte(last))
	if errors.Is(err, cursor.ErrTooLong) {
		return "", fmt.Errorf("encode cursor after %d-byte name: %w", len(last), errNameTooLong)
	}
	return c, err
}

// decodeCursor checks a cursor against the expected binding and returns
// the name it resumes after. Every failure wraps models.ErrInvalidInput
// with a message starting "invalid cursor".
func decodeCursor(s *cursor.Signer, want cursor.Binding, c string) (string, error) {
	pos, err := s.Open(want, c)
	if err != nil {
		msg := err.Error()
		var e *cursor.Error
		if errors.As(err, &e) && e.Reason == cursor.OtherList {
			msg += " (filter headers, edition or token scope changed)"
		}
		return "", fmt.Errorf("%s: %w", msg, models.ErrInvalidInput)
	}
	if len(pos) == 0 {
		return "", fmt.Errorf("invalid cursor: empty position: %w", models.ErrInvalidInput)
	}
	return string(pos), nil
}
