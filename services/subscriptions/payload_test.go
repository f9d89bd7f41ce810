package subscriptions

import (
	"errors"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

func TestEncodePayload(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		event   Event
		want    string
		wantErr error
	}{
		{
			name:  "tool change",
			event: Event{Kind: KindTools, Tool: "get_issue", Edition: models.EditionCE, Version: 42},
			want:  `{"kind":"tools","tool":"get_issue","edition":"ce","version":42}`,
		},
		{
			name:  "resync omits empty fields",
			event: Event{Kind: KindResync},
			want:  `{"kind":"resync"}`,
		},
		{
			name:  "oversized tool name is dropped (bulk)",
			event: Event{Kind: KindTools, Tool: strings.Repeat("x", maxToolNameBytes+1), Edition: models.EditionEE},
			want:  `{"kind":"tools","edition":"ee"}`,
		},
		{
			name:    "unknown kind",
			event:   Event{Kind: "prompts"},
			wantErr: models.ErrInvalidInput,
		},
		{
			name:    "unknown edition",
			event:   Event{Kind: KindTools, Tool: "x", Edition: "pro"},
			wantErr: models.ErrInvalidInput,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := encodePayload(tt.event)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("encodePayload() error = %v, want %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Fatalf("encodePayload() = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestDecodePayload(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		payload string
		want    Event
		wantErr bool
	}{
		{
			name:    "tool change",
			payload: `{"kind":"tools","tool":"get_issue","edition":"ce","version":42}`,
			want:    Event{Kind: KindTools, Tool: "get_issue", Edition: models.EditionCE, Version: 42},
		},
		{
			name:    "unknown fields are ignored",
			payload: `{"kind":"resync","from":"glmcp 2.0"}`,
			want:    Event{Kind: KindResync},
		},
		{
			name:    "oversized tool name becomes bulk",
			payload: `{"kind":"tools","tool":"` + strings.Repeat("y", 300) + `"}`,
			want:    Event{Kind: KindTools},
		},
		{name: "empty", payload: ``, wantErr: true},
		{name: "not json", payload: `tools changed`, wantErr: true},
		{name: "null", payload: `null`, wantErr: true},
		{name: "array", payload: `[{"kind":"tools"}]`, wantErr: true},
		{name: "no kind", payload: `{"tool":"get_issue"}`, wantErr: true},
		{name: "unknown kind", payload: `{"kind":"prompts"}`, wantErr: true},
		{name: "unknown edition", payload: `{"kind":"tools","edition":"pro"}`, wantErr: true},
		{name: "wrong type", payload: `{"kind":"tools","version":"7"}`, wantErr: true},
		{name: "truncated", payload: `{"kind":"tools"`, wantErr: true},
		{name: "too long", payload: `{"kind":"tools","x":"` + strings.Repeat("z", maxPayloadBytes) + `"}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := decodePayload(tt.payload)
			if tt.wantErr {
				if !errors.Is(err, models.ErrInvalidInput) {
					t.Fatalf("decodePayload() = %+v, %v; want ErrInvalidInput", got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("decodePayload() = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func FuzzDecodePayload(f *testing.F) {
	f.Add(`{"kind":"tools","tool":"get_issue","edition":"ce","version":42}`)
	f.Add(`{"kind":"resync"}`)
	f.Add(`{`)
	f.Fuzz(func(t *testing.T, payload string) {
		e, err := decodePayload(payload) // must not panic
		if err == nil {
			if verr := e.validate(); verr != nil {
				t.Fatalf("decoded an invalid event %+v: %v", e, verr)
			}
			if _, err := encodePayload(e); err != nil {
				t.Fatalf("decoded event %+v does not re-encode: %v", e, err)
			}
		}
	})
}
