package jsonwire

import (
	"encoding/json"
	"regexp"
	"testing"
)

func TestCheckValue(t *testing.T) {
	cases := []struct {
		name   string
		checks Checks
		raw    string
		ok     bool
	}{
		{"integer", Checks{Integer: true}, `3`, true},
		{"integer with a zero fraction", Checks{Integer: true}, `3.0`, true},
		{"fraction is no integer", Checks{Integer: true}, `2.5`, false},
		{"minimum holds", Checks{Minimum: Bound("1")}, `1`, true},
		{"below the minimum", Checks{Minimum: Bound("1")}, `0.999`, false},
		{"big integers compare exactly", Checks{Maximum: Bound("9007199254740992")}, `9007199254740993`, false},
		{"exclusive minimum", Checks{ExclusiveMinimum: Bound("0")}, `0`, false},
		{"exclusive maximum", Checks{ExclusiveMaximum: Bound("1e2")}, `99.5`, true},
		{"pattern", Checks{Pattern: regexp.MustCompile(`^[a-z]+$`)}, `"abc"`, true},
		{"pattern refused", Checks{Pattern: regexp.MustCompile(`^[a-z]+$`)}, `"Abc"`, false},
		{"length counts characters", Checks{MaxLength: Int(2)}, `"éé"`, true},
		{"too long", Checks{MaxLength: Int(2)}, `"abc"`, false},
		{"too short", Checks{MinLength: Int(1)}, `""`, false},
		{"enum by value", Checks{Enum: []json.RawMessage{json.RawMessage(`1`)}}, `1.0`, true},
		{"not in the enum", Checks{Enum: []json.RawMessage{json.RawMessage(`"a"`)}}, `"b"`, false},
		{"typed items", Checks{Items: &ItemChecks{Kind: "string"}}, `["a", "b"]`, true},
		{"an item of the wrong type", Checks{Items: &ItemChecks{Kind: "string"}}, `["a", 1]`, false},
		{"a null item where allowed", Checks{Items: &ItemChecks{Kind: "integer", Nullable: true}}, `[null, 2]`, true},
		{"an item breaking its constraint", Checks{Items: &ItemChecks{Kind: "string", Checks: Checks{MaxLength: Int(1)}}}, `["ab"]`, false},
		{"too few items", Checks{MinItems: Int(1)}, `[]`, false},
		{"too many items", Checks{MaxItems: Int(1)}, `[1, 2]`, false},
	}
	for _, c := range cases {
		err := CheckValue("m", json.RawMessage(c.raw), &c.checks)
		if (err == nil) != c.ok {
			t.Errorf("%s: CheckValue(%s) = %v, want ok=%v", c.name, c.raw, err, c.ok)
		}
	}
}
