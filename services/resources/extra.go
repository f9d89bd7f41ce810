package resources

import (
	"context"
	"encoding/json"

	"gitlab.com/glmcp/glmcp/models"
)

// Extra is content a build serves beside GitLab's: the conformance suite's
// fixtures (services/resources/conformance), which only the
// glmcp-conformance binary links. Every field may be empty.
type Extra struct {
	// Resources head the first page of resources/list.
	Resources []Resource
	// Templates follow GitLab's in resources/templates/list.
	Templates []Template
	// Read reads one of Extra's resources; ok is false for a URI that is
	// not one of them, which is then read as a GitLab URI.
	Read func(uri string) (contents []Contents, ok bool)
	// Prompts are listed and served beside GitLab's.
	Prompts []ExtraPrompt
	// Complete completes an argument of one of Prompts; ok is false for a
	// prompt it does not complete.
	Complete func(prompt, arg, value string) (c Completion, ok bool)
}

// ExtraPrompt is a prompt of an Extra, built from its arguments alone.
type ExtraPrompt struct {
	Prompt
	// Get builds the prompt from arguments already checked against
	// Prompt.Arguments.
	Get func(args map[string]string) *PromptResult
	// Input, when set, are input requests the client must answer before
	// the prompt is built (2026-07-28 input_required).
	Input map[string]json.RawMessage
}

// def is p as this package keeps its own prompts.
func (p ExtraPrompt) def() promptDef {
	return promptDef{Prompt: p.Prompt, input: p.Input,
		get: func(_ *Service, _ context.Context, _ models.Scope, args map[string]string) (*PromptResult, error) {
			return p.Get(args), nil
		}}
}
