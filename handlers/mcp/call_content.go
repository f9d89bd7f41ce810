package mcp

import "gitlab.com/glmcp/glmcp/services/tools"

// Content blocks of a CallToolResult, one wire shape per kind.

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type mediaContent struct {
	Type     string `json:"type"`
	Data     string `json:"data"`
	MIMEType string `json:"mimeType"`
}

type resourceContent struct {
	Type     string           `json:"type"`
	Resource resourceContents `json:"resource"`
}

type resourceContents struct {
	URI      string  `json:"uri"`
	MIMEType string  `json:"mimeType,omitempty"`
	Text     *string `json:"text,omitempty"`
	Blob     *string `json:"blob,omitempty"`
}

// renderContent returns the content array of a tool result: res.Content
// when the tool set it, else one text block of res.Text.
func renderContent(res *tools.Result) []any {
	if len(res.Content) == 0 {
		return []any{textContent{Type: tools.ContentText, Text: res.Text}}
	}
	out := make([]any, 0, len(res.Content))
	for _, c := range res.Content {
		switch {
		case c.Type == tools.ContentImage || c.Type == tools.ContentAudio:
			out = append(out, mediaContent{Type: c.Type, Data: c.Data, MIMEType: c.MIMEType})
		case c.Type == tools.ContentResource && c.Resource != nil:
			r := resourceContents{URI: c.Resource.URI, MIMEType: c.Resource.MIMEType}
			if c.Resource.Blob != "" {
				r.Blob = &c.Resource.Blob
			} else {
				r.Text = &c.Resource.Text
			}
			out = append(out, resourceContent{Type: tools.ContentResource, Resource: r})
		default: // text, and anything a tool got wrong, reads as text
			out = append(out, textContent{Type: tools.ContentText, Text: c.Text})
		}
	}
	return out
}
