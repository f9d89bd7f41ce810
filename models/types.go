package models

import (
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
)

// StringList is a list of strings stored as a JSON array in a text column
// (scopes, aliases, labels). It is never NULL in the database: an empty list
// is stored as "[]".
type StringList []string

// Value implements driver.Valuer.
func (l StringList) Value() (driver.Value, error) {
	if l == nil {
		return "[]", nil
	}
	b, err := json.Marshal([]string(l))
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

// Scan implements sql.Scanner.
func (l *StringList) Scan(src any) error {
	var b []byte
	switch v := src.(type) {
	case nil:
		*l = StringList{}
		return nil
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		return fmt.Errorf("scan StringList: unsupported type %T", src)
	}
	if len(b) == 0 {
		*l = StringList{}
		return nil
	}
	var out []string
	if err := json.Unmarshal(b, &out); err != nil {
		return fmt.Errorf("scan StringList: %w", err)
	}
	if out == nil {
		out = []string{}
	}
	*l = out
	return nil
}

// Contains reports whether s is in the list.
func (l StringList) Contains(s string) bool {
	for _, v := range l {
		if v == s {
			return true
		}
	}
	return false
}

// JSON is a raw JSON document stored in a jsonb (PostgreSQL) or text (SQLite)
// column. The zero value is stored as NULL.
type JSON json.RawMessage

// Value implements driver.Valuer.
func (j JSON) Value() (driver.Value, error) {
	if len(j) == 0 {
		return nil, nil
	}
	if !json.Valid(j) {
		return nil, errors.New("value JSON: invalid JSON")
	}
	return string(j), nil
}

// Scan implements sql.Scanner.
func (j *JSON) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*j = nil
	case string:
		*j = append((*j)[:0], v...)
	case []byte:
		*j = append((*j)[:0], v...)
	default:
		return fmt.Errorf("scan JSON: unsupported type %T", src)
	}
	return nil
}

// MarshalJSON emits the raw document ("null" when empty).
func (j JSON) MarshalJSON() ([]byte, error) {
	if len(j) == 0 {
		return []byte("null"), nil
	}
	return j, nil
}

// UnmarshalJSON keeps the raw document.
func (j *JSON) UnmarshalJSON(b []byte) error {
	*j = append((*j)[:0], b...)
	return nil
}
