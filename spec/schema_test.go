package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Protocol revisions whose official schemas are in testdata/mcp-schema.
const (
	rev20250618 = "2025-06-18"
	rev20251125 = "2025-11-25"
	revModern   = "2026-07-28"
)

var (
	schemaMu    sync.Mutex
	schemaCache = map[string]*jsonschema.Schema{}
	compilers   = map[string]*jsonschema.Compiler{}
)

// schemaDef returns the compiled definition def of revision rev. Names
// that changed between revisions are mapped (JSONRPCErrorResponse is
// JSONRPCError in 2025-06-18, JSONRPCResultResponse is JSONRPCResponse).
func schemaDef(t testing.TB, rev, def string) *jsonschema.Schema {
	t.Helper()
	if rev == rev20250618 {
		switch def {
		case "JSONRPCErrorResponse":
			def = "JSONRPCError"
		case "JSONRPCResultResponse":
			def = "JSONRPCResponse"
		}
	}
	key := rev + "#" + def
	schemaMu.Lock()
	defer schemaMu.Unlock()
	if s, ok := schemaCache[key]; ok {
		return s
	}
	url := "https://modelcontextprotocol.io/schema/" + rev + ".json"
	c, ok := compilers[rev]
	if !ok {
		f, err := os.Open(filepath.Join("testdata", "mcp-schema", rev+".schema.json"))
		if err != nil {
			t.Fatalf("open schema: %v", err)
		}
		doc, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			t.Fatalf("parse schema %s: %v", rev, err)
		}
		c = jsonschema.NewCompiler()
		if err := c.AddResource(url, doc); err != nil {
			t.Fatalf("add schema %s: %v", rev, err)
		}
		compilers[rev] = c
	}
	ptr := "#/$defs/"
	if rev == rev20250618 {
		ptr = "#/definitions/"
	}
	s, err := c.Compile(url + ptr + def)
	if err != nil {
		t.Fatalf("compile %s %s: %v", rev, def, err)
	}
	schemaCache[key] = s
	return s
}

// validateMessage validates a whole JSON-RPC message against def.
func validateMessage(t testing.TB, rev, def string, body []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("message is not JSON: %v\n%s", err, body)
	}
	if err := schemaDef(t, rev, def).Validate(inst); err != nil {
		t.Fatalf("message does not validate against %s %s:\n%v\n%s", rev, def, err, body)
	}
}

// validateResult validates a result response: the envelope as a JSON-RPC
// result response, and its result against resultDef (e.g. "InitializeResult",
// "ListToolsResult", "CallToolResult", "DiscoverResult").
func validateResult(t testing.TB, rev, resultDef string, body []byte) {
	t.Helper()
	validateMessage(t, rev, "JSONRPCResultResponse", body)
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(body, &env); err != nil || len(env.Result) == 0 {
		t.Fatalf("no result in %s", body)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(env.Result))
	if err != nil {
		t.Fatal(err)
	}
	if err := schemaDef(t, rev, resultDef).Validate(inst); err != nil {
		t.Fatalf("result does not validate against %s %s:\n%v\n%s", rev, resultDef, err, body)
	}
}

// TestSchemas_compile guards the harness itself: every definition the
// specs use exists in its revision.
func TestSchemas_compile(t *testing.T) {
	for _, rev := range []string{rev20250618, rev20251125, revModern} {
		defs := []string{"JSONRPCErrorResponse", "JSONRPCResultResponse", "ListToolsResult", "CallToolResult", "JSONRPCNotification"}
		if rev != revModern { // the handshake is gone in 2026-07-28
			defs = append(defs, "InitializeResult")
		}
		for _, def := range defs {
			t.Run(fmt.Sprintf("%s/%s", rev, def), func(t *testing.T) { schemaDef(t, rev, def) })
		}
	}
	for _, def := range []string{"DiscoverResult", "SubscriptionsListenResult", "UnsupportedProtocolVersionError", "HeaderMismatchError", "MissingRequiredClientCapabilityError"} {
		schemaDef(t, revModern, def)
	}
}
