package gitlab

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"gitlab.com/glmcp/glmcp/services/tools"
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

// argsSchema is inputSchema for a tool whose arguments run decodes into
// A (tools.Typed(run)): the schema and the struct cannot drift apart, for
// it panics (when the catalog is built: every test, and the server's
// start) unless props names exactly A's JSON fields and required names
// only fields. The descriptions, enums and bounds stay beside the
// properties, in the prop helpers.
func argsSchema[A any](run func(context.Context, *tools.Call, A) (*tools.Result, error), props obj, required ...string) json.RawMessage {
	checkArgsProps[A](props, required)
	return inputSchema(props, required...)
}

// argsSchemaRequired is argsSchema writing required even when it is
// empty (inputSchemaRequired).
func argsSchemaRequired[A any](run func(context.Context, *tools.Call, A) (*tools.Result, error), props obj, required []string) json.RawMessage {
	checkArgsProps[A](props, required)
	return inputSchemaRequired(props, required)
}

func checkArgsProps[A any](props obj, required []string) {
	fields := jsonFields(reflect.TypeFor[A]())
	var missing, extra []string
	for name := range props {
		if !slices.Contains(fields, name) {
			missing = append(missing, name)
		}
	}
	for _, f := range fields {
		if _, ok := props[f]; !ok {
			extra = append(extra, f)
		}
	}
	for _, r := range required {
		if !slices.Contains(fields, r) {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 || len(extra) > 0 {
		slices.Sort(missing)
		slices.Sort(extra)
		panic(fmt.Sprintf("input schema of %v: properties without a field %v, fields without a property %v",
			reflect.TypeFor[A](), missing, extra))
	}
}

// jsonFields lists the names encoding/json decodes into struct type t:
// exported fields by their json names, "-" skipped, untagged embedded
// structs flattened.
func jsonFields(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			out = append(out, jsonFields(ft)...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	return out
}
