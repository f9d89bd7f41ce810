package tools

import "encoding/json"

// Methods a tool may ask the client to serve through Result.InputRequests,
// and the client capability each needs.
const (
	InputElicit    = "elicitation/create"
	InputSample    = "sampling/createMessage"
	InputListRoots = "roots/list"
)

// InputCapability names the client capability an input request method
// needs ("" for an unknown method).
func InputCapability(method string) string {
	switch method {
	case InputElicit:
		return "elicitation"
	case InputSample:
		return "sampling"
	case InputListRoots:
		return "roots"
	}
	return ""
}

// InputRequest is one request the client is asked to serve: a method and
// its params (an ElicitRequest, CreateMessageRequest or ListRootsRequest).
type InputRequest struct {
	Method string
	Params any
}

// ElicitInput asks the user, through the client, for the fields of schema
// (a flat JSON Schema object of primitive properties).
func ElicitInput(message string, schema json.RawMessage) InputRequest {
	return InputRequest{Method: InputElicit, Params: map[string]any{"message": message, "requestedSchema": schema}}
}

// SampleInput asks the client's model to answer prompt.
func SampleInput(prompt string, maxTokens int) InputRequest {
	return InputRequest{Method: InputSample, Params: map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": prompt}}},
		"maxTokens": maxTokens,
	}}
}

// ListRootsInput asks the client for its roots.
func ListRootsInput() InputRequest {
	return InputRequest{Method: InputListRoots, Params: map[string]any{}}
}

// Declares reports whether the request declared the client capability
// name (see the package function Declares).
func (c *Call) Declares(name string) bool { return Declares(c.ClientCapabilities, name) }

// Accepted returns the content of the elicitation answer under key when
// the user accepted it.
func (c *Call) Accepted(key string) (map[string]any, bool) {
	var r struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
	}
	if json.Unmarshal(c.InputResponses[key], &r) != nil || r.Action != "accept" || r.Content == nil {
		return nil, false
	}
	return r.Content, true
}

// Sampled returns the text of the sampling answer under key.
func (c *Call) Sampled(key string) (string, bool) {
	var r struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(c.InputResponses[key], &r) != nil || r.Role == "" || len(r.Content) == 0 {
		return "", false
	}
	var one struct{ Type, Text string }
	if json.Unmarshal(r.Content, &one) == nil && one.Type == ContentText {
		return one.Text, true
	}
	var many []struct{ Type, Text string }
	if json.Unmarshal(r.Content, &many) == nil {
		for _, b := range many {
			if b.Type == ContentText {
				return b.Text, true
			}
		}
	}
	return "", true // answered, but not with text
}

// Roots returns the root URIs of the roots answer under key.
func (c *Call) Roots(key string) ([]string, bool) {
	var r struct {
		Roots *[]struct {
			URI string `json:"uri"`
		} `json:"roots"`
	}
	if json.Unmarshal(c.InputResponses[key], &r) != nil || r.Roots == nil {
		return nil, false
	}
	uris := make([]string, 0, len(*r.Roots))
	for _, root := range *r.Roots {
		uris = append(uris, root.URI)
	}
	return uris, true
}
