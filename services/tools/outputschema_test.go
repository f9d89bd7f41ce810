package tools_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"gitlab.com/glmcp/glmcp/services/tools"
)

type osEmbedded struct {
	Shared string `json:"shared"`
}

type osChild struct {
	N int `json:"n"`
}

// osShadowed is embedded with a field the outer struct names too: the
// outer one is what encoding/json writes.
type osShadowed struct {
	Name int `json:"name"`
	Deep int `json:"deep"`
}

type osResult struct {
	osEmbedded
	osShadowed
	Name     string            `json:"name"`
	Count    int64             `json:"count"`
	Ratio    float64           `json:"ratio"`
	OK       bool              `json:"ok"`
	When     time.Time         `json:"when"`
	Maybe    *osChild          `json:"maybe"`
	Items    []osChild         `json:"items"`
	Labels   map[string]string `json:"labels"`
	Any      any               `json:"any"`
	Optional string            `json:"optional,omitempty"`
	Raw      json.RawMessage   `json:"raw"`
	Skipped  string            `json:"-"`
	hidden   string
}

func compileOutput(t *testing.T, raw json.RawMessage) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("mem:///o.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mem:///o.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validates(t *testing.T, s *jsonschema.Schema, doc string) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(doc)))
	if err != nil {
		t.Fatal(err)
	}
	return s.Validate(v)
}

// Ensure the schema OutputSchemaOf derives accepts what encoding/json
// writes for the type, whatever the values, and refuses other shapes.
func TestOutputSchemaOf(t *testing.T) {
	raw := tools.OutputSchemaOf[osResult]()
	s := compileOutput(t, raw)
	var schema map[string]any
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	if schema["type"] != "object" || schema["additionalProperties"] != false {
		t.Errorf("schema %s: want a closed object", raw)
	}
	for _, v := range []osResult{
		{},
		{osEmbedded: osEmbedded{Shared: "s"}, Name: "n", Count: 3, Ratio: 0.5, OK: true, When: time.Now(), Maybe: &osChild{N: 1},
			Items: []osChild{{N: 2}}, Labels: map[string]string{"a": "b"}, Any: []int{1}, Optional: "o", Raw: json.RawMessage(`{"x":1}`)},
	} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := validates(t, s, string(b)); err != nil {
			t.Errorf("%s does not validate: %v", b, err)
		}
	}
	good := `{"deep":0,"shared":"","name":"","count":0,"ratio":0,"ok":false,"when":"2026-01-01T00:00:00Z","maybe":null,"items":null,"labels":null,"any":null,"raw":null}`
	if err := validates(t, s, good); err != nil {
		t.Errorf("%s does not validate: %v", good, err)
	}
	for _, bad := range []string{
		`{}`, // required fields missing
		`{"deep":0,"shared":"","name":1,"count":0,"ratio":0,"ok":false,"when":"2026-01-01T00:00:00Z","maybe":null,"items":null,"labels":null,"any":null,"raw":null}`,
		`{"deep":0,"shared":"","name":"","count":0,"ratio":0,"ok":false,"when":"2026-01-01T00:00:00Z","maybe":null,"items":null,"labels":null,"any":null,"raw":null,"extra":1}`,
		`{"deep":0,"shared":"","name":"","count":1.5,"ratio":0,"ok":false,"when":"2026-01-01T00:00:00Z","maybe":null,"items":null,"labels":null,"any":null,"raw":null}`,
		`{"deep":0,"shared":"","name":"","count":0,"ratio":0,"ok":false,"when":"2026-01-01T00:00:00Z","maybe":{"n":"x"},"items":null,"labels":null,"any":null,"raw":null}`,
	} {
		if validates(t, s, bad) == nil {
			t.Errorf("%s validates, want it refused", bad)
		}
	}
	props := schema["properties"].(map[string]any)
	for _, name := range []string{"Skipped", "-", "hidden"} {
		if _, ok := props[name]; ok {
			t.Errorf("property %q should not be in the schema", name)
		}
	}
	for _, name := range schema["required"].([]any) {
		if name == "optional" {
			t.Error("an omitempty field is required")
		}
	}
}

// Ensure a type that does not encode as a JSON object is refused.
func TestOutputSchemaOf_notAnObject(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("OutputSchemaOf[[]int] did not panic")
		}
	}()
	tools.OutputSchemaOf[[]int]()
}
