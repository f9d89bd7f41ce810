package resources

import (
	"encoding/json"
	"errors"
)

// Resource is one entry of resources/list.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
	Size        *int64 `json:"size,omitempty"`
}

// Template is one entry of resources/templates/list (RFC 6570).
type Template struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
}

// Contents is one item of a resources/read result: text, or a blob
// (base64 on the wire).
type Contents struct {
	URI      string
	MimeType string
	Text     string
	Blob     []byte
	// IsBlob selects Blob over Text.
	IsBlob bool
}

// MarshalJSON renders TextResourceContents or BlobResourceContents.
func (c Contents) MarshalJSON() ([]byte, error) {
	if c.IsBlob {
		return json.Marshal(struct {
			URI      string `json:"uri"`
			MimeType string `json:"mimeType,omitempty"`
			Blob     []byte `json:"blob"`
		}{c.URI, c.MimeType, c.Blob})
	}
	return json.Marshal(struct {
		URI      string `json:"uri"`
		MimeType string `json:"mimeType,omitempty"`
		Text     string `json:"text"`
	}{c.URI, c.MimeType, c.Text})
}

// size is the number of bytes the contents carry.
func (c Contents) size() int {
	if c.IsBlob {
		return len(c.Blob)
	}
	return len(c.Text)
}

// Prompt is one entry of prompts/list.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// PromptArgument is an argument a prompt accepts.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// PromptMessage is one message of a prompts/get result.
type PromptMessage struct {
	Role    string       `json:"role"`
	Content ContentBlock `json:"content"`
}

// ContentBlock is a text, image or embedded resource content block.
type ContentBlock struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	Data     string    `json:"data,omitempty"`
	MimeType string    `json:"mimeType,omitempty"`
	Resource *Contents `json:"resource,omitempty"`
}

// MarshalJSON keeps "text" on text blocks even when empty.
func (b ContentBlock) MarshalJSON() ([]byte, error) {
	switch b.Type {
	case "text":
		return json.Marshal(struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{b.Type, b.Text})
	case "resource":
		return json.Marshal(struct {
			Type     string    `json:"type"`
			Resource *Contents `json:"resource"`
		}{b.Type, b.Resource})
	default:
		return json.Marshal(struct {
			Type     string `json:"type"`
			Data     string `json:"data"`
			MimeType string `json:"mimeType"`
		}{b.Type, b.Data, b.MimeType})
	}
}

func textBlock(s string) ContentBlock { return ContentBlock{Type: "text", Text: s} }

// ResourceBlock is an embedded resource content block.
func ResourceBlock(c Contents) ContentBlock { return ContentBlock{Type: "resource", Resource: &c} }

// PromptResult is a prompts/get result.
type PromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
	// InputRequests, when set, make this an input_required result
	// (2026-07-28) instead: the client answers and retries.
	InputRequests map[string]json.RawMessage `json:"-"`
}

// Completion is a completion/complete result's completion member.
type Completion struct {
	Values  []string `json:"values"`
	Total   int      `json:"total,omitempty"`
	HasMore bool     `json:"hasMore"`
}

// Ref is what completion/complete completes: a prompt's argument
// (Type "ref/prompt", Name) or a resource template's variable
// (Type "ref/resource", URI the template).
type Ref struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// NotFoundError is an unknown or unreadable resource or prompt. The
// message is the same for a missing object and one the caller may not
// read.
type NotFoundError struct {
	Kind string // "Resource" or "Prompt"
	Name string // the URI or prompt name
}

func (e *NotFoundError) Error() string { return e.Kind + " not found: " + quote(e.Name) }

// InvalidError is a request the caller can fix (a bad argument, a bad
// cursor, a resource too large to read whole).
type InvalidError struct{ Message string }

func (e *InvalidError) Error() string { return e.Message }

func invalidf(msg string) error { return &InvalidError{Message: msg} }

// IsNotFound and IsInvalid classify the errors of this package.
func IsNotFound(err error) bool { var e *NotFoundError; return errors.As(err, &e) }

// IsInvalid reports an *InvalidError.
func IsInvalid(err error) bool { var e *InvalidError; return errors.As(err, &e) }

// quote quotes s for a message, cut to 200 bytes.
func quote(s string) string {
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	b, _ := json.Marshal(s)
	return string(b)
}
