package jsonrpc

import (
	"encoding/json"
	"math"
	"strconv"
	"testing"
)

func TestID_encoding(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		id   ID
		want string
	}{
		{"string", stringID("abc"), `"abc"`},
		{"empty string", stringID(""), `""`},
		{"string is not HTML-escaped", stringID(`<a&b>"`), `"<a&b>\""`},
		{"int", intID(42), `42`},
		{"negative int", intID(-7), `-7`},
		{"min int64", intID(math.MinInt64), `-9223372036854775808`},
		{"zero", ID{}, `null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// MarshalJSON itself does not escape HTML (json.Marshal would
			// re-escape its output; the envelope encoders do not).
			b, err := tc.id.MarshalJSON()
			if err != nil {
				t.Fatalf("MarshalJSON() error = %v", err)
			}
			if string(b) != tc.want {
				t.Errorf("MarshalJSON() = %s, want %s", b, tc.want)
			}
			env, err := EncodeResult(tc.id, struct{}{})
			if err != nil {
				t.Fatalf("EncodeResult() error = %v", err)
			}
			if want := `{"jsonrpc":"2.0","id":` + tc.want + `,"result":{}}`; string(env) != want {
				t.Errorf("EncodeResult() = %s, want %s", env, want)
			}
		})
	}
}

func TestID_zeroInStructIsNull(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(struct {
		ID ID `json:"id"`
	}{})
	if err != nil {
		t.Fatalf("json.Marshal error = %v", err)
	}
	if string(b) != `{"id":null}` {
		t.Errorf("json.Marshal = %s, want {\"id\":null}", b)
	}
	if got := (ID{}).String(); got != "" {
		t.Errorf("zero ID String() = %q, want empty", got)
	}
}

func TestID_UnmarshalJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in      string
		want    string // String() after decoding
		wantErr bool
	}{
		{in: `1`, want: `1`},
		{in: `"1"`, want: `"1"`},
		{in: ` "a\u0062" `, want: `"a\u0062"`},
		{in: `98765432109876543210`, want: `98765432109876543210`},
		{in: `null`, want: ``},
		{in: `1.5`, wantErr: true},
		{in: `1e2`, wantErr: true},
		{in: `true`, wantErr: true},
		{in: `{}`, wantErr: true},
		{in: `[]`, wantErr: true},
		{in: `"unterminated`, wantErr: true},
	} {
		var id ID
		err := id.UnmarshalJSON([]byte(tc.in))
		if (err != nil) != tc.wantErr {
			t.Errorf("UnmarshalJSON(%s) error = %v, wantErr %v", tc.in, err, tc.wantErr)
			continue
		}
		if !tc.wantErr && id.String() != tc.want {
			t.Errorf("UnmarshalJSON(%s) = %s, want %s", tc.in, id.String(), tc.want)
		}
	}
}

func TestID_UnmarshalJSONCopies(t *testing.T) {
	t.Parallel()
	in := []byte(`"abc"`)
	var id ID
	if err := json.Unmarshal(in, &id); err != nil {
		t.Fatalf("json.Unmarshal error = %v", err)
	}
	in[1] = 'X'
	if id.String() != `"abc"` {
		t.Errorf("ID = %s after the input changed, want \"abc\"", id.String())
	}
}

// stringID returns the ID for the string s.
func stringID(s string) ID {
	b, _ := appendJSON(nil, s) // a string always encodes
	return ID{raw: b}
}

// intID returns the ID for the integer n.
func intID(n int64) ID {
	return ID{raw: strconv.AppendInt(nil, n, 10)}
}
