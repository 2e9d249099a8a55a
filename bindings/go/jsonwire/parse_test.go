package jsonwire

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestParseRules(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n-1) + strings.Repeat("]", n-1) }
	cases := []struct {
		name string
		text string
		rule Rule // "" = accepted
	}{
		{"object", `{"a": [1, 2.5, "x", null, true, {}]}`, ""},
		{"bom", "\xEF\xBB\xBF{}", RuleSyntax},
		{"invalid utf-8", "{\"a\": \"\xff\"}", RuleSyntax},
		{"duplicate top", `{"a": 1, "a": 1}`, RuleDuplicateKey},
		{"duplicate nested in array", `{"a": [{"b": 1, "b": 2}]}`, RuleDuplicateKey},
		{"duplicate after escape", `{"a": 1, "\u0061": 2}`, RuleDuplicateKey},
		{"same name in sibling objects", `{"a": {"x": 1}, "b": {"x": 1}}`, ""},
		{"NaN", `{"a": NaN}`, RuleNonFinite},
		{"Infinity in array", `[1, Infinity]`, RuleNonFinite},
		{"-Infinity", `{"a": -Infinity}`, RuleNonFinite},
		{"overflow", `{"a": 1e400}`, RuleNonFinite},
		{"negative overflow", `{"a": -1e400}`, RuleNonFinite},
		{"underflow is finite", `{"a": 1e-400}`, ""},
		{"depth 100", `{"x": ` + deep(100) + `}`, ""},
		{"depth 101", `{"x": ` + deep(101) + `}`, RuleTooDeep},
		{"depth 100000", `{"x": ` + deep(100000) + `}`, RuleTooDeep},
		{"empty", ``, RuleSyntax},
		{"only whitespace", " \n", RuleSyntax},
		{"two values", `{} {}`, RuleSyntax},
		{"trailing garbage", `{} x`, RuleSyntax},
		{"trailing comma", `{"a": 1,}`, RuleSyntax},
		{"truncated", `{"a": "b`, RuleSyntax},
		{"unclosed", `{"a": [1`, RuleSyntax},
		{"single quotes", `{'a': 1}`, RuleSyntax},
		{"scalar document", `1.0`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.text))
			if c.rule == "" {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				return
			}
			var parseErr *Error
			if !errors.As(err, &parseErr) || parseErr.Rule != c.rule {
				t.Fatalf("got %v, want rule %s", err, c.rule)
			}
		})
	}
}

func TestParseKeepsNumberText(t *testing.T) {
	doc, err := Parse([]byte(`{"i": 1, "big": 100000000000000000001, "e": 1.5e-07}`))
	if err != nil {
		t.Fatal(err)
	}
	object := doc.(map[string]any)
	for name, want := range map[string]string{"i": "1", "big": "100000000000000000001", "e": "1.5e-07"} {
		if got := object[name]; got != json.Number(want) {
			t.Errorf("%s = %#v, want %s", name, got, want)
		}
	}
}

func TestDecodersRefuseOtherTypes(t *testing.T) {
	for _, raw := range []string{`true`, `"1"`, `null`, `{}`, `[1]`} {
		if _, err := DecodeNumber("reward", json.RawMessage(raw)); err == nil {
			t.Errorf("DecodeNumber accepted %s", raw)
		}
	}
	for _, raw := range []string{`1`, `0`, `"true"`, `null`} {
		if _, err := DecodeBool("mask_sample", json.RawMessage(raw)); err == nil {
			t.Errorf("DecodeBool accepted %s", raw)
		}
	}
	if _, err := DecodeString("failure_reason", json.RawMessage(`7`)); err == nil {
		t.Error("DecodeString accepted 7")
	}
	if _, err := DecodeArray[json.RawMessage]("output", json.RawMessage(`{}`)); err == nil {
		t.Error("DecodeArray accepted {}")
	}
	if n, err := DecodeNumber("reward", json.RawMessage(`-0.0`)); err != nil || n != "-0.0" {
		t.Errorf("DecodeNumber(-0.0) = %q, %v", n, err)
	}
}

func TestReadObjectRefusesDuplicatesAndNonObjects(t *testing.T) {
	if _, err := ReadObject([]byte(`{"a": 1, "a": 2}`)); err == nil {
		t.Error("duplicate accepted")
	}
	if _, err := ReadObject([]byte(`[1]`)); err == nil {
		t.Error("array accepted")
	}
	if _, err := ReadObject([]byte(`{"a": 1} {}`)); err == nil {
		t.Error("trailing value accepted")
	}
}

func TestMembersAndWriteObject(t *testing.T) {
	members, err := ReadObject([]byte(`{"z": 1, "a": null, "m": {"k": [1, 2]}}`))
	if err != nil {
		t.Fatal(err)
	}
	layout := LayoutOf(members)
	if !layout.WasNull("a") || layout.WasNull("z") {
		t.Fatal("layout lost the null")
	}
	extra := Members(members)
	if err := extra.Set("new", map[string]string{"html": "<b>&</b>"}); err != nil {
		t.Fatal(err)
	}
	if err := extra.Set("z", 2); err != nil {
		t.Fatal(err)
	}
	extra.Delete("m")
	if _, ok := extra.Get("m"); ok {
		t.Fatal("Delete kept the member")
	}
	out, err := WriteObject(layout, extra)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"z":2,"a":null,"new":{"html":"<b>&</b>"}}`; string(out) != want {
		t.Fatalf("got %s, want %s", out, want)
	}
	if _, err := WriteObject(Layout{}, []Member{{"a", json.RawMessage(`1`)}, {"a", json.RawMessage(`2`)}}); err == nil {
		t.Fatal("WriteObject wrote a repeated name")
	}
}
