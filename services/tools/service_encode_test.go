package tools

import (
	"encoding/json"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

func TestEntry_AppendJSON_names(t *testing.T) {
	for _, name := range []string{"get_issue", `we"ird`, `back\slash`, "tab\tname", "ünï", "<html>"} {
		enc, err := encodeTool(&models.Tool{Name: name, InputSchema: models.JSON(`{"type":"object"}`)})
		if err != nil {
			t.Fatal(err)
		}
		e := &Entry{Tool: models.Tool{Name: name}, encoded: enc}
		out := e.AppendJSON(nil, "p_")
		var got struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(out, &got); err != nil || got.Name != "p_"+name {
			t.Fatalf("AppendJSON(%q) = %s (%v), want name %q", name, out, err, "p_"+name)
		}
		if n := e.JSONSize("p_"); n > len(out) {
			t.Errorf("JSONSize(%q) = %d > %d", name, n, len(out))
		}
	}
}
