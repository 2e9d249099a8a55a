package jsonwire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"regexp"
	"unicode/utf8"
)

// Checks is what a member's value must satisfy beyond its JSON type: the checked constraints of
// the resolved contract model (rendered per member by generators/templates/go), so the typed
// decoder refuses what the bundled schema refuses. Nil and zero fields check nothing.
type Checks struct {
	Integer          bool // a number without a fractional part (1.0 is an integer, as in JSON Schema)
	Pattern          *regexp.Regexp
	MinLength        *int // in characters (code points), as JSON Schema counts them
	MaxLength        *int
	Minimum          *big.Rat
	Maximum          *big.Rat
	ExclusiveMinimum *big.Rat
	ExclusiveMaximum *big.Rat
	MinItems         *int
	MaxItems         *int
	Enum             []json.RawMessage // the allowed values (const is a one-value enum)
	Items            *ItemChecks
}

// ItemChecks is what each item of an array member must be.
type ItemChecks struct {
	Kind     string // "boolean", "integer", "number", "string" or "any"
	Nullable bool
	Checks   Checks
}

// ValueError is a member whose value has the declared type but breaks a constraint.
type ValueError struct {
	Member string
	Msg    string
}

func (e *ValueError) Error() string { return fmt.Sprintf("%s: %s", e.Member, e.Msg) }

// Bound is a numeric bound of the model, exactly (no float rounding of either side).
func Bound(text string) *big.Rat {
	r, ok := new(big.Rat).SetString(text)
	if !ok {
		panic("jsonwire: bad numeric bound " + text)
	}
	return r
}

// Int is the address of n, for the length and item-count bounds of a Checks literal.
func Int(n int) *int { return &n }

// CheckValue checks raw (already decoded as its declared JSON type) against c.
func CheckValue(member string, raw json.RawMessage, c *Checks) error {
	trimmed := bytes.TrimSpace(raw)
	if len(c.Enum) > 0 && !oneOf(trimmed, c.Enum) {
		return &ValueError{member, fmt.Sprintf("%s is not an allowed value", trimmed)}
	}
	switch kindOf(trimmed) {
	case "a string":
		var s string
		if err := json.Unmarshal(trimmed, &s); err != nil {
			return &ValueError{member, err.Error()}
		}
		return checkString(member, s, c)
	case "a number":
		n, ok := new(big.Rat).SetString(string(trimmed))
		if !ok {
			return &ValueError{member, fmt.Sprintf("%s is not a number", trimmed)}
		}
		return checkNumber(member, n, c)
	case "an array":
		var items []json.RawMessage
		if err := json.Unmarshal(trimmed, &items); err != nil {
			return &ValueError{member, err.Error()}
		}
		return checkArray(member, items, c)
	}
	return nil
}

func checkString(member, s string, c *Checks) error {
	if c.Pattern != nil && !c.Pattern.MatchString(s) {
		return &ValueError{member, fmt.Sprintf("%q does not match %s", s, c.Pattern)}
	}
	length := utf8.RuneCountInString(s)
	if c.MinLength != nil && length < *c.MinLength {
		return &ValueError{member, fmt.Sprintf("shorter than %d characters", *c.MinLength)}
	}
	if c.MaxLength != nil && length > *c.MaxLength {
		return &ValueError{member, fmt.Sprintf("longer than %d characters", *c.MaxLength)}
	}
	return nil
}

func checkNumber(member string, n *big.Rat, c *Checks) error {
	switch {
	case c.Integer && !n.IsInt():
		return &ValueError{member, fmt.Sprintf("%s is not an integer", n.RatString())}
	case c.Minimum != nil && n.Cmp(c.Minimum) < 0:
		return &ValueError{member, fmt.Sprintf("%s is below the minimum %s", n.RatString(), c.Minimum.RatString())}
	case c.Maximum != nil && n.Cmp(c.Maximum) > 0:
		return &ValueError{member, fmt.Sprintf("%s is above the maximum %s", n.RatString(), c.Maximum.RatString())}
	case c.ExclusiveMinimum != nil && n.Cmp(c.ExclusiveMinimum) <= 0:
		return &ValueError{member, fmt.Sprintf("%s is not above %s", n.RatString(), c.ExclusiveMinimum.RatString())}
	case c.ExclusiveMaximum != nil && n.Cmp(c.ExclusiveMaximum) >= 0:
		return &ValueError{member, fmt.Sprintf("%s is not below %s", n.RatString(), c.ExclusiveMaximum.RatString())}
	}
	return nil
}

func checkArray(member string, items []json.RawMessage, c *Checks) error {
	if c.MinItems != nil && len(items) < *c.MinItems {
		return &ValueError{member, fmt.Sprintf("fewer than %d items", *c.MinItems)}
	}
	if c.MaxItems != nil && len(items) > *c.MaxItems {
		return &ValueError{member, fmt.Sprintf("more than %d items", *c.MaxItems)}
	}
	if c.Items == nil || c.Items.Kind == "any" {
		return nil
	}
	for i, item := range items {
		where := fmt.Sprintf("%s/%d", member, i)
		if IsNull(item) && c.Items.Nullable {
			continue
		}
		want := map[string]string{"boolean": "a boolean", "integer": "a number", "number": "a number", "string": "a string"}[c.Items.Kind]
		if kindOf(item) != want {
			return typeError(where, want, item)
		}
		if err := CheckValue(where, item, &c.Items.Checks); err != nil {
			return err
		}
	}
	return nil
}

// oneOf compares by value: numbers exactly (1 equals 1.0), everything else as decoded JSON.
func oneOf(raw []byte, allowed []json.RawMessage) bool {
	value, ok := decodeValue(raw)
	for _, candidate := range allowed {
		other, ok2 := decodeValue(candidate)
		if ok && ok2 && sameValue(value, other) {
			return true
		}
	}
	return false
}

func decodeValue(raw []byte) (any, bool) {
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.UseNumber()
	var value any
	return value, decoder.Decode(&value) == nil
}

func sameValue(a, b any) bool {
	na, aNumber := a.(json.Number)
	nb, bNumber := b.(json.Number)
	if aNumber && bNumber {
		ra, okA := new(big.Rat).SetString(string(na))
		rb, okB := new(big.Rat).SetString(string(nb))
		return okA && okB && ra.Cmp(rb) == 0
	}
	return reflect.DeepEqual(a, b)
}
