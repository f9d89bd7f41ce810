package resources

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

// The conformance suite's fixture content (the same conventions as the
// go-sdk and TypeScript "everything" servers), served only with
// --conformance-fixtures: test:// resources, a template, and test_*
// prompts with a completion.

// fixturePNG is a 1×1 transparent PNG.
const fixturePNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

var fixtureResources = []Resource{
	{URI: "test://static-text", Name: "static-text", Title: "Static text", Description: "A static text resource (conformance fixture).", MimeType: "text/plain"},
	{URI: "test://static-binary", Name: "static-binary", Title: "Static binary", Description: "A static binary resource (conformance fixture).", MimeType: "image/png"},
	{URI: "test://watched-resource", Name: "watched-resource", Title: "Watched resource", Description: "A resource to subscribe to (conformance fixture).", MimeType: "text/plain"},
}

var fixtureTemplates = []Template{
	{URITemplate: "test://template/{id}/data", Name: "template-data", Title: "Template data",
		Description: "A templated resource (conformance fixture).", MimeType: "application/json"},
}

func fixtureRead(uri string) ([]Contents, bool) {
	switch uri {
	case "test://static-text":
		return []Contents{{URI: uri, MimeType: "text/plain", Text: "This is the content of the static text resource."}}, true
	case "test://static-binary":
		png, _ := base64.StdEncoding.DecodeString(fixturePNG)
		return []Contents{{URI: uri, MimeType: "image/png", Blob: png, IsBlob: true}}, true
	case "test://watched-resource":
		return []Contents{{URI: uri, MimeType: "text/plain", Text: "Watched resource content."}}, true
	}
	if id, ok := strings.CutPrefix(uri, "test://template/"); ok {
		if id, ok = strings.CutSuffix(id, "/data"); ok && id != "" && !strings.Contains(id, "/") {
			b, _ := json.Marshal(map[string]string{"id": id, "templateTest": "true", "data": "Data for ID: " + id})
			return []Contents{{URI: uri, MimeType: "application/json", Text: string(b)}}, true
		}
	}
	return nil, false
}

func fixedPrompt(msgs ...PromptMessage) func(*Service, context.Context, models.Scope, map[string]string) (*PromptResult, error) {
	return func(*Service, context.Context, models.Scope, map[string]string) (*PromptResult, error) {
		return &PromptResult{Messages: msgs}, nil
	}
}

var fixturePrompts = []promptDef{
	{Prompt: Prompt{Name: "test_simple_prompt", Description: "A simple prompt without arguments (conformance fixture)."},
		get: fixedPrompt(user1("This is a simple prompt for testing."))},
	{Prompt: Prompt{Name: "test_prompt_with_arguments", Description: "A prompt with arguments (conformance fixture).",
		Arguments: []PromptArgument{{Name: "arg1", Description: "First test argument", Required: true},
			{Name: "arg2", Description: "Second test argument", Required: true}}},
		get: func(_ *Service, _ context.Context, _ models.Scope, a map[string]string) (*PromptResult, error) {
			return &PromptResult{Messages: []PromptMessage{user1("Prompt with arguments: arg1='" + a["arg1"] + "', arg2='" + a["arg2"] + "'")}}, nil
		}},
	{Prompt: Prompt{Name: "test_prompt_with_embedded_resource", Description: "A prompt with an embedded resource (conformance fixture).",
		Arguments: []PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}}},
		get: func(_ *Service, _ context.Context, _ models.Scope, a map[string]string) (*PromptResult, error) {
			return &PromptResult{Messages: []PromptMessage{
				userBlock(resourceBlock(Contents{URI: a["resourceUri"], MimeType: "text/plain", Text: "Embedded resource content for testing."})),
				user1("Please process the embedded resource above."),
			}}, nil
		}},
	{Prompt: Prompt{Name: "test_prompt_with_image", Description: "A prompt with an image (conformance fixture)."},
		get: fixedPrompt(
			PromptMessage{Role: "user", Content: ContentBlock{Type: "image", Data: fixturePNG, MimeType: "image/png"}},
			user1("Please analyze the image above."))},
	{Prompt: Prompt{Name: "test_input_required_result_prompt", Description: "A prompt that asks for input first (conformance fixture, 2026-07-28)."},
		get: func(_ *Service, _ context.Context, _ models.Scope, _ map[string]string) (*PromptResult, error) {
			return &PromptResult{Messages: []PromptMessage{user1("Prompt completed with the input provided.")}}, nil
		},
		input: map[string]json.RawMessage{"context": json.RawMessage(`{"method":"elicitation/create","params":{"mode":"form",` +
			`"message":"Please provide context for the prompt","requestedSchema":{"type":"object","properties":` +
			`{"context":{"type":"string","description":"Context"}},"required":["context"]}}}`)}},
}

// fixtureComplete completes test_prompt_with_arguments' arguments.
func fixtureComplete(prompt, arg, value string) (Completion, bool) {
	if prompt != "test_prompt_with_arguments" {
		return Completion{}, false
	}
	out := []string{}
	for _, v := range []string{"paris", "park", "party", "testValue1", "testValue2"} {
		if strings.HasPrefix(v, value) {
			out = append(out, v)
		}
	}
	return Completion{Values: out, Total: len(out)}, true
}
