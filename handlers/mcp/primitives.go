package mcp

import "gitlab.com/glmcp/glmcp/handlers/jsonrpc"

// glmcp serves no prompts and no resources yet. The list methods answer
// empty lists (with caching hints on Modern), and prompts/get and
// resources/read answer -32602 for any name, as the 2026-07-28 revision
// prescribes for an unknown resource.

type promptsResult struct {
	resultFields
	Prompts    []struct{} `json:"prompts"`
	TTLMs      *int64     `json:"ttlMs,omitempty"`
	CacheScope string     `json:"cacheScope,omitempty"`
}

type resourcesResult struct {
	resultFields
	Resources  []struct{} `json:"resources"`
	TTLMs      *int64     `json:"ttlMs,omitempty"`
	CacheScope string     `json:"cacheScope,omitempty"`
}

type templatesResult struct {
	resultFields
	ResourceTemplates []struct{} `json:"resourceTemplates"`
	TTLMs             *int64     `json:"ttlMs,omitempty"`
	CacheScope        string     `json:"cacheScope,omitempty"`
}

// servePrimitives answers the prompt and resource methods; ok is false for
// any other method.
func (s *Server) servePrimitives(x *exchange) (res any, e *jsonrpc.Error, ok bool) {
	var rf resultFields
	var ttl *int64
	scope := ""
	if x.modern {
		rf = s.modernFields()
		v := ms(s.cfg.ListTTL)
		ttl, scope = &v, "public" // the same (empty) for everyone
	}
	switch x.req.Method {
	case "prompts/list":
		return promptsResult{resultFields: rf, Prompts: []struct{}{}, TTLMs: ttl, CacheScope: scope}, nil, true
	case "resources/list":
		return resourcesResult{resultFields: rf, Resources: []struct{}{}, TTLMs: ttl, CacheScope: scope}, nil, true
	case "resources/templates/list":
		return templatesResult{resultFields: rf, ResourceTemplates: []struct{}{}, TTLMs: ttl, CacheScope: scope}, nil, true
	case MethodGetPrompt:
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Unknown prompt: "+quote(x.name), nil), true
	case MethodReadResource:
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Resource not found: "+quote(x.uri), map[string]any{"uri": truncate(x.uri, 500)}), true
	}
	return nil, nil, false
}
