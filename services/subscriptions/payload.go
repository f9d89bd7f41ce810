package subscriptions

import (
	"encoding/json"
	"fmt"

	"gitlab.com/glmcp/glmcp/models"
)

// Channel is the PostgreSQL NOTIFY channel carrying catalog events.
const Channel = "glmcp_catalog"

// maxPayloadBytes is PostgreSQL's NOTIFY payload limit (8000 bytes by
// default). Our payloads stay far below it: a tool name is at most
// maxToolNameBytes.
const maxPayloadBytes = 8000

// encodePayload returns the NOTIFY payload for e, for example
// {"kind":"tools","tool":"get_issue","edition":"ce","version":42}.
func encodePayload(e Event) (string, error) {
	if err := e.validate(); err != nil {
		return "", err
	}
	b, err := json.Marshal(e.normalized())
	if err != nil {
		return "", fmt.Errorf("encode event: %w", err)
	}
	return string(b), nil
}

// decodePayload parses a NOTIFY payload. Anything that is not a JSON object
// describing a valid event is reported as models.ErrInvalidInput; unknown
// fields are ignored so newer publishers can add some.
func decodePayload(payload string) (Event, error) {
	if len(payload) > maxPayloadBytes {
		return Event{}, fmt.Errorf("payload of %d bytes: %w", len(payload), models.ErrInvalidInput)
	}
	var e Event
	if err := json.Unmarshal([]byte(payload), &e); err != nil {
		return Event{}, fmt.Errorf("decode payload: %w: %v", models.ErrInvalidInput, err)
	}
	if err := e.validate(); err != nil {
		return Event{}, err
	}
	return e.normalized(), nil
}
