package jsonwire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// Member is one name/value pair of a JSON object; Value is the member's exact JSON text.
type Member struct {
	Name  string
	Value json.RawMessage
}

// Members are the members of an object that its type does not declare, in document order.
// They are written back unchanged.
type Members []Member

// Get returns the JSON text of the member called name.
func (m Members) Get(name string) (json.RawMessage, bool) {
	for _, member := range m {
		if member.Name == name {
			return member.Value, true
		}
	}
	return nil, false
}

// Set adds or replaces the member called name with the JSON encoding of value.
func (m *Members) Set(name string, value any) error {
	raw, err := Marshal(value)
	if err != nil {
		return fmt.Errorf("member %q: %w", name, err)
	}
	for i := range *m {
		if (*m)[i].Name == name {
			(*m)[i].Value = raw
			return nil
		}
	}
	*m = append(*m, Member{Name: name, Value: raw})
	return nil
}

// Delete removes the member called name, if present.
func (m *Members) Delete(name string) {
	kept := (*m)[:0]
	for _, member := range *m {
		if member.Name != name {
			kept = append(kept, member)
		}
	}
	*m = kept
}

// Layout remembers how a decoded object was written: the order of its members and which ones
// were an explicit null. Encoding uses it to reproduce the document; its zero value (a document
// built in code) means declared order and no nulls.
type Layout struct {
	order map[string]int
	nulls map[string]bool
}

// LayoutOf records the layout of decoded members.
func LayoutOf(members []Member) Layout {
	layout := Layout{order: make(map[string]int, len(members))}
	for i, member := range members {
		layout.order[member.Name] = i
		if IsNull(member.Value) {
			if layout.nulls == nil {
				layout.nulls = map[string]bool{}
			}
			layout.nulls[member.Name] = true
		}
	}
	return layout
}

// WasNull reports whether the decoded member called name was an explicit null.
func (l Layout) WasNull(name string) bool { return l.nulls[name] }

// ReadObject splits the JSON text of an object into its members, in order. Duplicate names at
// this level are an error (encoding/json would keep the last one silently).
func ReadObject(data []byte) ([]Member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, fmt.Errorf("expected a JSON object, got %s", kindOf(data))
	}
	var members []Member
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name := tok.(string) // the decoder only yields strings as member names
		if seen[name] {
			return nil, &Error{Rule: RuleDuplicateKey, Offset: dec.InputOffset(), Msg: fmt.Sprintf("duplicate member name %q", name)}
		}
		seen[name] = true
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		members = append(members, Member{Name: name, Value: value})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("text after the object")
	}
	return members, nil
}

// WriteObject writes members as one object: members the layout knows come first in their
// decoded order, then the others in the order given. Repeated names are an error.
func WriteObject(layout Layout, members []Member) ([]byte, error) {
	seen := make(map[string]bool, len(members))
	for _, member := range members {
		if seen[member.Name] {
			return nil, fmt.Errorf("member %q is written twice (an extra member repeats a declared field?)", member.Name)
		}
		seen[member.Name] = true
	}
	ordered := append([]Member(nil), members...)
	position := func(m Member) int {
		if i, ok := layout.order[m.Name]; ok {
			return i
		}
		return len(layout.order)
	}
	sort.SliceStable(ordered, func(i, j int) bool { return position(ordered[i]) < position(ordered[j]) })
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, member := range ordered {
		if i > 0 {
			buf.WriteByte(',')
		}
		name, err := Marshal(member.Name)
		if err != nil {
			return nil, err
		}
		buf.Write(name)
		buf.WriteByte(':')
		if err := json.Compact(&buf, member.Value); err != nil {
			return nil, fmt.Errorf("member %q: %w", member.Name, err)
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// Marshal encodes value as JSON without HTML escaping and without a trailing newline.
func Marshal(value any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(value); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// IsNull reports whether raw is the JSON literal null.
func IsNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

func kindOf(raw []byte) string {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return "nothing"
	}
	switch c := trimmed[0]; {
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	default:
		return "a number"
	}
}

// TypeError is a member whose JSON type is not the declared one.
type TypeError struct {
	Member string
	Want   string
	Got    string
}

func (e *TypeError) Error() string {
	return fmt.Sprintf("%s: expected %s, got %s", e.Member, e.Want, e.Got)
}

func typeError(member, want string, raw []byte) error {
	return &TypeError{Member: member, Want: want, Got: kindOf(raw)}
}

// DecodeNumber accepts a JSON number only (never a boolean, string or null) and keeps its text,
// so an integer stays an integer and nothing is rounded.
func DecodeNumber(member string, raw json.RawMessage) (json.Number, error) {
	if kindOf(raw) != "a number" {
		return "", typeError(member, "a number", raw)
	}
	n := json.Number(bytes.TrimSpace(raw))
	if err := checkFinite(n); err != nil {
		return "", fmt.Errorf("%s: %w", member, err)
	}
	return n, nil
}

// DecodeBool accepts true or false only.
func DecodeBool(member string, raw json.RawMessage) (bool, error) {
	switch string(bytes.TrimSpace(raw)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, typeError(member, "a boolean", raw)
}

// DecodeString accepts a JSON string only.
func DecodeString(member string, raw json.RawMessage) (string, error) {
	if kindOf(raw) != "a string" {
		return "", typeError(member, "a string", raw)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%s: %w", member, err)
	}
	return s, nil
}

// DecodeArray accepts a JSON array only; each item decodes to T (json.RawMessage keeps its exact text,
// json.Number its digits).
func DecodeArray[T any](member string, raw json.RawMessage) ([]T, error) {
	if kindOf(raw) != "an array" {
		return nil, typeError(member, "an array", raw)
	}
	items := []T{}
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("%s: %w", member, err)
	}
	return items, nil
}

// CheckObject fails unless raw is a JSON object (for nested types' error messages).
func CheckObject(member string, raw json.RawMessage) error {
	if kindOf(raw) != "an object" {
		return typeError(member, "an object", raw)
	}
	return nil
}

// MissingError is a required member that is absent.
type MissingError struct{ Member string }

func (e *MissingError) Error() string { return fmt.Sprintf("required member %q is missing", e.Member) }

// ObjectWriter collects the members of an object for MarshalJSON; the first error sticks.
type ObjectWriter struct {
	members []Member
	err     error
}

// Value adds a member holding the JSON encoding of value.
func (w *ObjectWriter) Value(name string, value any) {
	if w.err != nil {
		return
	}
	raw, err := Marshal(value)
	if err != nil {
		w.err = fmt.Errorf("%s: %w", name, err)
		return
	}
	w.members = append(w.members, Member{Name: name, Value: raw})
}

// Null adds a member holding null.
func (w *ObjectWriter) Null(name string) {
	w.members = append(w.members, Member{Name: name, Value: json.RawMessage("null")})
}

// Missing records that a required member has no value.
func (w *ObjectWriter) Missing(name string) {
	if w.err == nil {
		w.err = &MissingError{Member: name}
	}
}

// Finish adds the undeclared members and writes the object in the layout's order.
func (w *ObjectWriter) Finish(layout Layout, extra Members) ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	return WriteObject(layout, append(w.members, extra...))
}
