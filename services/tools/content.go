package tools

// Content kinds (the MCP content block types a tool result may carry).
const (
	ContentText     = "text"
	ContentImage    = "image"
	ContentAudio    = "audio"
	ContentResource = "resource"
)

// Content is one block of a tool result's content. Which fields are used
// depends on Type:
//   - ContentText: Text;
//   - ContentImage, ContentAudio: Data (base64) and MIMEType;
//   - ContentResource: Resource (an embedded resource).
type Content struct {
	Type     string
	Text     string
	Data     string
	MIMEType string
	Resource *ResourceContents
}

// ResourceContents is an embedded resource: its URI, optional MIME type,
// and either Text or Blob (base64).
type ResourceContents struct {
	URI      string
	MIMEType string
	Text     string
	Blob     string
}

// TextContent returns a text block.
func TextContent(text string) Content { return Content{Type: ContentText, Text: text} }

// ImageContent returns an image block; data is base64.
func ImageContent(data, mimeType string) Content {
	return Content{Type: ContentImage, Data: data, MIMEType: mimeType}
}

// AudioContent returns an audio block; data is base64.
func AudioContent(data, mimeType string) Content {
	return Content{Type: ContentAudio, Data: data, MIMEType: mimeType}
}

// EmbeddedText returns an embedded text resource block.
func EmbeddedText(uri, mimeType, text string) Content {
	return Content{Type: ContentResource, Resource: &ResourceContents{URI: uri, MIMEType: mimeType, Text: text}}
}
