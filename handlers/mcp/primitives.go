package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/resources"
)

// ContextService serves resources, prompts and completions
// (resources.Service implements it). Without one, the list methods answer
// empty lists and reads answer "not found".
type ContextService interface {
	List(ctx context.Context, sc models.Scope, cursor *string) (resources.ListPage, error)
	Templates() []resources.Template
	Read(ctx context.Context, sc models.Scope, uri string) ([]resources.Contents, error)
	Prompts() []resources.Prompt
	GetPrompt(ctx context.Context, sc models.Scope, name string, args map[string]string, inputResponses map[string]json.RawMessage) (*resources.PromptResult, error)
	Complete(ctx context.Context, sc models.Scope, ref resources.Ref, arg, value string, ctxArgs map[string]string) (resources.Completion, error)
	// Watch resolves the resources a listen stream subscribes to.
	Watch(ctx context.Context, sc models.Scope, uris []string) (resources.Watched, error)
}

// cacheHints are the Modern caching fields of list and read results.
type cacheHints struct {
	TTLMs      *int64 `json:"ttlMs,omitempty"`
	CacheScope string `json:"cacheScope,omitempty"`
}

type promptsResult struct {
	resultFields
	Prompts []resources.Prompt `json:"prompts"`
	cacheHints
}

type resourcesResult struct {
	resultFields
	Resources  []resources.Resource `json:"resources"`
	NextCursor string               `json:"nextCursor,omitempty"`
	cacheHints
}

type templatesResult struct {
	resultFields
	ResourceTemplates []resources.Template `json:"resourceTemplates"`
	cacheHints
}

type readResult struct {
	resultFields
	Contents []resources.Contents `json:"contents"`
	cacheHints
}

type promptResult struct {
	resultFields
	Description string                    `json:"description,omitempty"`
	Messages    []resources.PromptMessage `json:"messages"`
}

type completeResult struct {
	resultFields
	Completion resources.Completion `json:"completion"`
}

type emptyResult struct {
	resultFields
}

type cursorParams struct {
	metaParams
	Cursor *string `json:"cursor"`
}

type readResourceParams struct {
	metaParams
	// URI is read leniently: anything but a non-empty string is the same
	// -32602.
	URI json.RawMessage `json:"uri"`
}

func (p *readResourceParams) mcpName() string { return jsonStringOrEmpty(p.URI) }

type getPromptParams struct {
	metaParams
	Name           string                     `json:"name"`
	Arguments      map[string]string          `json:"arguments"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
}

func (p *getPromptParams) mcpName() string { return p.Name }

type completeParams struct {
	metaParams
	Ref      *resources.Ref `json:"ref"`
	Argument *struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"argument"`
	Context *struct {
		Arguments map[string]string `json:"arguments"`
	} `json:"context"`
}

// hints returns the caching hints of a Modern result: private (every
// answer depends on who asks) with the list TTL; none on Legacy.
func (s *Server) hints(x *exchange, scope string) cacheHints {
	if !x.modern {
		return cacheHints{}
	}
	v := ms(s.cfg.ListTTL)
	return cacheHints{TTLMs: &v, CacheScope: scope}
}

// resultFields returns the fields of a result in x's era.
func (s *Server) resultFields(x *exchange) resultFields {
	if x.modern {
		return s.modernFields()
	}
	return resultFields{}
}

// listPrompts answers prompts/list: every prompt fits on the first page.
func (s *Server) listPrompts(x *exchange, p *cursorParams) (any, error) {
	if p.Cursor != nil {
		return nil, badCursor()
	}
	out := []resources.Prompt{}
	if s.context != nil {
		out = s.context.Prompts()
	}
	return promptsResult{resultFields: s.resultFields(x), Prompts: out, cacheHints: s.hints(x, "public")}, nil
}

// listTemplates answers resources/templates/list, one page.
func (s *Server) listTemplates(x *exchange, p *cursorParams) (any, error) {
	if p.Cursor != nil {
		return nil, badCursor()
	}
	out := []resources.Template{}
	if s.context != nil {
		out = s.context.Templates()
	}
	return templatesResult{resultFields: s.resultFields(x), ResourceTemplates: out, cacheHints: s.hints(x, "public")}, nil
}

// listResources answers resources/list: the caller's resources, paged by
// the service's signed cursors.
func (s *Server) listResources(x *exchange, p *cursorParams) (any, error) {
	if s.context == nil {
		if p.Cursor != nil {
			return nil, badCursor()
		}
		return resourcesResult{resultFields: s.resultFields(x), Resources: []resources.Resource{}, cacheHints: s.hints(x, "private")}, nil
	}
	page, err := s.context.List(x.ctx, x.scope(s.cfg.Edition), p.Cursor)
	if err != nil {
		return nil, err
	}
	return resourcesResult{resultFields: s.resultFields(x), Resources: page.Resources, NextCursor: page.NextCursor,
		cacheHints: s.hints(x, "private")}, nil
}

// readResource answers resources/read.
func (s *Server) readResource(x *exchange, p *readResourceParams) (any, error) {
	uri := p.mcpName()
	if uri == "" {
		return nil, jsonrpc.InvalidParams("uri must be a non-empty string")
	}
	if s.context == nil {
		return nil, &resources.NotFoundError{Kind: "Resource", Name: uri}
	}
	contents, err := s.context.Read(x.ctx, x.scope(s.cfg.Edition), uri)
	if err != nil {
		return nil, err
	}
	return readResult{resultFields: s.resultFields(x), Contents: contents, cacheHints: s.hints(x, "private")}, nil
}

// getPrompt answers prompts/get: the prompt's messages, or (Modern) a
// request for the client's input.
func (s *Server) getPrompt(x *exchange, p *getPromptParams) (any, error) {
	if p.Name == "" {
		return nil, jsonrpc.InvalidParams("name must be a non-empty string")
	}
	if s.context == nil {
		return nil, &resources.NotFoundError{Kind: "Prompt", Name: p.Name}
	}
	out, err := s.context.GetPrompt(x.ctx, x.scope(s.cfg.Edition), p.Name, p.Arguments, p.InputResponses)
	if err != nil {
		return nil, err
	}
	rf := s.resultFields(x)
	if len(out.InputRequests) == 0 {
		return promptResult{resultFields: rf, Description: out.Description, Messages: out.Messages}, nil
	}
	if !x.modern {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams,
			"The prompt "+quote(p.Name)+" needs input from the client, which takes protocol revision 2026-07-28", nil)
	}
	ir := inputRequiredResult{resultFields: rf, InputRequests: map[string]inputRequest{}}
	ir.ResultType = "input_required"
	for k, raw := range out.InputRequests {
		var r inputRequest
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("prompt %q input request %q: %w", p.Name, k, err)
		}
		ir.InputRequests[k] = r
	}
	return ir, nil
}

// complete answers completion/complete.
func (s *Server) complete(x *exchange, p *completeParams) (any, error) {
	if p.Ref == nil || p.Argument == nil {
		return nil, jsonrpc.InvalidParams("ref and argument are required")
	}
	var ctxArgs map[string]string
	if p.Context != nil {
		ctxArgs = p.Context.Arguments
	}
	if s.context == nil {
		return completeResult{resultFields: s.resultFields(x), Completion: resources.Completion{Values: []string{}}}, nil
	}
	c, err := s.context.Complete(x.ctx, x.scope(s.cfg.Edition), *p.Ref, p.Argument.Name, p.Argument.Value, ctxArgs)
	if err != nil {
		return nil, err
	}
	return completeResult{resultFields: s.resultFields(x), Completion: c}, nil
}

// subscribeResource answers Legacy resources/subscribe and unsubscribe
// with {}. A stateless server has no session to deliver updates on; the
// subscription is accepted and the client reads the resource when it
// needs it (2026-07-28 subscribes on subscriptions/listen).
func (s *Server) subscribeResource(x *exchange, _ *noParams) (any, error) {
	return emptyResult{resultFields: s.resultFields(x)}, nil
}

func badCursor() *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid cursor: it was not issued by this server for this list", nil)
}
