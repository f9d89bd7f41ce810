package tools

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// OutputSchemaOf returns the JSON Schema (an object schema, as MCP's
// outputSchema must be) of the JSON encoding/json writes for a T, found by
// reflection over T: a tool whose structuredContent is always a T declares
// OutputSchemaOf[T]() and builds its result from a T, so the two cannot
// drift apart. It panics when T does not encode as a JSON object (a tool
// definition is wrong, which the tool service's tests catch at start).
//
// The schema follows encoding/json: exported fields by their json names
// (embedded structs flattened, "-" skipped), required unless omitempty or
// omitzero; a pointer, slice, map or interface may encode as null; a type
// with its own MarshalJSON or MarshalText is left open ({}), time.Time
// aside (a string). Objects are closed (additionalProperties false) except
// maps.
func OutputSchemaOf[T any]() json.RawMessage {
	t := reflect.TypeFor[T]()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || implementsMarshaler(t) {
		panic(fmt.Sprintf("output schema of %v: not a JSON object", t))
	}
	b, err := json.Marshal(schemaOf(t, map[reflect.Type]bool{}))
	if err != nil {
		panic(fmt.Sprintf("output schema of %v: %v", t, err))
	}
	return b
}

var (
	timeType      = reflect.TypeFor[time.Time]()
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

func implementsMarshaler(t reflect.Type) bool {
	return t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler) ||
		t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler)
}

// schemaOf is the schema of a value of type t; seen holds the struct types
// being expanded (a recursive type is left open where it recurs).
func schemaOf(t reflect.Type, seen map[reflect.Type]bool) map[string]any {
	if t == timeType {
		return map[string]any{"type": "string", "format": "date-time"}
	}
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && implementsMarshaler(t) {
		return map[string]any{}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return nullable(schemaOf(t.Elem(), seen))
	case reflect.Interface:
		return map[string]any{}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 { // []byte: base64
			return nullable(map[string]any{"type": "string"})
		}
		return nullable(map[string]any{"type": "array", "items": schemaOf(t.Elem(), seen)})
	case reflect.Array:
		return map[string]any{"type": "array", "items": schemaOf(t.Elem(), seen)}
	case reflect.Map:
		return nullable(map[string]any{"type": "object", "additionalProperties": schemaOf(t.Elem(), seen)})
	case reflect.Struct:
		if seen[t] {
			return map[string]any{}
		}
		seen[t] = true
		defer delete(seen, t)
		props := map[string]any{}
		required := []string{}
		structFields(t, seen, props, &required)
		return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
	}
	return map[string]any{}
}

// jsonField is one field encoding/json would write for a struct.
type jsonField struct {
	name     string
	typ      reflect.Type
	opts     string
	depth    int  // embedding depth
	tagged   bool // named by a json tag
	position int  // order met, for a stable result
}

// structFields adds the JSON fields of struct t to props (and the ones
// always written to required), flattening embedded structs with
// encoding/json's rule: of the fields sharing a name the shallowest wins,
// a tagged one among equals, and a tie leaves the name out.
func structFields(t reflect.Type, seen map[reflect.Type]bool, props map[string]any, required *[]string) {
	var fields []jsonField
	collectFields(t, 0, map[reflect.Type]bool{}, &fields)
	byName := map[string][]jsonField{}
	var order []string
	for _, f := range fields {
		if _, ok := byName[f.name]; !ok {
			order = append(order, f.name)
		}
		byName[f.name] = append(byName[f.name], f)
	}
	for _, name := range order {
		f, ok := dominantField(byName[name])
		if !ok {
			continue
		}
		s := schemaOf(f.typ, seen)
		if hasOpt(f.opts, "string") {
			s = map[string]any{"type": "string"}
		}
		props[name] = s
		if !hasOpt(f.opts, "omitempty") && !hasOpt(f.opts, "omitzero") {
			*required = append(*required, name)
		}
	}
}

func collectFields(t reflect.Type, depth int, visiting map[reflect.Type]bool, out *[]jsonField) {
	if visiting[t] {
		return
	}
	visiting[t] = true
	defer delete(visiting, t)
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct && !implementsMarshaler(ft) {
				collectFields(ft, depth+1, visiting, out)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		tagged := name != ""
		if !tagged {
			name = f.Name
		}
		*out = append(*out, jsonField{name: name, typ: f.Type, opts: opts, depth: depth, tagged: tagged, position: len(*out)})
	}
}

// dominantField picks the field encoding/json writes among those sharing a
// name; ok is false when none dominates.
func dominantField(fs []jsonField) (jsonField, bool) {
	minDepth := fs[0].depth
	for _, f := range fs {
		minDepth = min(minDepth, f.depth)
	}
	var top []jsonField
	for _, f := range fs {
		if f.depth == minDepth {
			top = append(top, f)
		}
	}
	if len(top) == 1 {
		return top[0], true
	}
	var tagged []jsonField
	for _, f := range top {
		if f.tagged {
			tagged = append(tagged, f)
		}
	}
	if len(tagged) == 1 {
		return tagged[0], true
	}
	return jsonField{}, false
}

func hasOpt(opts, opt string) bool { return strings.Contains(","+opts+",", ","+opt+",") }

// nullable lets s also be null.
func nullable(s map[string]any) map[string]any {
	ty, ok := s["type"].(string)
	if !ok {
		return s // open already
	}
	out := make(map[string]any, len(s))
	for k, v := range s {
		out[k] = v
	}
	out["type"] = []any{ty, "null"}
	return out
}
