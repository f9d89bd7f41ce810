package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"gitlab.com/glmcp/glmcp/models"
)

// JSONSize is the length of AppendJSON's output (the name's escaping
// aside).
func (e *Entry) JSONSize(prefix string) int {
	return len(`{"name":""`) + len(prefix) + len(e.Tool.Name) + len(e.encoded)
}

// AppendJSON appends the tool's tools/list object with its name prefixed.
func (e *Entry) AppendJSON(dst []byte, prefix string) []byte {
	dst = append(dst, `{"name":`...)
	if plainJSON(prefix) && plainJSON(e.Tool.Name) { // the usual case: no escaping
		dst = append(dst, '"')
		dst = append(dst, prefix...)
		dst = append(dst, e.Tool.Name...)
		dst = append(dst, '"')
	} else {
		name, _ := json.Marshal(prefix + e.Tool.Name)
		dst = append(dst, name...)
	}
	return append(dst, e.encoded...)
}

// plainJSON reports whether s can stand in a JSON string as is: printable
// ASCII without quote or backslash.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

func encodeTool(t *models.Tool) ([]byte, error) {
	type wire struct {
		Title        string          `json:"title,omitempty"`
		Description  string          `json:"description,omitempty"`
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
		Annotations  json.RawMessage `json:"annotations,omitempty"`
	}
	ann, err := withToolset(t.Annotations, t.Toolset)
	if err != nil {
		return nil, fmt.Errorf("encode tool %q: %w", t.Name, err)
	}
	w := wire{Title: t.Title, Description: t.Description, InputSchema: json.RawMessage(t.InputSchema),
		OutputSchema: json.RawMessage(t.OutputSchema), Annotations: ann}
	if len(w.InputSchema) == 0 {
		w.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	b, err := marshalUnescaped(w)
	if err != nil {
		return nil, fmt.Errorf("encode tool %q: %w", t.Name, err)
	}
	if len(b) == 2 { // "{}": cannot happen, inputSchema is always set
		return nil, errors.New("encode tool: empty object")
	}
	out := make([]byte, 0, len(b))
	out = append(out, ',')
	return append(out, b[1:]...), nil
}

// marshalUnescaped is json.Marshal without HTML escaping (<, >, & stay as
// is, as GitLab renders them).
func marshalUnescaped(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(buf.Bytes()), nil
}

// withToolset returns the annotations with the tool's toolset added under
// "toolset", as GitLab's tools/list carries it (ListTools#build_tool_data
// merges toolset into the annotations). A toolset set in the stored
// annotations is replaced: the definition's toolset is the one that
// filters.
func withToolset(annotations models.JSON, toolset string) (json.RawMessage, error) {
	if toolset == "" {
		return json.RawMessage(annotations), nil
	}
	m := map[string]json.RawMessage{}
	if len(annotations) > 0 {
		if err := json.Unmarshal(annotations, &m); err != nil {
			return nil, fmt.Errorf("annotations: %w", err)
		}
	}
	ts, _ := json.Marshal(toolset)
	m["toolset"] = ts
	return marshalUnescaped(m)
}
