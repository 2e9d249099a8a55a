package jsonwire

import "testing"

// One finding per text with several defects: the first in text order (SPEC.md 2.1).
func TestFirstDefectInTextOrder(t *testing.T) {
	cases := map[string]Rule{
		`-NaN`:                        RuleSyntax,
		`{"":0NaN`:                    RuleSyntax,
		`{"a" NaN}`:                   RuleSyntax,
		`{} NaN`:                      RuleSyntax,
		`[1,NaN]`:                     RuleNonFinite,
		`[NaN`:                        RuleNonFinite,
		`{"a": -Infinity`:             RuleNonFinite,
		`{"reward":"","reward":1e400`: RuleDuplicateKey,
		`{"a":1,"a":NaN}`:             RuleDuplicateKey,
		`{"a":NaN,"a":1}`:             RuleNonFinite,
		`{"a":"\ud800","a":1}`:        RuleSyntax,
		`{"a":1,"a"}`:                 RuleDuplicateKey,
		`[1e400,"\udc00"]`:            RuleNonFinite,
	}
	for text, want := range cases {
		_, err := Parse([]byte(text))
		got, ok := err.(*Error)
		if !ok || got.Rule != want {
			t.Errorf("%s: got %v, want %s", text, err, want)
		}
	}
}
