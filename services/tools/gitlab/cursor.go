package gitlab

import (
	"encoding/json"
	"errors"

	"gitlab.com/glmcp/glmcp/internal/cursor"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// maxCursorLen bounds a cursor argument before any work is done on it. A
// cursor carries its position: an id, or a sort key or a path, which can
// be long (list_work_items by title, list_repository_tree).
const maxCursorLen = 8192

// pager mints and opens the cursors of one list a tool pages through
// (internal/cursor, the one cursor format of glmcp). A cursor is bound to
// the tool, to the user it was returned to and to the list: the object it
// pages within, as resolved (scope, e.g. "mr:12:notes", so a project named
// by URL or by path is one list), and the filter arguments. A cursor that
// was made up or altered, returned to another user, by another tool, or
// for another list is a validation error naming the argument.
type pager struct {
	s    *cursor.Signer
	tool string
	b    cursor.Binding
}

// pager returns the pager of call's list: scope is what the tool resolved
// the list to, filters the arguments that choose its items (a copy of the
// arguments with the ones that name the object and the page ones — after,
// before, first, last — zeroed, so a filter added later is bound too; nil
// when there are none).
func newPager(s *cursor.Signer, call *tools.Call, tool, scope string, filters any) pager {
	var user int64
	if call.Identity != nil && call.Identity.User != nil {
		user = call.Identity.User.ID
	}
	list := scope
	if filters != nil {
		b, err := json.Marshal(filters)
		if err != nil { // argument structs always encode
			b = []byte(err.Error())
		}
		list += "\x00" + string(b)
	}
	return pager{s: s, tool: tool, b: cursor.Binding{Verb: tool, User: user, List: list}}
}

// mint returns the cursor of integer position pos (an id, an offset).
func (p pager) mint(pos int64) string { return p.s.SealInt(p.b, pos) }

// open returns the integer position of cursor s given as argument field
// ("" is 0).
func (p pager) open(field, s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	pos, err := p.s.OpenInt(p.b, s)
	if err != nil {
		return 0, p.refuse(field, s, err)
	}
	if pos < 0 {
		return 0, p.refuse(field, s, nil)
	}
	return pos, nil
}

// mintString returns the cursor of a string position (a path).
func (p pager) mintString(pos string) (string, error) { return p.s.Seal(p.b, []byte(pos)) }

// openString returns the string position of cursor s given as argument
// field ("" is "").
func (p pager) openString(field, s string) (string, error) {
	if s == "" {
		return "", nil
	}
	pos, err := p.s.Open(p.b, s)
	if err != nil {
		return "", p.refuse(field, s, err)
	}
	return string(pos), nil
}

// mintJSON returns the cursor of a structured position.
func (p pager) mintJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return p.s.Seal(p.b, b)
}

// openJSON decodes the position of cursor s given as argument field into v.
func (p pager) openJSON(field, s string, v any) error {
	pos, err := p.s.Open(p.b, s)
	if err == nil && json.Unmarshal(pos, v) != nil {
		err = errors.New("not this list's position")
	}
	if err != nil {
		return p.refuse(field, s, err)
	}
	return nil
}

// refuse is the validation error of a cursor that does not open.
func (p pager) refuse(field, s string, err error) error {
	why := "it was made up or altered"
	var e *cursor.Error
	if errors.As(err, &e) {
		switch e.Reason {
		case cursor.OtherVerb:
			why = "it was returned by another tool"
		case cursor.OtherUser:
			why = "it was returned to another user"
		case cursor.OtherList:
			why = "it was returned for other arguments"
		}
	}
	return invalidf("%s: %q is not a cursor of this list (%s); pass the endCursor or startCursor of a previous "+
		"response of %s called with the same arguments", field, clip(s, 40), why, p.tool)
}
