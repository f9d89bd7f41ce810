package models

import (
	"database/sql/driver"
	"fmt"
	"time"
)

// DateLayout is the wire and storage form of a Date.
const DateLayout = "2006-01-02"

// Date is a calendar day without a time or zone (GitLab's due and start
// dates). It is stored as a date (PostgreSQL) or "YYYY-MM-DD" text
// (SQLite), so it compares the same way in both.
type Date struct{ time.Time }

// ParseDate parses "YYYY-MM-DD"; anything else wraps ErrInvalidInput.
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(DateLayout, s)
	if err != nil {
		return Date{}, fmt.Errorf("date %q: want YYYY-MM-DD: %w", s, ErrInvalidInput)
	}
	return Date{t}, nil
}

// String returns "YYYY-MM-DD".
func (d Date) String() string { return d.Format(DateLayout) }

// MarshalJSON encodes the date as "YYYY-MM-DD".
func (d Date) MarshalJSON() ([]byte, error) { return []byte(`"` + d.String() + `"`), nil }

// Value implements driver.Valuer.
func (d Date) Value() (driver.Value, error) { return d.String(), nil }

// Scan implements sql.Scanner: a time (PostgreSQL date) or text.
func (d *Date) Scan(src any) error {
	switch v := src.(type) {
	case time.Time:
		d.Time = time.Date(v.Year(), v.Month(), v.Day(), 0, 0, 0, 0, time.UTC)
		return nil
	case string:
		return d.scanText(v)
	case []byte:
		return d.scanText(string(v))
	}
	return fmt.Errorf("scan Date: unsupported type %T", src)
}

func (d *Date) scanText(s string) error {
	if len(s) > len(DateLayout) {
		s = s[:len(DateLayout)] // "2026-12-01T00:00:00Z" from a DATE column
	}
	t, err := time.Parse(DateLayout, s)
	if err != nil {
		return fmt.Errorf("scan Date: %w", err)
	}
	d.Time = t
	return nil
}
