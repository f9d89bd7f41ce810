package gitlab

import (
	"strconv"
)

func ptr[T any](v T) *T { return &v }

func itoa(n int) string { return strconv.Itoa(n) }

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
