package mcp

import (
	"encoding/json"
	"testing"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
)

func TestCapReason(t *testing.T) {
	for in, want := range map[string]string{
		"subscribe: listen stream limit exceeded: too many open listen streams for this user (limit 2)": "Too many open listen streams for this user (limit 2)",
		"plain": "Plain",
	} {
		if got := capReason(errString(in)); got != want {
			t.Errorf("capReason(%q) = %q, want %q", in, got, want)
		}
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// Ensure the appended list_changed is byte for byte the encoded one, for
// every kind of request id.
func TestListChanged_sameAsEncoded(t *testing.T) {
	for _, text := range []string{`1`, `-42`, `"s-2"`, `"<a href=\"x\">&</a>"`, `"é\u2028\\\"\n"`} {
		var id jsonrpc.ID
		if err := id.UnmarshalJSON([]byte(text)); err != nil {
			t.Fatal(err)
		}
		subID := json.RawMessage(mustJSON(id))
		want, err := jsonrpc.EncodeNotification(notifyToolsListChanged, map[string]any{"_meta": map[string]any{MetaSubscriptionID: subID}})
		if err != nil {
			t.Fatal(err)
		}
		if got := listChanged(subID); string(got) != string(want) {
			t.Errorf("listChanged(%s) = %s, want %s", subID, got, want)
		}
	}
}
