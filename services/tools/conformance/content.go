package conformance

import (
	"context"
	"encoding/json"
	"fmt"

	"gitlab.com/glmcp/glmcp/services/tools"
)

// Fixture media: a 1×1 red PNG and a 52-byte 8 kHz mono 8-bit WAV of
// silence, base64.
const (
	fixturePNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
	fixtureWAV = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA=="
)

func fixtureSimpleText() tools.Definition {
	return confFixture("test_simple_text", "Conformance fixture: returns one text content block.",
		confText("This is a simple text response for testing."))
}

func fixtureImage() tools.Definition {
	return confFixture("test_image_content", "Conformance fixture: returns an image content block (a 1x1 PNG).",
		func(context.Context, *tools.Call) (*tools.Result, error) {
			return &tools.Result{Content: []tools.Content{tools.ImageContent(fixturePNG, "image/png")}}, nil
		})
}

func fixtureAudio() tools.Definition {
	return confFixture("test_audio_content", "Conformance fixture: returns an audio content block (a short WAV).",
		func(context.Context, *tools.Call) (*tools.Result, error) {
			return &tools.Result{Content: []tools.Content{tools.AudioContent(fixtureWAV, "audio/wav")}}, nil
		})
}

func fixtureEmbeddedResource() tools.Definition {
	return confFixture("test_embedded_resource", "Conformance fixture: returns an embedded text resource.",
		func(context.Context, *tools.Call) (*tools.Result, error) {
			return &tools.Result{Content: []tools.Content{
				tools.EmbeddedText("test://embedded-resource", "text/plain", "This is an embedded resource content."),
			}}, nil
		})
}

func fixtureMultipleContent() tools.Definition {
	return confFixture("test_multiple_content_types", "Conformance fixture: returns text, image and embedded resource content.",
		func(context.Context, *tools.Call) (*tools.Result, error) {
			return &tools.Result{Content: []tools.Content{
				tools.TextContent("Multiple content types test:"),
				tools.ImageContent(fixturePNG, "image/png"),
				tools.EmbeddedText("test://mixed-content-resource", "application/json", `{"test":"data","value":123}`),
			}}, nil
		})
}

func fixtureErrorHandling() tools.Definition {
	return confFixture("test_error_handling", "Conformance fixture: always fails with an error result.",
		func(context.Context, *tools.Call) (*tools.Result, error) {
			return &tools.Result{Text: "This tool intentionally returns an error for testing", IsError: true}, nil
		})
}

// fixtureJSONSchema202012 keeps the suite's JSON Schema 2020-12 document
// ($schema, $defs with $anchor, allOf/anyOf, if/then/else,
// additionalProperties) verbatim in tools/list.
func fixtureJSONSchema202012() tools.Definition {
	d := confFixture("json_schema_2020_12_tool", "Conformance fixture: an input schema using JSON Schema 2020-12 features.",
		func(_ context.Context, call *tools.Call) (*tools.Result, error) {
			return &tools.Result{Text: fmt.Sprintf("JSON Schema 2020-12 tool called with: %s", call.Arguments)}, nil
		})
	d.InputSchema = json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
		`"$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},` +
		`"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},` +
		`"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},` +
		`"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],` +
		`"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},` +
		`"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}`)
	return d
}

// fixtureXMCPHeader has a string argument mirrored into the
// Mcp-Param-Region header (x-mcp-header), which the dispatcher validates.
func fixtureXMCPHeader() tools.Definition {
	d := confFixture("test_x_mcp_header", "Conformance fixture: region is mirrored into the Mcp-Param-Region header.",
		func(_ context.Context, call *tools.Call) (*tools.Result, error) {
			var in struct {
				Region string `json:"region"`
			}
			if err := json.Unmarshal(call.Arguments, &in); err != nil {
				return nil, fmt.Errorf("decode arguments: %w", err)
			}
			return &tools.Result{Text: "region=" + in.Region}, nil
		})
	d.InputSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"region":{"type":"string","description":"Mirrored into the Mcp-Param-Region header.","x-mcp-header":"Region"},` +
		`"level":{"type":"integer","description":"Not mirrored."}},"additionalProperties":false}`)
	return d
}
