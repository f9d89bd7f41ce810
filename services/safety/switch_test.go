package safety

import (
	"net/http"
	"testing"
)

func TestOn(t *testing.T) {
	tests := []struct {
		name     string
		instance bool
		values   []string
		want     bool
	}{
		{"off, no header", false, nil, false},
		{"off, header true", false, []string{"true"}, true},
		{"off, header TRUE with blanks", false, []string{"  TRUE "}, true},
		{"off, header 1", false, []string{"1"}, true},
		{"off, header false", false, []string{"false"}, false},
		{"off, header garbage", false, []string{"maybe"}, false},
		{"off, header empty", false, []string{""}, false},
		{"off, one of several lines true", false, []string{"false", "true"}, true},
		{"off, comma list with true", false, []string{"false, true"}, true},
		{"on, no header", true, nil, true},
		{"on, header false cannot turn it off", true, []string{"false"}, true},
		{"on, header 0 cannot turn it off", true, []string{"0"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for _, v := range tt.values {
				h.Add(HeaderReadOnly, v)
			}
			if got := On(tt.instance, h, HeaderReadOnly); got != tt.want {
				t.Errorf("On(%v, %q) = %v, want %v", tt.instance, tt.values, got, tt.want)
			}
		})
	}
}
