package gitlab

import (
	"encoding/json"
	"fmt"
)

// obj is a JSON Schema (2020-12) fragment.
type obj = map[string]any

// inputSchema returns an object schema with props, required and
// additionalProperties false. Keys come out sorted, so the schema text is
// stable.
func inputSchema(props obj, required ...string) json.RawMessage {
	if len(required) == 0 {
		required = nil
	}
	return inputSchemaRequired(props, required)
}

// inputSchemaRequired is inputSchema with required written even when it is
// empty ("required": []), for a tool whose GitLab schema declares that
// nothing is required on its own.
func inputSchemaRequired(props obj, required []string) json.RawMessage {
	s := obj{"type": "object", "properties": props, "additionalProperties": false}
	if required != nil {
		s["required"] = required
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("input schema: %v", err)) // static data: cannot happen
	}
	return b
}

func withDesc(p obj, desc string) obj {
	p["description"] = desc
	return p
}

// refProp is a project or group reference: id or (URL-encoded) path.
func refProp(desc string) obj {
	return withDesc(obj{"type": []string{"string", "integer"}, "minLength": 1, "minimum": 1}, desc)
}

func projectIDProp() obj {
	return refProp("ID or URL-encoded path of the project (for example 42, \"gitlab-org/gitlab\" or \"gitlab-org%2Fgitlab\").")
}

func iidProp(desc string) obj {
	return withDesc(obj{"type": "integer", "minimum": 1}, desc)
}

func strProp(desc string, minLen, maxLen int) obj {
	p := obj{"type": "string"}
	if minLen > 0 {
		p["minLength"] = minLen
	}
	if maxLen > 0 {
		p["maxLength"] = maxLen
	}
	return withDesc(p, desc)
}

func boolProp(desc string) obj { return withDesc(obj{"type": "boolean"}, desc) }

func enumProp(desc string, values ...string) obj {
	return withDesc(obj{"type": "string", "enum": values}, desc)
}

func perPageProp(items string) obj {
	return withDesc(obj{"type": "integer", "minimum": 1, "maximum": maxPerPage, "default": defaultPerPage},
		fmt.Sprintf("Number of %s per page. Default %d, max %d.", items, defaultPerPage, maxPerPage))
}

func pageProp() obj {
	return withDesc(obj{"type": "integer", "minimum": 1, "maximum": maxOffset, "default": 1},
		fmt.Sprintf("Page number, starting at 1. Default 1. page × per_page may not pass %d (GitLab's offset pagination limit).", maxOffset))
}

func idListProp(desc string) obj {
	return withDesc(obj{"type": "array", "items": obj{"type": "integer", "minimum": 0}, "maxItems": 100}, desc)
}

// enumListProp is an array of values out of values. With unique it may
// hold each once (uniqueItems), so at most len(values) items; without, up
// to maxListItems (GitLab accepts repeats). Every array of a schema has a
// maxItems: a list is never longer than a client could mean, and a query
// built from one stays under the driver's parameter limit.
func enumListProp(desc string, unique bool, values ...string) obj {
	p := obj{"type": "array", "items": obj{"type": "string", "enum": values}, "maxItems": maxListItems}
	if unique {
		p["uniqueItems"], p["maxItems"] = true, len(values)
	}
	return withDesc(p, desc)
}

// labelsProp accepts an array of names or GitLab's comma-separated string.
func labelsProp() obj {
	return withDesc(obj{
		"type":     []string{"array", "string"},
		"items":    obj{"type": "string", "minLength": 1, "maxLength": maxTitleLength},
		"maxItems": 50,
	}, "Label names, as an array or a comma-separated string. Labels that do not exist in the project are created.")
}

// Limits shared by the tools (GitLab's).
const (
	defaultPerPage       = 20
	maxPerPage           = 100
	maxTitleLength       = 255
	maxDescriptionLength = 1_048_576
	maxNoteLength        = 1_048_576
	// maxPathBytes is the longest repository path (git's PATH_MAX, and
	// the repository package's CleanPath limit), in bytes.
	maxPathBytes = 4096
	// maxListItems bounds a list argument that names no other limit
	// (GitLab's per-page maximum).
	maxListItems = 100
)
