package mcp

import (
	"context"
	"encoding/json"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
	"gitlab.com/glmcp/glmcp/services/resources"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// ContextService serves resources, prompts and completions
// (resources.Service implements it). Without one, the list methods answer
// empty lists and reads answer "not found".
type ContextService interface {
	List(ctx context.Context, sc tools.Scope, cursor *string) (resources.ListPage, error)
	Templates() []resources.Template
	Read(ctx context.Context, sc tools.Scope, uri string) ([]resources.Contents, error)
	Prompts() []resources.Prompt
	GetPrompt(ctx context.Context, sc tools.Scope, name string, args map[string]string, inputResponses map[string]json.RawMessage) (*resources.PromptResult, error)
	Complete(ctx context.Context, sc tools.Scope, ref resources.Ref, arg, value string, ctxArgs map[string]string) (resources.Completion, error)
	// Watch resolves the resources a listen stream subscribes to.
	Watch(ctx context.Context, sc tools.Scope, uris []string) (resources.Watched, error)
}

// Method names of the prompt, resource and completion methods.
const (
	MethodListPrompts       = "prompts/list"
	MethodListResources     = "resources/list"
	MethodListTemplates     = "resources/templates/list"
	MethodComplete          = "completion/complete"
	MethodSubscribeResource = "resources/subscribe"
	MethodUnsubscribe       = "resources/unsubscribe"
)

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
	Cursor *string `json:"cursor"`
}

type getPromptParams struct {
	Name           string                     `json:"name"`
	Arguments      map[string]string          `json:"arguments"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
}

type completeParams struct {
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

// decodeParams decodes params into dst; -32602 when they do not fit.
func decodeParams(x *exchange, dst any) error {
	if len(x.req.Params) == 0 {
		return nil
	}
	if err := json.Unmarshal(x.req.Params, dst); err != nil {
		return jsonrpc.InvalidParams("%s", jsonMessage(err))
	}
	return nil
}

// servePrimitives answers the prompt, resource and completion methods; ok
// is false for any other method.
func (s *Server) servePrimitives(x *exchange) (res any, err error, ok bool) {
	var rf resultFields
	if x.modern {
		rf = s.modernFields()
	}
	sc := x.scope(s.cfg.Edition)
	svc := s.context
	switch x.req.Method {
	case MethodListPrompts:
		var p cursorParams
		if e := decodeParams(x, &p); e != nil {
			return nil, e, true
		}
		if p.Cursor != nil { // every prompt fits on the first page
			return nil, badCursor(), true
		}
		out := []resources.Prompt{}
		if svc != nil {
			out = svc.Prompts()
		}
		return promptsResult{resultFields: rf, Prompts: out, cacheHints: s.hints(x, "public")}, nil, true
	case MethodListTemplates:
		var p cursorParams
		if e := decodeParams(x, &p); e != nil {
			return nil, e, true
		}
		if p.Cursor != nil {
			return nil, badCursor(), true
		}
		out := []resources.Template{}
		if svc != nil {
			out = svc.Templates()
		}
		return templatesResult{resultFields: rf, ResourceTemplates: out, cacheHints: s.hints(x, "public")}, nil, true
	case MethodListResources:
		var p cursorParams
		if e := decodeParams(x, &p); e != nil {
			return nil, e, true
		}
		if svc == nil {
			if p.Cursor != nil {
				return nil, badCursor(), true
			}
			return resourcesResult{resultFields: rf, Resources: []resources.Resource{}, cacheHints: s.hints(x, "private")}, nil, true
		}
		page, err := svc.List(x.ctx, sc, p.Cursor)
		if err != nil {
			return nil, err, true
		}
		return resourcesResult{resultFields: rf, Resources: page.Resources, NextCursor: page.NextCursor,
			cacheHints: s.hints(x, "private")}, nil, true
	case MethodReadResource:
		if x.uri == "" {
			return nil, jsonrpc.InvalidParams("uri must be a non-empty string"), true
		}
		if svc == nil {
			return nil, &resources.NotFoundError{Kind: "Resource", Name: x.uri}, true
		}
		contents, err := svc.Read(x.ctx, sc, x.uri)
		if err != nil {
			return nil, err, true
		}
		return readResult{resultFields: rf, Contents: contents, cacheHints: s.hints(x, "private")}, nil, true
	case MethodGetPrompt:
		var p getPromptParams
		if e := decodeParams(x, &p); e != nil {
			return nil, e, true
		}
		if p.Name == "" {
			return nil, jsonrpc.InvalidParams("name must be a non-empty string"), true
		}
		if svc == nil {
			return nil, &resources.NotFoundError{Kind: "Prompt", Name: p.Name}, true
		}
		out, err := svc.GetPrompt(x.ctx, sc, p.Name, p.Arguments, p.InputResponses)
		if err != nil {
			return nil, err, true
		}
		if len(out.InputRequests) > 0 {
			if !x.modern {
				return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams,
					"The prompt "+quote(p.Name)+" needs input from the client, which takes protocol revision 2026-07-28", nil), true
			}
			ir := inputRequiredResult{resultFields: rf, InputRequests: map[string]inputRequest{}}
			ir.ResultType = "input_required"
			for k, raw := range out.InputRequests {
				var r inputRequest
				if err := json.Unmarshal(raw, &r); err != nil {
					return nil, err, true
				}
				ir.InputRequests[k] = r
			}
			return ir, nil, true
		}
		return promptResult{resultFields: rf, Description: out.Description, Messages: out.Messages}, nil, true
	case MethodComplete:
		var p completeParams
		if e := decodeParams(x, &p); e != nil {
			return nil, e, true
		}
		if p.Ref == nil || p.Argument == nil {
			return nil, jsonrpc.InvalidParams("ref and argument are required"), true
		}
		var ctxArgs map[string]string
		if p.Context != nil {
			ctxArgs = p.Context.Arguments
		}
		if svc == nil {
			return completeResult{resultFields: rf, Completion: resources.Completion{Values: []string{}}}, nil, true
		}
		c, err := svc.Complete(x.ctx, sc, *p.Ref, p.Argument.Name, p.Argument.Value, ctxArgs)
		if err != nil {
			return nil, err, true
		}
		return completeResult{resultFields: rf, Completion: c}, nil, true
	case MethodSubscribeResource, MethodUnsubscribe:
		// 2025 revisions only (2026-07-28 subscribes on
		// subscriptions/listen). A stateless server has no session to
		// deliver updates on; the subscription is accepted and the
		// client reads the resource when it needs it.
		if x.modern {
			return nil, nil, false
		}
		return emptyResult{resultFields: rf}, nil, true
	}
	return nil, nil, false
}

func badCursor() *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid cursor: it was not issued by this server for this list", nil)
}
