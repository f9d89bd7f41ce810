// Package conformance holds the resources, resource template and prompts
// the official MCP conformance suite reads (the same conventions as the
// go-sdk and TypeScript "everything" servers): test:// resources, a
// template, and test_* prompts with a completion. Only the
// glmcp-conformance binary links it; the glmcp binary does not.
package conformance

import (
	"encoding/base64"
	"encoding/json"
	"strings"

	"gitlab.com/glmcp/glmcp/services/resources"
)

// Content is the fixtures, as resources.Options.Extra.
func Content() resources.Extra {
	return resources.Extra{Resources: fixtureResources, Templates: fixtureTemplates,
		Read: read, Prompts: fixturePrompts, Complete: complete}
}

// fixturePNG is a 1×1 transparent PNG.
const fixturePNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

var fixtureResources = []resources.Resource{
	{URI: "test://static-text", Name: "static-text", Title: "Static text", Description: "A static text resource (conformance fixture).", MimeType: "text/plain"},
	{URI: "test://static-binary", Name: "static-binary", Title: "Static binary", Description: "A static binary resource (conformance fixture).", MimeType: "image/png"},
	{URI: "test://watched-resource", Name: "watched-resource", Title: "Watched resource", Description: "A resource to subscribe to (conformance fixture).", MimeType: "text/plain"},
}

var fixtureTemplates = []resources.Template{
	{URITemplate: "test://template/{id}/data", Name: "template-data", Title: "Template data",
		Description: "A templated resource (conformance fixture).", MimeType: "application/json"},
}

func read(uri string) ([]resources.Contents, bool) {
	switch uri {
	case "test://static-text":
		return []resources.Contents{{URI: uri, MimeType: "text/plain", Text: "This is the content of the static text resource."}}, true
	case "test://static-binary":
		png, _ := base64.StdEncoding.DecodeString(fixturePNG)
		return []resources.Contents{{URI: uri, MimeType: "image/png", Blob: png, IsBlob: true}}, true
	case "test://watched-resource":
		return []resources.Contents{{URI: uri, MimeType: "text/plain", Text: "Watched resource content."}}, true
	}
	if id, ok := strings.CutPrefix(uri, "test://template/"); ok {
		if id, ok = strings.CutSuffix(id, "/data"); ok && id != "" && !strings.Contains(id, "/") {
			b, _ := json.Marshal(map[string]string{"id": id, "templateTest": "true", "data": "Data for ID: " + id})
			return []resources.Contents{{URI: uri, MimeType: "application/json", Text: string(b)}}, true
		}
	}
	return nil, false
}

// fixed is a prompt builder whose messages do not depend on the arguments.
func fixed(msgs ...resources.PromptMessage) func(map[string]string) *resources.PromptResult {
	return func(map[string]string) *resources.PromptResult { return &resources.PromptResult{Messages: msgs} }
}

var fixturePrompts = []resources.ExtraPrompt{
	{Prompt: resources.Prompt{Name: "test_simple_prompt", Description: "A simple prompt without arguments (conformance fixture)."},
		Get: fixed(resources.UserText("This is a simple prompt for testing."))},
	{Prompt: resources.Prompt{Name: "test_prompt_with_arguments", Description: "A prompt with arguments (conformance fixture).",
		Arguments: []resources.PromptArgument{{Name: "arg1", Description: "First test argument", Required: true},
			{Name: "arg2", Description: "Second test argument", Required: true}}},
		Get: func(a map[string]string) *resources.PromptResult {
			return &resources.PromptResult{Messages: []resources.PromptMessage{
				resources.UserText("Prompt with arguments: arg1='" + a["arg1"] + "', arg2='" + a["arg2"] + "'")}}
		}},
	{Prompt: resources.Prompt{Name: "test_prompt_with_embedded_resource", Description: "A prompt with an embedded resource (conformance fixture).",
		Arguments: []resources.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}}},
		Get: func(a map[string]string) *resources.PromptResult {
			return &resources.PromptResult{Messages: []resources.PromptMessage{
				resources.UserBlock(resources.ResourceBlock(resources.Contents{URI: a["resourceUri"], MimeType: "text/plain", Text: "Embedded resource content for testing."})),
				resources.UserText("Please process the embedded resource above."),
			}}
		}},
	{Prompt: resources.Prompt{Name: "test_prompt_with_image", Description: "A prompt with an image (conformance fixture)."},
		Get: fixed(
			resources.PromptMessage{Role: "user", Content: resources.ContentBlock{Type: "image", Data: fixturePNG, MimeType: "image/png"}},
			resources.UserText("Please analyze the image above."))},
	{Prompt: resources.Prompt{Name: "test_input_required_result_prompt", Description: "A prompt that asks for input first (conformance fixture, 2026-07-28)."},
		Get: fixed(resources.UserText("Prompt completed with the input provided.")),
		Input: map[string]json.RawMessage{"context": json.RawMessage(`{"method":"elicitation/create","params":{"mode":"form",` +
			`"message":"Please provide context for the prompt","requestedSchema":{"type":"object","properties":` +
			`{"context":{"type":"string","description":"Context"}},"required":["context"]}}}`)}},
}

// complete completes test_prompt_with_arguments' arguments.
func complete(prompt, _, value string) (resources.Completion, bool) {
	if prompt != "test_prompt_with_arguments" {
		return resources.Completion{}, false
	}
	out := []string{}
	for _, v := range []string{"paris", "park", "party", "testValue1", "testValue2"} {
		if strings.HasPrefix(v, value) {
			out = append(out, v)
		}
	}
	return resources.Completion{Values: out, Total: len(out)}, true
}
